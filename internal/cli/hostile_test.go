package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// hostileNames are collection names that are not one plain file name: every
// form of .., absolute paths, backslashes and NUL.
var hostileNames = []string{
	"..", ".", "../victim", "../../victim", "q/../../../victim", "x/../../evil", "x/..", "x/.", "./x", "a/b", "x/",
	`..\victim`, `x\..\..\evil`, `a\b`, `\`, `C:\victim`, `\\host\share\victim`,
	"/", "/victim", "/tmp/victim", "//victim",
	"a\x00b", "\x00", "../\x00",
	".hidden", "...", "..victim",
}

// allFiles lists every file and directory under root, relative to it.
func allFiles(t *testing.T, root string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root {
			rel, _ := filepath.Rel(root, p)
			names = append(names, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// A collection name that is not one plain file name is refused (exit 2,
// naming the collection and why) by every way fixtures names a file after a
// collection: a plan, --collection into a directory, --part files, --array;
// nothing is written inside --out or outside it, and a file beside it is
// untouched.
func TestFixturesHostileCollectionNames(t *testing.T) {
	for _, name := range hostileNames {
		root := t.TempDir()
		outer := filepath.Join(root, "a", "b")
		out := filepath.Join(outer, "out")
		existing := filepath.Join(outer, "dir")
		for _, d := range []string{existing} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		victims := []string{filepath.Join(root, "victim.ndjson"), filepath.Join(root, "a", "evil.ndjson"), filepath.Join(outer, "victim.ndjson")}
		for _, v := range victims {
			if err := os.WriteFile(v, []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		quoted, _ := json.Marshal(name)
		plan := filepath.Join(root, "plan.json")
		body := `{"db": "h", "collections": [{"name": "users", "kind": "user", "count": 2},
			{"name": ` + string(quoted) + `, "kind": "user", "count": 2, "indexes": [{"key": {"email": 1}}]}]}`
		if err := os.WriteFile(plan, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		before := allFiles(t, root)
		for _, args := range [][]string{
			{"--plan", plan, "--out", out},
			{"--plan", plan, "--out", out, "--array"},
			{"--plan", plan, "--out", out, "--seed", "1", "--part", "1/2"},
			{"--kind", "user", "-n", "2", "--collection", name, "--out", existing},
			{"--kind", "user", "-n", "2", "--collection", name, "--out", existing, "--seed", "1", "--part", "1/2"},
		} {
			stdout, errOut, code := runApp(t, t.Context(), "", append([]string{"fixtures", "--quiet"}, args...)...)
			if code != ExitUsage || !strings.Contains(errOut, strconv.Quote(name)) || stdout != "" {
				t.Errorf("%q %v: exit %d, stdout %q, stderr %q; want exit 2 naming the collection", name, args[:2], code, stdout, errOut)
			}
			if after := allFiles(t, root); !slices.Equal(after, before) {
				t.Errorf("%q %v: files %v, want %v", name, args[:2], after, before)
			}
			for _, v := range victims {
				if data, err := os.ReadFile(v); err != nil || string(data) != "keep\n" {
					t.Errorf("%q %v: %s now holds %q (%v)", name, args[:2], v, data, err)
				}
			}
		}
	}
}

// The names a plain file can have are written inside --out and load back
// into their collection: nearby dots, spaces, colons and letters beyond
// ASCII are fine.
func TestFixturesPlainCollectionNames(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a..b", "a b", "ünï", "a:b", "x.y"} {
		out := mustRun(t, "fixtures", "--quiet", "--kind", "user", "-n", "2", "--collection", name, "--out", dir)
		want := filepath.Join(dir, name+".ndjson")
		if !strings.HasPrefix(out, want+": 2 documents") {
			t.Errorf("%q: stdout %q, want %s", name, out, want)
		}
	}
	// A name whose file loads into another collection is refused too.
	for name, want := range map[string]string{
		"users.json":          `would load back into "users"`,
		"u.part-0001-of-0002": `would load back into "u"`,
	} {
		_, errOut, code := runApp(t, t.Context(), "", "fixtures", "--quiet", "--kind", "user", "-n", "2", "--collection", name, "--out", dir)
		if code != ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", name, code, errOut, want)
		}
	}
	_, errOut, code := runApp(t, t.Context(), "", "fixtures", "--quiet", "--kind", "user", "-n", "2", "--collection", "x.metadata", "--array", "--out", dir)
	if code != ExitUsage || !strings.Contains(errOut, "index sidecar") {
		t.Errorf("x.metadata --array: exit %d, stderr %q; want exit 2, read as an index sidecar", code, errOut)
	}
}

// A number BSON would not hold as written is bad input for load (and its dry
// run): exit 2, file:line, the value and what to write, nothing stored;
// --inexact-numbers stores the nearest double. Exact numbers load as before.
func TestLoadInexactNumbers(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "nums.ndjson")
	body := `{"_id":1,"a":0.1,"b":1e300}` + "\n" + `{"_id":6,"a":1e-400}` + "\n" + `{"_id":7,"a":123456789012345678901234567890}` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--dry-run"}} {
		args := append(append([]string{"load", "--uri", uri, "--db", "n"}, extra...), path)
		_, errOut, code := runApp(t, t.Context(), "", args...)
		for _, want := range []string{
			path + `:2: number 1e-400 is below the smallest double (4.9e-324) and would be stored as 0; expected {"$numberDecimal": "1e-400"}`,
			path + `:3: number 123456789012345678901234567890 is beyond int64`,
			"--inexact-numbers",
		} {
			if code != ExitUsage || !strings.Contains(errOut, want) {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", extra, code, errOut, want)
			}
		}
	}
	coll := client.Database("n").Collection("nums")
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 0 {
		t.Fatalf("%d documents stored (%v), want none", n, err)
	}
	if _, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, "--db", "n", "--inexact-numbers", path); code != ExitOK {
		t.Fatalf("--inexact-numbers: exit %d, %s", code, errOut)
	}
	for id, want := range map[int32]float64{6: 0, 7: 1.2345678901234568e+29, 1: 0.1} {
		var doc struct{ A float64 }
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&doc); err != nil || doc.A != want {
			t.Errorf("_id %d: a = %v (%v), want %v", id, doc.A, err, want)
		}
	}
	// verify db reads the file as load did: refused without the flag,
	// equal to what is stored with it.
	verifyArgs := []string{"verify", "db", "--uri", uri, "--db", "n", "--fixture", path}
	if _, errOut, code := runApp(t, t.Context(), "", verifyArgs...); code != ExitUsage || !strings.Contains(errOut, "number 1e-400 is below the smallest double") {
		t.Errorf("verify db without --inexact-numbers: exit %d, stderr %q; want exit 2 naming the number", code, errOut)
	}
	if out, errOut, code := runApp(t, t.Context(), "", append(verifyArgs, "--inexact-numbers")...); code != ExitOK || !strings.Contains(out, "result: PASS") {
		t.Errorf("verify db --inexact-numbers: exit %d, stdout %q, stderr %q; want PASS", code, out, errOut)
	}
	if _, errOut, code := runApp(t, t.Context(), "", "verify", "db", "--uri", uri, "--db", "n", "--seed", "1", "--inexact-numbers"); code != ExitUsage || !strings.Contains(errOut, "--fixture") {
		t.Errorf("verify db --inexact-numbers without --fixture: exit %d, stderr %q; want exit 2 naming --fixture", code, errOut)
	}
}
