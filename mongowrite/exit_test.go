package mongowrite

import (
	"errors"
	"fmt"
	"testing"

	"github.com/oidkit/oidkit/rules"
)

// A stopped write has its cause's exit code when the cause says it (a
// document the rules refuse is bad input), else 1.
func TestWriteErrorExitCode(t *testing.T) {
	for _, tc := range []struct {
		cause error
		want  int
	}{
		{&rules.Violation{Profile: "MongoDB", Reason: rules.TooLarge}, 2},
		{fmt.Errorf("document 3: %w", &rules.Violation{Profile: "MongoDB", Reason: rules.TooLarge}), 2},
		{errors.New("connection reset"), 1},
		{nil, 1},
	} {
		we := &WriteError{Collection: "c", Err: tc.cause}
		if got := we.ExitCode(); got != tc.want {
			t.Errorf("WriteError{Err: %v}.ExitCode() = %d, want %d", tc.cause, got, tc.want)
		}
	}
}
