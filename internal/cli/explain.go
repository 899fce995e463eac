package cli

import "errors"

// exitCoder is an error that says its exit code: the errors of the
// libraries (run, seed, fixtures, mongowrite, target, infer, rules; audit
// and verify return those of fixtures and mongowrite) and the CLI's own
// codedError. 2 is bad usage or bad input, 1 a failure at run time.
type exitCoder interface {
	error
	ExitCode() int
}

// ExitCode is the code the command gave the error.
func (e *codedError) ExitCode() int { return e.code }

// libError is the first error of err's chain that says its exit code: the
// outermost, which knows most of what happened. nil when none does.
func libError(err error) exitCoder {
	var ec exitCoder
	if errors.As(err, &ec) {
		return ec
	}
	return nil
}

// wording is how a command words the error of a library call (explain):
// lib is the library's error that err is or wraps, nil when there is none.
// It returns the message, nil to keep err's own; a message made with
// usageError or failure carries the command's own exit code.
type wording func(err error, lib exitCoder) error

// explain is the one rule that turns what a library call returned into the
// command's error: the exit code is the library's (ExitCode; 1 for an
// error that has none), the message err's own unless word words it for the
// command line (the flags to name, the problems to list on stderr, what to
// do next). An error the command already gave a code is returned as it is.
func explain(err error, word wording) error {
	lib := libError(err)
	if _, done := lib.(*codedError); done || err == nil {
		return err
	}
	msg := err
	if word != nil {
		if w := word(err, lib); w != nil {
			msg = w
		}
	}
	if _, coded := msg.(*codedError); coded {
		return msg
	}
	if lib == nil {
		return failure(msg)
	}
	return &codedError{code: lib.ExitCode(), err: msg}
}
