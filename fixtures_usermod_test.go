package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// shopFixturesTest is the test a user commits beside the fixture files
// that `oidkit fixtures --plan shop -n 200 --seed 7 --out testdata/shop`
// made: with the public API alone, the same plan and seed in Go give the
// same files byte for byte (fixtures.WriteFiles with its zero options is
// the command's defaults) and the same documents one by one
// (fixtures.Reader against seed.Collection.Doc). -seed makes other
// documents, for the check that a difference is found.
const shopFixturesTest = `package usermod

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/seed"
)

var seedFlag = flag.Uint64("seed", 7, "the seed of the plan compared with testdata/shop")

// shop is the plan of: oidkit fixtures --plan shop -n 200 --seed 7 --out testdata/shop
func shop(t *testing.T) *seed.Dataset {
	plan, err := seed.BuiltinPlan("shop", 200)
	if err != nil {
		t.Fatal(err)
	}
	plan.Seed, plan.Seeded = *seedFlag, true
	ds, err := plan.Build()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestFixtureFilesAreThePlans(t *testing.T) {
	dir := t.TempDir()
	res, err := fixtures.WriteFiles(t.Context(), fixtures.WriteFilesOptions{Collections: shop(t).Written(), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		for _, path := range []string{f.Path, f.Sidecar} {
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			committed, err := os.ReadFile(filepath.Join("testdata", "shop", filepath.Base(path)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, committed) {
				t.Errorf("%s: the plan writes other bytes than testdata/shop holds", filepath.Base(path))
			}
		}
	}
}

func TestFixtureDocumentsAreThePlans(t *testing.T) {
	for _, col := range shop(t).Written() {
		f, err := os.Open(filepath.Join("testdata", "shop", col.Name()+".ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := fixtures.NewReader(f, f.Name())
		for i := range col.Len() {
			want, err := bson.Marshal(col.Doc(i))
			if err != nil {
				t.Fatal(err)
			}
			d, err := r.Next()
			if err != nil {
				t.Fatalf("%s: document %d: %v", col.Name(), i, err)
			}
			if !bytes.Equal(d.Raw, want) {
				t.Fatalf("%s: document %d differs:\n committed %s\n      plan %s", col.Name(), i, d.Raw, bson.Raw(want))
			}
		}
		if _, err := r.Next(); err != io.EOF {
			t.Errorf("%s: more than the plan's %d documents, or unreadable: %v", col.Name(), col.Len(), err)
		}
	}
}
`

// A plan means the same documents from every door, seen from outside the
// module: fixture files made by the installed command are what a user's Go
// test, in a module of its own that uses only oidkit's public API, makes
// from the same plan and seed (file bytes and documents); with another
// seed that test fails.
func TestUserTestMatchesCommittedFixtures(t *testing.T) {
	t.Parallel() // a module, files and go commands of its own
	if testing.Short() {
		t.Skip("builds the binary and a user module")
	}
	dir := userModule(t, map[string]string{"shop_test.go": shopFixturesTest})
	out, err := exec.Command(oidkitBinary(t), "fixtures", "--plan", "shop", "-n", "200", "--seed", "7", "--quiet", "--out", filepath.Join(dir, "testdata", "shop")).CombinedOutput()
	if err != nil {
		t.Fatalf("oidkit fixtures: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "testdata", "shop"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"orders.metadata.json", "orders.ndjson", "products.metadata.json", "products.ndjson", "users.metadata.json", "users.ndjson"}
	if !slices.Equal(names, want) {
		t.Fatalf("oidkit fixtures wrote %v, expected %v\n%s", names, want, out)
	}

	out, err = goIn(dir, "test", "-count=1", "-v", ".").CombinedOutput()
	for _, name := range []string{"TestFixtureFilesAreThePlans", "TestFixtureDocumentsAreThePlans"} {
		if !strings.Contains(string(out), "--- PASS: "+name) {
			t.Errorf("%s did not pass", name)
		}
	}
	if err != nil || t.Failed() {
		t.Fatalf("go test in the user module: %v\n%s", err, out)
	}

	out, err = goIn(dir, "test", "-count=1", ".", "-seed=8").CombinedOutput()
	for _, want := range []string{
		"users.ndjson: the plan writes other bytes than testdata/shop holds",
		"users: document 0 differs",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("with -seed=8 the user's test does not say %q", want)
		}
	}
	if err == nil || t.Failed() {
		t.Fatalf("go test -seed=8 in the user module: %v, expected it to fail\n%s", err, out)
	}
}
