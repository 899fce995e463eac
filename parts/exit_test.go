package parts_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
)

// A part that cannot be read and a document the target's rules refuse are
// input (2); any other error about a document is a failure at run time (1).
func TestExitCodes(t *testing.T) {
	if _, err := parts.Parse("3/2"); err == nil {
		t.Fatal(`Parse("3/2"): no error`)
	} else if c := err.(interface{ ExitCode() int }).ExitCode(); c != 2 {
		t.Fatalf("a part error exits %d, expected 2", c)
	}
	refused := &parts.DocError{Collection: "users", Index: 4, Err: fmt.Errorf("field: %w", &rules.Violation{})}
	if refused.Violation() == nil || refused.ExitCode() != 2 {
		t.Fatalf("a document the rules refuse: violation %v, exit %d, expected one and 2", refused.Violation(), refused.ExitCode())
	}
	failed := &parts.DocError{Collection: "users", Index: 4, Err: errors.New("stopped")}
	if failed.Violation() != nil || failed.ExitCode() != 1 {
		t.Fatalf("another document error: violation %v, exit %d, expected none and 1", failed.Violation(), failed.ExitCode())
	}
}
