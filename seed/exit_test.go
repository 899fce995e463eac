package seed

import (
	"context"
	"errors"
	"testing"

	"github.com/oidkit/oidkit/rules"
)

// A generated document the target's rules refuse is bad input (exit 2);
// one that could not be made, or whose generation stopped, a failure.
func TestDocErrorViolation(t *testing.T) {
	v := &rules.Violation{Profile: "MongoDB", Path: "a", Reason: rules.TooLarge, Value: "x"}
	for _, tc := range []struct {
		err  error
		v    *rules.Violation
		code int
	}{
		{v, v, 2},
		{context.Canceled, nil, 1},
		{errors.New("cannot marshal"), nil, 1},
	} {
		de := &DocError{Collection: "users", Index: 7, Err: tc.err}
		if got := de.Violation(); got != tc.v {
			t.Errorf("DocError{Err: %v}.Violation() = %v, want %v", tc.err, got, tc.v)
		}
		if got := de.ExitCode(); got != tc.code {
			t.Errorf("DocError{Err: %v}.ExitCode() = %d, want %d", tc.err, got, tc.code)
		}
	}
	for _, err := range []interface{ ExitCode() int }{&OptionError{}, &PlanError{}, &TemplateError{}, &ShapeError{}, &StoredRefError{}} {
		if got := err.ExitCode(); got != 2 {
			t.Errorf("%T.ExitCode() = %d, want 2", err, got)
		}
	}
}
