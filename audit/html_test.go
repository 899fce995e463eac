package audit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/audit"
)

// TestAuditHTMLSelfContained: the page has its four charts inline and
// fetches nothing.
func TestAuditHTMLSelfContained(t *testing.T) {
	a := audit.New(audit.Options{Now: now})
	for _, x := range anomalies() {
		a.AddID(x.id, x.at)
	}
	var b strings.Builder
	if err := a.Report().WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<svg "); n != 4 {
		t.Errorf("%d charts, want 4", n)
	}
	for _, bad := range []string{"<script", "src=", "href=", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if strings.Count(page, "http") != strings.Count(page, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Error("page names a URL other than the SVG namespace")
	}
	if dir := os.Getenv("OIDKIT_AUDIT_HTML"); dir != "" { // to look at it in a browser
		if err := os.WriteFile(filepath.Join(dir, "audit.html"), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
