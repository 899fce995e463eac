package verify

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A fixture set groups its files by collection as load does, and names the
// file it cannot use.
func TestExpectFixtureSet(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("users.ndjson", `{"_id":1}`+"\n")
	b := write("users.part-0001-of-0002.ndjson", `{"_id":2}`+"\n")
	c := write("products.json", `[{"_id":"p1"}]`)
	set, err := ExpectFixtureSet(t.Context(), "shop", []string{a, c, b}, FixtureSetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 2 || set[0].Collection != "users" || set[1].Collection != "products" {
		t.Fatalf("set %+v, want users then products", set)
	}
	one, err := ExpectFixtureSet(t.Context(), "shop", []string{a, c}, FixtureSetOptions{Collection: "all"})
	if err != nil || len(one) != 1 || one[0].Collection != "all" {
		t.Fatalf("with a collection: %+v, %v", one, err)
	}
	fifo := filepath.Join(dir, "pipe.ndjson")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	bad := write("$bad.ndjson", `{"_id":1}`+"\n")
	for _, f := range []string{dir, fifo, filepath.Join(dir, "missing.ndjson"), bad} {
		_, err := ExpectFixtureSet(t.Context(), "shop", []string{a, f}, FixtureSetOptions{})
		var fe *FileError
		if !errors.As(err, &fe) || fe.File != f {
			t.Errorf("%s: %v, want a *FileError naming it", f, err)
		}
		if f == bad && !errors.Is(err, ErrNoCollectionName) {
			t.Errorf("%s: %v, want ErrNoCollectionName", f, err)
		}
	}
}
