package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/oidkit/oidkit/internal/buildinfo"
)

func TestFormatVersionConstructed(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.99.1",
		Main:      debug.Module{Path: "github.com/oidkit/oidkit", Version: "v1.2.3"},
		Deps: []*debug.Module{
			{Path: "go.mongodb.org/mongo-driver/v2", Version: "v2.10.0", Replace: &debug.Module{Path: "../driver", Version: ""}},
			{Path: "go.mongodb.org/mongo-driver/v2/extra", Version: "v9.9.9"}, // a prefix of no interest
		},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	got := buildinfo.Format(bi)
	want := "oidkit v1.2.3\n" +
		"commit   0123456789abcdef0123456789abcdef01234567 (modified: uncommitted changes), 2026-01-02T03:04:05Z\n" +
		"go       go1.99.1\n" +
		"module   go.mongodb.org/mongo-driver/v2 v2.10.0 (replaced by ../driver)\n" +
		"module   go.mongodb.org/mongo-driver (not linked)\n"
	if got != want {
		t.Errorf("formatVersion:\n%s\nwant:\n%s", got, want)
	}

	// Built in a checkout without VCS stamping: no version, no commit.
	bi.Main.Version, bi.Settings = "", nil
	bi.Deps[0].Replace = &debug.Module{Path: "example.com/fork", Version: "v2.10.1"}
	got = buildinfo.Format(bi)
	for _, line := range []string{"oidkit (devel)\n", "commit   unknown (built without VCS information)\n",
		"module   go.mongodb.org/mongo-driver/v2 v2.10.0 (replaced by example.com/fork v2.10.1)\n"} {
		if !strings.Contains(got, line) {
			t.Errorf("formatVersion without VCS: %q lacks %q", got, line)
		}
	}
	bi.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}
	if got := buildinfo.Format(bi); !strings.Contains(got, "commit   abc\n") {
		t.Errorf("clean tree: %q", got)
	}
	if got := buildinfo.Format(nil); got != "oidkit (no build information)\n" {
		t.Errorf("buildinfo.Format(nil) = %q", got)
	}
}

// Each item of the output against debug.ReadBuildInfo of this test binary,
// read here independently.
func TestVersionAgainstBuildInfo(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("skipped: the test binary has no build information")
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, errOut, code := runApp(t, t.Context(), "", args...)
		if code != ExitOK || errOut != "" {
			t.Fatalf("oidkit %v: exit %d, stderr %q", args, code, errOut)
		}
		lines := strings.Split(out, "\n")
		mainV := bi.Main.Version
		if mainV == "" {
			mainV = "(devel)"
		}
		if lines[0] != "oidkit "+mainV {
			t.Errorf("first line %q, want oidkit %s", lines[0], mainV)
		}
		if !strings.Contains(out, "go       "+runtime.Version()+"\n") {
			t.Errorf("output lacks the Go version %s:\n%s", runtime.Version(), out)
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && !strings.Contains(out, s.Value) {
				t.Errorf("output lacks the revision %s", s.Value)
			}
		}
		// A test binary may list no dependencies: then each module is
		// "(not linked)".
		for _, m := range buildinfo.Modules {
			want := "module   " + m + " (not linked)\n"
			for _, d := range bi.Deps {
				if d.Path == m {
					want = "module   " + m + " " + d.Version + "\n"
					if d.Replace != nil {
						want = "module   " + m + " " + d.Version + " (replaced by " + d.Replace.Path
					}
				}
			}
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	}
	if _, errOut, code := runApp(t, t.Context(), "", "version", "extra"); code != ExitUsage || !strings.Contains(errOut, `"extra"`) {
		t.Errorf("version extra: exit %d %q", code, errOut)
	}
}

// The oidkit binary is built once per run of this package's tests (as the
// top-level tests' oidkitBinary does): every test that needs it runs the same
// go build of the same module, so a second build would only cost time.
var (
	builtOnce sync.Once
	builtBin  string
	builtErr  error
)

// buildOidkit builds the oidkit binary of the module at root, once per
// package run, into a temporary directory that TestMain removes, and
// returns its path.
func buildOidkit(t *testing.T, root string) string {
	t.Helper()
	builtOnce.Do(func() {
		dir, err := os.MkdirTemp("", "oidkit-cli-bin-")
		if err != nil {
			builtErr = err
			return
		}
		builtBin = filepath.Join(dir, "oidkit")
		build := exec.Command("go", "build", "-o", builtBin, ".")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			builtErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtErr != nil {
		t.Fatal(builtErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		_ = os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// The real binary, built with go build: its --version names the Go that
// built it and the FerretDB and driver versions go.mod requires.
func TestVersionOfBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: builds the binary")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildOidkit(t, root)
	out, err := exec.CommandContext(t.Context(), bin, "--version").Output()
	if err != nil {
		t.Fatalf("oidkit --version: %v", err)
	}
	goVersion, err := exec.CommandContext(t.Context(), "go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "go       " + strings.TrimSpace(string(goVersion)) + "\n"; !strings.Contains(string(out), want) {
		t.Errorf("oidkit --version:\n%s\nlacks %q", out, want)
	}
	for _, m := range buildinfo.Modules {
		req := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(m) + `\s+(v\S+)`).FindSubmatch(gomod)
		if req == nil {
			t.Fatalf("go.mod requires no %s", m)
		}
		if want := "module   " + m + " " + string(req[1]) + "\n"; !strings.Contains(string(out), want) {
			t.Errorf("oidkit --version:\n%s\nlacks %q (from go.mod)", out, want)
		}
	}
	// The commit is the checkout's when the build could stamp it.
	if m := regexp.MustCompile(`(?m)^commit   ([0-9a-f]{40})`).FindSubmatch(out); m != nil {
		head, err := exec.CommandContext(t.Context(), "git", "-C", root, "rev-parse", "HEAD").Output()
		if err == nil && strings.TrimSpace(string(head)) != string(m[1]) {
			t.Errorf("commit %s, git HEAD %s", m[1], head)
		}
	}
}
