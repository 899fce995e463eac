package audit_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/audit"
	"github.com/oidkit/oidkit/fixtures"
)

// FuzzAuditHex: any input is either audited whole, one ObjectID per
// non-blank line, or rejected with a *fixtures.LineError naming a line that exists;
// nothing panics.
func FuzzAuditHex(f *testing.F) {
	for _, s := range []string{"", "\n\n", "507f1f77bcf86cd799439011\n", " 507f1f77bcf86cd799439011 \r\n000000000000000000000000", "507f1f77bcf86cd79943901\n", "xyz", strings.Repeat("a", 5000)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		a := audit.New(audit.Options{})
		err := a.ReadHex(bytes.NewReader(in), nil)
		lines := bytes.Split(in, []byte("\n"))
		var le *fixtures.LineError
		switch {
		case err == nil:
			var want int64
			for _, l := range lines {
				if len(bytes.TrimSpace(l)) > 0 {
					want++
				}
			}
			if got := a.Report().Total; got != want {
				t.Fatalf("audited %d IDs of %d non-blank lines", got, want)
			}
		case errors.As(err, &le):
			if le.Line < 1 || le.Line > len(lines) {
				t.Fatalf("line %d of %d: %v", le.Line, len(lines), err)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}
