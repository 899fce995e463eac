package cli

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// For N in 1, 3, 8, the parts of the shop plan written one by one hold
// byte for byte what the single run holds; verify db checks one part while
// others are missing, says which parts are missing, and passes once every
// part is there.
func TestSeedPartsEqualSingleRun(t *testing.T) {
	uri, client := mongotest.Start(t)
	plan := []string{"--uri", uri, "--plan", "shop", "-n", "23", "--seed", "5"}
	mustSeed(t, append(plan, "--db", "single")...)
	for _, n := range []int{1, 3, 8} {
		db := fmt.Sprintf("parts%d", n)
		args := append(plan, "--db", db)
		for i := range n {
			out := mustSeed(t, append(args, "--part", fmt.Sprintf("%d/%d", i, n))...)
			if n > 1 && !strings.Contains(out, fmt.Sprintf("part %d/%d: inserted", i, n)) {
				t.Fatalf("part %d/%d summary:\n%s", i, n, out)
			}
			if i == 0 {
				out, errOut, code := runApp(t, t.Context(), "", "verify", "db", "--quiet", "--uri", uri, "--db", db, "--part", fmt.Sprintf("0/%d", n))
				if code != ExitOK || (n > 1 && !strings.Contains(out, "of the other parts read were not checked")) {
					t.Fatalf("verify db of part 0/%d: exit %d\n%s%s", n, code, out, errOut)
				}
				if n > 1 {
					_, errOut, code = runApp(t, t.Context(), "", "verify", "db", "--quiet", "--uri", uri, "--db", db)
					if code != ExitFailure || !strings.Contains(errOut, fmt.Sprintf("users part 1/%d: not started", n)) {
						t.Fatalf("verify db with parts missing: exit %d\n%s", code, errOut)
					}
				}
			}
		}
		for _, coll := range []string{"users", "products", "orders"} {
			a, b := collectionBytes(t, client.Database("single").Collection(coll)), collectionBytes(t, client.Database(db).Collection(coll))
			if len(a) == 0 || len(a) != len(b) {
				t.Fatalf("%d parts: %s holds %d documents, the single run %d", n, coll, len(b), len(a))
			}
			sortRaw(a)
			sortRaw(b)
			for k := range a {
				if !bytes.Equal(a[k], b[k]) {
					t.Fatalf("%d parts: %s differs from the single run", n, coll)
				}
			}
		}
		out, errOut, code := runApp(t, t.Context(), "", "verify", "db", "--quiet", "--uri", uri, "--db", db)
		if code != ExitOK {
			t.Fatalf("verify db of %d parts: exit %d\n%s%s", n, code, out, errOut)
		}
		out, errOut, code = runApp(t, t.Context(), "", "verify", "db", "--quiet", "--uri", uri, "--db", db, "--collection", "orders")
		if code != ExitOK || !strings.Contains(out, "verify db "+db+".orders\n") {
			t.Fatalf("verify db --collection orders of %d parts: exit %d\n%s%s", n, code, out, errOut)
		}
		// The single run's flags check the parts' database whole too.
		out, errOut, code = runApp(t, t.Context(), "", append([]string{"verify", "db", "--quiet", "--db", db}, plan...)...)
		if code != ExitOK {
			t.Fatalf("verify db of %d parts with the single run's flags: exit %d\n%s%s", n, code, out, errOut)
		}
	}
}

// A part is resumed on its own; --drop and a drawn seed are refused with
// a part.
func TestSeedPartResumeAndUsage(t *testing.T) {
	uri, _ := mongotest.Start(t)
	args := []string{"--uri", uri, "-n", "40", "--seed", "2", "--db", "r"}
	mustSeed(t, append(args, "--part", "1/4")...)
	out := mustSeed(t, "--uri", uri, "--db", "r", "--resume", "--part", "1/4")
	if !strings.Contains(out, "r.users part 1/4: inserted 0, skipped 10") {
		t.Fatalf("resume of a done part:\n%s", out)
	}
	out = mustSeed(t, "--uri", uri, "--db", "r", "--resume", "--seed", "2", "-n", "40", "--part", "2/4")
	if !strings.Contains(out, "r.users part 2/4: inserted 10, skipped 0") {
		t.Fatalf("resume of a part never started:\n%s", out)
	}
	_, errOut, code := runApp(t, t.Context(), "", "seed", "--quiet", "--uri", uri, "--db", "r", "--resume")
	if code != ExitUsage || !strings.Contains(errOut, "--resume: r.users was written in 4 parts: expected --part I/N with it") {
		t.Fatalf("resume of parts without --part: exit %d\n%s", code, errOut)
	}
	_, errOut, code = runApp(t, t.Context(), "", append([]string{"seed", "--quiet", "--part", "1/4"}, args...)...)
	if code != ExitFailure || !strings.Contains(errOut, "r.users part 1/4: the 10 documents of this run are already there") {
		t.Fatalf("a part written twice: exit %d\n%s", code, errOut)
	}
	for _, bad := range [][]string{
		{"--part", "1/4", "--drop"},
		{"--part", "4/4"},
	} {
		_, errOut, code := runApp(t, t.Context(), "", append(append([]string{"seed", "--quiet"}, args...), bad...)...)
		if code != ExitUsage {
			t.Fatalf("%v: exit %d\n%s", bad, code, errOut)
		}
	}
	_, errOut, code = runApp(t, t.Context(), "", "seed", "--quiet", "--uri", uri, "-n", "40", "--part", "0/4")
	if code != ExitUsage || !strings.Contains(errOut, "--part 0/4 without --seed") {
		t.Fatalf("a part without a seed: exit %d\n%s", code, errOut)
	}
}

func sortRaw(docs [][]byte) {
	slices.SortFunc(docs, bytes.Compare)
}
