package cli

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// For N in 1, 3, 8, the part files of the shop plan, in part order, are
// byte for byte the single run's files (compared by digest); load takes
// them in any order, and verify db finds the single run's documents.
func TestFixturesPartsEqualSingleRun(t *testing.T) {
	uri, _ := mongotest.Start(t)
	plan := []string{"fixtures", "--quiet", "--plan", "shop", "-n", "23", "--seed", "5"}
	single := t.TempDir()
	if out, errOut, code := runApp(t, t.Context(), "", append(plan, "--out", single)...); code != ExitOK {
		t.Fatalf("single run: exit %d\n%s%s", code, out, errOut)
	}
	for _, n := range []int{1, 3, 8} {
		dir := t.TempDir()
		for i := range n {
			if out, errOut, code := runApp(t, t.Context(), "", append(plan, "--out", dir, "--part", fmt.Sprintf("%d/%d", i, n))...); code != ExitOK {
				t.Fatalf("part %d/%d: exit %d\n%s%s", i, n, code, out, errOut)
			}
		}
		var files []string
		for _, coll := range []string{"users", "products", "orders"} {
			want, err := os.ReadFile(filepath.Join(single, coll+".ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			parts, _ := filepath.Glob(filepath.Join(dir, coll+".*"))
			// The parts share the collection's index sidecar.
			parts = slices.DeleteFunc(parts, func(p string) bool { return strings.HasSuffix(p, ".metadata.json") })
			if n > 1 && len(parts) != n {
				t.Fatalf("%d parts of %s: files %v", n, coll, parts)
			}
			slices.Sort(parts) // part order: the names' numbers are zero-padded
			var got []byte
			for _, p := range parts {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, b...)
			}
			if sha256.Sum256(got) != sha256.Sum256(want) {
				t.Fatalf("%d parts of %s: the files in order differ from the single run's (%d and %d bytes)", n, coll, len(got), len(want))
			}
			files = append(files, parts...)
		}
		slices.Reverse(files) // any order
		db := fmt.Sprintf("fx%d", n)
		out, errOut, code := runApp(t, t.Context(), "", append([]string{"load", "--quiet", "--uri", uri, "--db", db}, files...)...)
		if code != ExitOK {
			t.Fatalf("load of %d parts: exit %d\n%s%s", n, code, out, errOut)
		}
		for _, coll := range []string{"users", "products", "orders"} {
			if !strings.Contains(out, db+"."+coll) {
				t.Fatalf("load of %d parts does not name collection %s:\n%s", n, coll, out)
			}
		}
		out, errOut, code = runApp(t, t.Context(), "", "verify", "db", "--quiet", "--uri", uri, "--db", db, "--plan", "shop", "-n", "23", "--seed", "5")
		if code != ExitOK {
			t.Fatalf("verify db of %d loaded parts: exit %d\n%s%s", n, code, out, errOut)
		}
	}
	// One part's file under another part's name repeats its _ids: load says so.
	dir := t.TempDir()
	if _, errOut, code := runApp(t, t.Context(), "", "fixtures", "--quiet", "-n", "10", "--seed", "1", "--out", dir, "--part", "0/2"); code != ExitOK {
		t.Fatal(errOut)
	}
	a := filepath.Join(dir, "users.part-0000-of-0002.ndjson")
	b, _ := os.ReadFile(a)
	copyPath := filepath.Join(dir, "users.part-0001-of-0002.ndjson")
	if err := os.WriteFile(copyPath, bytes.Clone(b), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runApp(t, t.Context(), "", "load", "--quiet", "--uri", uri, "--db", "dup", a, copyPath)
	if code == ExitOK || !strings.Contains(out+errOut, "duplicate") {
		t.Fatalf("a part loaded twice: exit %d\n%s%s", code, out, errOut)
	}
}
