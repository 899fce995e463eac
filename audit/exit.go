package audit

import (
	"context"
	"errors"
)

// The exit status a command line gives an error of this package (its
// ExitCode method): 2 for input that is not what an audit reads, 1 for a
// failure at run time, an interrupted read among them.
const (
	exitFailure = 1
	exitInput   = 2
)

// ExitCode is 1 for a read interrupted (its context done), 2 for a file
// that cannot be opened or is a directory, its cause's for a document that
// cannot be read (2 for a bad one, a *fixtures.LineError), 1 otherwise.
func (e *FileError) ExitCode() int {
	var c interface{ ExitCode() int }
	switch {
	case errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded):
		return exitFailure
	case e.Op == OpOpen || e.Op == OpDir:
		return exitInput
	case errors.As(e.Err, &c):
		return c.ExitCode()
	}
	return exitFailure
}
