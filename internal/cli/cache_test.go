package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/oidkittest/tplcache"
)

// cacheEnv gives the test a template cache of its own and returns its
// templates directory.
func cacheEnv(t *testing.T, max string) string {
	t.Helper()
	root := t.TempDir()
	t.Setenv(tplcache.DirEnv, root)
	t.Setenv(tplcache.ModeEnv, "on")
	t.Setenv(tplcache.MaxEnv, max)
	t.Setenv(tplcache.LegacyEnv, "")
	return filepath.Join(root, "templates")
}

func putEntry(t *testing.T, c *tplcache.Cache, content, what string, colls map[string]int) int64 {
	t.Helper()
	e := &tplcache.Entry{Key: tplcache.Inputs(content, "MongoDB").Key(), What: what}
	for _, name := range []string{"users", "tags"} {
		n, ok := colls[name]
		if !ok {
			continue
		}
		col := tplcache.Collection{Name: name}
		for i := range n {
			d, _ := bson.Marshal(bson.D{{Key: "_id", Value: int32(i)}})
			col.Docs = append(col.Docs, d)
		}
		e.Collections = append(e.Collections, col)
	}
	if err := c.Put(e); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(c.Dir, e.Key+".tpl"))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestCacheCommandShowAndClear(t *testing.T) {
	dir := cacheEnv(t, "1MiB")
	out, errOut, code := runApp(t, t.Context(), "", "cache")
	if want := fmt.Sprintf("template cache %s: 0 entries, 0 B of 1 MiB (OIDKIT_CACHE_MAX)\n", dir); out != want || errOut != "" || code != ExitOK {
		t.Fatalf("oidkit cache of an empty cache: %q, %q, %d; want %q", out, errOut, code, want)
	}
	c := &tplcache.Cache{Dir: dir, Max: 1 << 20}
	size := putEntry(t, c, "a", "plan seed 3: users (user ×5, _id objectid)", map[string]int{"users": 5})
	size += putEntry(t, c, "b", "plan seed 4: users (user ×2, _id int); fixtures d/tags.json", map[string]int{"users": 2, "tags": 3})
	keyA, keyB := tplcache.Inputs("a", "MongoDB").Key(), tplcache.Inputs("b", "MongoDB").Key()
	for _, args := range [][]string{{"cache"}, {"cache", "show"}} {
		out, errOut, code := runApp(t, t.Context(), "", args...)
		if code != ExitOK || errOut != "" {
			t.Fatalf("oidkit %v: exit %d, %q", args, code, errOut)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		want := []string{
			fmt.Sprintf(`^template cache %s: 2 entries, %s of 1 MiB \(OIDKIT_CACHE_MAX\)$`, regexp.QuoteMeta(dir), regexp.QuoteMeta(tplcache.FormatSize(size))),
			`^KEY +SIZE +LAST USED +COLLECTIONS \(DOCUMENTS\) +WHAT$`,
			`^` + keyB[:16] + ` +\d+ B +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +users \(2\), tags \(3\) +plan seed 4: users \(user ×2, _id int\); fixtures d/tags.json$`,
			`^` + keyA[:16] + ` +\d+ B +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +users \(5\) +plan seed 3: users \(user ×5, _id objectid\)$`,
		}
		if len(lines) != len(want) {
			t.Fatalf("oidkit %v:\n%s", args, out)
		}
		for i, re := range want {
			if !regexp.MustCompile(re).MatchString(lines[i]) {
				t.Errorf("oidkit %v: line %d %q; want %s", args, i, lines[i], re)
			}
		}
	}

	out, errOut, code = runApp(t, t.Context(), "", "cache", "clear")
	if want := fmt.Sprintf("cleared %s: removed 2 entries, freed %s (%d bytes)\n", dir, tplcache.FormatSize(size), size); out != want || errOut != "" || code != ExitOK {
		t.Fatalf("oidkit cache clear: %q, %q, %d; want %q", out, errOut, code, want)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Fatalf("left after clear: %v", m)
	}
	out, _, code = runApp(t, t.Context(), "", "cache", "clear")
	if want := fmt.Sprintf("cleared %s: removed 0 entries, freed 0 B (0 bytes)\n", dir); out != want || code != ExitOK {
		t.Fatalf("oidkit cache clear of an empty cache: %q, %d", out, code)
	}
}

func TestCacheCommandOff(t *testing.T) {
	dir := cacheEnv(t, "1GiB")
	t.Setenv(tplcache.ModeEnv, "off")
	out, errOut, code := runApp(t, t.Context(), "", "cache")
	if want := fmt.Sprintf("template cache %s (off: OIDKIT_CACHE=off): 0 entries, 0 B of 1 GiB (OIDKIT_CACHE_MAX)\n", dir); out != want || errOut != "" || code != ExitOK {
		t.Fatalf("oidkit cache, off: %q, %q, %d; want %q", out, errOut, code, want)
	}
}

func TestCacheCommandBadUsage(t *testing.T) {
	cacheEnv(t, "1GiB")
	for _, tc := range []struct {
		env, value string
		args       []string
		want       string
	}{
		{tplcache.MaxEnv, "lots", []string{"cache"}, `cache: OIDKIT_CACHE_MAX="lots": expected a positive size such as 512MiB, 2GB or 1048576 (bytes)`},
		{tplcache.MaxEnv, "-1", []string{"cache", "clear"}, `cache: OIDKIT_CACHE_MAX="-1": expected a positive size`},
		{tplcache.ModeEnv, "sometimes", []string{"cache", "show"}, `cache: OIDKIT_CACHE="sometimes": expected "on" or "off"`},
		{tplcache.DirEnv, "rel/dir", []string{"cache"}, `cache: OIDKIT_CACHE_DIR="rel/dir": expected an absolute directory`},
		{"", "", []string{"cache", "purge"}, `unknown command "purge"`},
		{"", "", []string{"cache", "show", "all"}, `cache show: unexpected argument "all"; expected none`},
		{"", "", []string{"cache", "clear", "--force"}, `--force`},
	} {
		t.Run(strings.Join(tc.args, " ")+" "+tc.value, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv(tc.env, tc.value)
			}
			out, errOut, code := runApp(t, t.Context(), "", tc.args...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Fatalf("oidkit %v: exit %d, stderr %q, stdout %q; want exit 2 and %q", tc.args, code, errOut, out, tc.want)
			}
		})
	}
}
