package cli

import (
	"context"
	"errors"
	"io/fs"
)

// inputFailure is the error of an input that could not be opened or read:
// on SIGINT or SIGTERM (a cancelled context) what was being read and
// "interrupted" (exit 1), like every interrupted command; otherwise bad
// input (exit 2) naming it. what names the file: the error's path is left
// out.
func inputFailure(what string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, context.Canceled):
		return failuref("%s: interrupted", what)
	case errors.Is(err, context.DeadlineExceeded):
		return failuref("%s: timed out", what)
	}
	return usageErrorf("%s: %v", what, err)
}
