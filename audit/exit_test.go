package audit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/oidkit/oidkit/audit"
	"github.com/oidkit/oidkit/fixtures"
)

// A file that cannot be audited: bad input (2) when it cannot be opened,
// is a directory or holds a bad document; a failure (1) when the read was
// interrupted or failed.
func TestFileErrorExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  *audit.FileError
		want int
	}{
		{&audit.FileError{File: "a", Op: audit.OpOpen, Err: errors.New("no such file or directory")}, 2},
		{&audit.FileError{File: "a", Op: audit.OpOpen, Err: fmt.Errorf("open a: %w", context.Canceled)}, 1},
		{&audit.FileError{File: "a", Op: audit.OpDir, Err: errors.New("is a directory")}, 2},
		{&audit.FileError{File: "a", Op: audit.OpRead, Err: &fixtures.LineError{File: "a", Line: 2, Err: fixtures.ErrInvalidJSON}}, 2},
		{&audit.FileError{File: "a", Op: audit.OpRead, Err: context.DeadlineExceeded}, 1},
		{&audit.FileError{File: "a", Op: audit.OpRead, Err: errors.New("input/output error")}, 1},
	} {
		if got := tc.err.ExitCode(); got != tc.want {
			t.Errorf("%v (op %s): ExitCode() = %d, want %d", tc.err, tc.err.Op, got, tc.want)
		}
	}
}
