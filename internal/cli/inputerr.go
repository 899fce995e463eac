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

// fileKind names the type of a file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}
