package audit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/oidkit/oidkit/fixtures"
)

// ScanFiles audits every document of the files and names the file it could
// not open, a directory, or a bad document's line.
func TestScanFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.ndjson")
	bad := filepath.Join(dir, "b.ndjson")
	if err := os.WriteFile(good, []byte("{\"_id\":{\"$oid\":\"507f1f77bcf86cd799439011\"}}\n{\"_id\":2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("{\"_id\":1}\n{oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := New(Options{})
	var last int64
	if err := a.ScanFiles(t.Context(), []string{good}, Fields{ID: "_id"}, func(n int64) { last = n }); err != nil || last != 2 || a.Report().Total != 2 {
		t.Fatalf("good file: %v, %d reported, %d audited", err, last, a.Report().Total)
	}
	for _, c := range []struct {
		file string
		op   fixtures.SetOp
	}{{filepath.Join(dir, "missing.ndjson"), fixtures.OpOpen}, {dir, fixtures.OpDir}, {bad, fixtures.OpRead}} {
		err := New(Options{}).ScanFiles(t.Context(), []string{c.file}, Fields{ID: "_id"}, nil)
		var se *fixtures.SetError
		if !errors.As(err, &se) || se.Path != c.file || se.Op != c.op {
			t.Errorf("%s: %v, want a *fixtures.SetError %s", c.file, err, c.op)
		}
		var le *fixtures.LineError
		if c.op == fixtures.OpRead && (!errors.As(err, &le) || le.Line != 2) {
			t.Errorf("%s: %v, want a *fixtures.LineError at line 2", c.file, err)
		}
	}
	for p, want := range map[string]bool{"_id": true, "meta.created": true, "": false, "a..b": false, "$x": false, "a.$b": false} {
		if ValidPath(p) != want {
			t.Errorf("ValidPath(%q) = %v, want %v", p, !want, want)
		}
	}
}
