package oidkittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oidkit/oidkit/seed"
)

// userTest is a user's test file: a plan of users with seed SEED, and
// EXTRA, which the user edits between runs.
const userTest = `package cacheuser

import (
	"testing"

	"github.com/oidkit/oidkit/oidkittest"
	"github.com/oidkit/oidkit/seed"
)

func TestMain(m *testing.M) { oidkittest.Main(m) }

func TestUsers(t *testing.T) {
	plan := &seed.Plan{Seed: SEED, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 200}}}
	db := oidkittest.New(t, oidkittest.WithPlan(plan))
	oidkittest.Verify(t, db)
}
EXTRA
`

// The case: oidkit comes through a replace directive, the user
// edits the test file, and the next run uses the template the first built
// (the same entry file, only marked used), because the key does not
// depend on the test binary. The key the user's binaries use is the one
// this binary computes; a plan of another seed makes a second entry.
func TestTemplateCacheAcrossTestBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a user's module three times")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir, cacheRoot := t.TempDir(), t.TempDir()
	templates := filepath.Join(cacheRoot, "templates")
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/cacheuser\n\ngo 1.26\n\nrequire github.com/oidkit/oidkit v0.0.0\n\nreplace github.com/oidkit/oidkit => "+root+"\n")
	goCmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "OIDKIT_CACHE_DIR="+cacheRoot, "OIDKIT_CACHE=on", "OIDKIT_CACHE_MAX=64MiB", URIEnv+"=", ImageEnv+"=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write("user_test.go", strings.NewReplacer("SEED", "5", "EXTRA", "").Replace(userTest))
	goCmd("mod", "tidy")
	goCmd("test", "-count=1", ".")

	plan := &seed.Plan{Seed: 5, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 200}}}
	entry := filepath.Join(templates, contentKey(t, WithPlan(plan))+".tpl")
	first, err := os.Stat(entry)
	if err != nil {
		t.Fatalf("the user's first run left %v; want the entry of this binary's key: %v", entries(t, templates), err)
	}
	long := time.Now().Add(-24 * time.Hour)
	if err := os.Chtimes(entry, long, long); err != nil {
		t.Fatal(err)
	}

	write("user_test.go", strings.NewReplacer("SEED", "5", "EXTRA", "// An edit.\nfunc TestMore(t *testing.T) {}").Replace(userTest))
	goCmd("test", "-count=1", ".")
	second, err := os.Stat(entry)
	switch {
	case err != nil:
		t.Fatalf("after the edit: %v", err)
	case !os.SameFile(first, second):
		t.Fatal("after the edit the template was built and written again; want the first run's entry read")
	case !second.ModTime().After(long.Add(time.Hour)):
		t.Fatalf("after the edit the entry was not used (last used %s)", second.ModTime())
	}
	if e := entries(t, templates); len(e) != 1 {
		t.Fatalf("after the edit: %v; want the one entry", e)
	}

	write("user_test.go", strings.NewReplacer("SEED", "6", "EXTRA", "").Replace(userTest))
	goCmd("test", "-count=1", ".")
	if e := entries(t, templates); len(e) != 2 {
		t.Fatalf("after a change of seed: %v; want a second entry", e)
	}
}
