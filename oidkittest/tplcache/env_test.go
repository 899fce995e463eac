package tplcache

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/seed"
)

func TestCacheFromEnv(t *testing.T) {
	xdg := t.TempDir()
	def := filepath.Join(xdg, "oidkit", "templates")
	for _, tc := range []struct {
		name                   string
		dir, mode, max, legacy string // "-": unset
		wantDir                string
		wantMax                int64
		wantOff                bool
		wantErr                string
	}{
		{name: "defaults", dir: "-", mode: "-", max: "-", legacy: "-", wantDir: def, wantMax: DefaultMax},
		{name: "a directory", dir: "/var/cache/x", mode: "on", max: "2GiB", legacy: "-", wantDir: "/var/cache/x/templates", wantMax: 2 << 30},
		{name: "off", dir: "-", mode: "off", max: "1000000", legacy: "-", wantDir: def, wantMax: 1000000, wantOff: true},
		{name: "OFF", dir: "-", mode: " OFF ", max: "-", legacy: "-", wantDir: def, wantMax: DefaultMax, wantOff: true},
		{name: "the earlier off", dir: "-", mode: "-", max: "-", legacy: "off", wantDir: def, wantMax: DefaultMax, wantOff: true},
		{name: "on over the earlier off", dir: "-", mode: "on", max: "-", legacy: "off", wantDir: def, wantMax: DefaultMax},
		{name: "the earlier directory", dir: "-", mode: "-", max: "-", legacy: "/srv/tpl", wantDir: "/srv/tpl", wantMax: DefaultMax},
		{name: "a directory over the earlier one", dir: "/var/cache/x", mode: "-", max: "-", legacy: "/srv/tpl", wantDir: "/var/cache/x/templates", wantMax: DefaultMax},
		{name: "a bad mode", dir: "-", mode: "maybe", max: "-", legacy: "-", wantErr: `OIDKIT_CACHE="maybe": expected "on" or "off"`},
		{name: "a bad bound", dir: "-", mode: "-", max: "lots", legacy: "-", wantErr: `OIDKIT_CACHE_MAX="lots": expected a positive size such as 512MiB, 2GB or 1048576 (bytes)`},
		{name: "a zero bound", dir: "-", mode: "-", max: "0", legacy: "-", wantErr: `OIDKIT_CACHE_MAX="0": expected a positive size`},
		{name: "an empty bound", dir: "-", mode: "-", max: "", legacy: "-", wantErr: `OIDKIT_CACHE_MAX="": expected a positive size`},
		{name: "a relative directory", dir: "cache", mode: "-", max: "-", legacy: "-", wantErr: `OIDKIT_CACHE_DIR="cache": expected an absolute directory`},
		{name: "a relative earlier directory", dir: "-", mode: "-", max: "-", legacy: "cache", wantErr: `OIDKIT_TEST_CACHE="cache": expected off or an absolute directory`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", xdg)
			for env, v := range map[string]string{DirEnv: tc.dir, ModeEnv: tc.mode, MaxEnv: tc.max, LegacyEnv: tc.legacy} {
				setOrUnset(t, env, v)
			}
			c, err := FromEnv()
			if tc.wantErr != "" {
				var ee *EnvError
				if !errors.As(err, &ee) || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("FromEnv: %v; want an *EnvError %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || c.Dir != tc.wantDir || c.Max != tc.wantMax || c.Off != tc.wantOff {
				t.Fatalf("FromEnv = %+v, %v; want dir %s, max %d, off %v", c, err, tc.wantDir, tc.wantMax, tc.wantOff)
			}
			if wantLegacy := filepath.Join(xdg, "oidkit", "oidkittest"); (c.Dir == def) != (c.Legacy == wantLegacy) {
				t.Fatalf("FromEnv: Legacy %q beside the directory %s", c.Legacy, c.Dir)
			}
		})
	}
}

// Without OIDKIT_CACHE_DIR and without a user cache directory the cache
// is off, saying why, rather than failing every test.
func TestCacheFromEnvWithoutHome(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	setOrUnset(t, DirEnv, "-")
	setOrUnset(t, ModeEnv, "-")
	setOrUnset(t, MaxEnv, "-")
	setOrUnset(t, LegacyEnv, "-")
	c, err := FromEnv()
	if err != nil || !c.Off || !strings.Contains(c.Why, DirEnv+" unset") {
		t.Fatalf("FromEnv without a home: %+v, %v", c, err)
	}
}

// setOrUnset sets env to v for the test, or unsets it for "-".
func setOrUnset(t *testing.T, env, v string) {
	t.Setenv(env, v) // restores it after the test
	if v == "-" {
		if err := os.Unsetenv(env); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseAndFormatSize(t *testing.T) {
	for in, want := range map[string]int64{
		"1": 1, "512MiB": 512 << 20, "2 GB": 2e9, "3kib": 3 << 10, "1T": 1e12, " 7 b ": 7, "10TiB": 10 << 40,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "1.5GB", "GB", "12 parsecs", "99999999999TiB", "0x10"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d; want an error", in, got)
		}
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 512 << 20: "512 MiB", 6_500_000: "6.2 MiB", 3 << 40: "3 TiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q; want %q", n, got, want)
		}
	}
}

// Each input changes the key; nothing else enters it.
func TestCacheKeyInputs(t *testing.T) {
	base := KeyInputs{Content: "c", Server: "MongoDB", Format: 1, Generator: 2, Oidkit: "v1.0.0", Gofakeit: "v7.18.2"}
	seen := map[string]string{base.Key(): "base"}
	for name, k := range map[string]KeyInputs{
		"content":   {Content: "d", Server: "MongoDB", Format: 1, Generator: 2, Oidkit: "v1.0.0", Gofakeit: "v7.18.2"},
		"server":    {Content: "c", Server: "FerretDB", Format: 1, Generator: 2, Oidkit: "v1.0.0", Gofakeit: "v7.18.2"},
		"format":    {Content: "c", Server: "MongoDB", Format: 2, Generator: 2, Oidkit: "v1.0.0", Gofakeit: "v7.18.2"},
		"generator": {Content: "c", Server: "MongoDB", Format: 1, Generator: 3, Oidkit: "v1.0.0", Gofakeit: "v7.18.2"},
		"oidkit":    {Content: "c", Server: "MongoDB", Format: 1, Generator: 2, Oidkit: "v1.0.1", Gofakeit: "v7.18.2"},
		"gofakeit":  {Content: "c", Server: "MongoDB", Format: 1, Generator: 2, Oidkit: "v1.0.0", Gofakeit: "v7.18.3"},
		"shifted":   {Content: "cM", Server: "ongoDB", Format: 1, Generator: 2, Oidkit: "v1.0.0", Gofakeit: "v7.18.2"},
	} {
		key := k.Key()
		if other, ok := seen[key]; ok {
			t.Errorf("%s: the key of %s", name, other)
		}
		seen[key] = name
		if checkKey(key) != nil {
			t.Errorf("%s: key %q", name, key)
		}
	}
	if got := Inputs("c", "MongoDB"); got.Format != FormatVersion || got.Generator != seed.DocumentFormat || got.Content != "c" || got.Server != "MongoDB" {
		t.Errorf("Inputs = %+v", got)
	}
}

// The module versions enter the key only where they name a release: not
// a test binary's (which lists no dependency), not a (devel) or dirty main
// module, not a directory a replace directive points to.
func TestCacheKeyVersions(t *testing.T) {
	mod := func(path, v string, repl *debug.Module) *debug.Module {
		return &debug.Module{Path: path, Version: v, Replace: repl}
	}
	const oidkit, fake = "github.com/oidkit/oidkit", "github.com/brianvoe/gofakeit/v7"
	for _, tc := range []struct {
		name         string
		bi           *debug.BuildInfo
		wantO, wantG string
	}{
		{"no build information", nil, "", ""},
		{"oidkit's test binary", &debug.BuildInfo{Main: *mod(oidkit, "(devel)", nil)}, "", ""},
		{"a user's test binary", &debug.BuildInfo{Main: *mod("example.com/u", "(devel)", nil)}, "", ""},
		{"a user's program", &debug.BuildInfo{Main: *mod("example.com/u", "v0.0.0-20261205-abc", nil), Deps: []*debug.Module{mod(oidkit, "v1.2.0", nil), mod(fake, "v7.18.2", nil)}}, "v1.2.0", "v7.18.2"},
		{"oidkit replaced by a directory", &debug.BuildInfo{Main: *mod("example.com/u", "", nil), Deps: []*debug.Module{mod(oidkit, "v0.0.0", mod("../oidkit", "", nil)), mod(fake, "v7.18.2", nil)}}, "", "v7.18.2"},
		{"oidkit replaced by a fork", &debug.BuildInfo{Deps: []*debug.Module{mod(oidkit, "v1.2.0", mod("example.com/fork", "v1.2.1", nil))}}, "example.com/fork@v1.2.1", ""},
		{"oidkit's binary, dirty tree", &debug.BuildInfo{Main: *mod(oidkit, "v0.0.0-20261205120000-abcdef123456+dirty", nil)}, "", ""},
		{"oidkit's binary, a commit", &debug.BuildInfo{Main: *mod(oidkit, "v0.0.0-20261205120000-abcdef123456", nil)}, "v0.0.0-20261205120000-abcdef123456", ""},
	} {
		o, g := versions(tc.bi)
		if o != tc.wantO || g != tc.wantG {
			t.Errorf("%s: versions = %q, %q; want %q, %q", tc.name, o, g, tc.wantO, tc.wantG)
		}
	}
}
