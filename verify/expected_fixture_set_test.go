package verify

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/rules"
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
		var se *fixtures.SetError
		if !errors.As(err, &se) || se.Path != f {
			t.Errorf("%s: %v, want a *fixtures.SetError naming it", f, err)
		}
		var ne *rules.NameError
		if f == bad && (se == nil || se.Op != fixtures.OpName || !errors.As(err, &ne)) {
			t.Errorf("%s: %v, want a *fixtures.SetError of OpName with a *rules.NameError", f, err)
		}
	}
}
