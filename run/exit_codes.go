package run

import (
	"context"
	"errors"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

// Every error type of this package has an ExitCode: the exit status a
// command line gives it, 2 when what was asked for cannot be done as given
// (a plan that cannot be rebuilt, documents the target refuses, keys the
// plan repeats, flags that describe another run), 1 for a failure at run
// time (the server, a run already written or stopped, one not finished).
const (
	exitFailure = 1
	exitInput   = 2
)

// ExitCode is 1 for a failure reading the run manifests, 2 otherwise.
func (e *StepError) ExitCode() int {
	if e.Step == StepRead {
		return exitFailure
	}
	return exitInput
}

// ExitCode is 2: the plan describes another run (or its stored references
// changed since).
func (e *OtherRunError) ExitCode() int { return exitInput }

// ExitCode is 2: each part is resumed by its own writer.
func (e *PartMismatchError) ExitCode() int { return exitInput }

// ExitCode is 1: the run is not finished.
func (e *PartsError) ExitCode() int { return exitFailure }

// ExitCode is 1: the documents are stored already.
func (e *AlreadyStoredError) ExitCode() int { return exitFailure }

// ExitCode is 2 for invalid indexes, 1 when the collection or the server
// will not take them; of IndexUnique, 2 for keys the plan repeats, 1 for
// keys held by stored documents.
func (e *IndexError) ExitCode() int {
	var ue *mongowrite.UniqueInputError
	switch {
	case e.Stage == IndexUnique && errors.As(e.Err, &ue):
		return exitInput
	case e.Stage == IndexUnique:
		return exitFailure
	case errors.Is(e.Err, indexes.ErrInvalid) && !indexes.ServerRefused(e.Err):
		return exitInput
	}
	return exitFailure
}

// ExitCode is 2 for a shape or a document the target's rules refuse, 1
// for any other error of the checks.
func (e *RefusedError) ExitCode() int {
	if e.Shape || refused(e.Doc()) {
		return exitInput
	}
	return exitFailure
}

// Doc is the generated document the checks stopped at, nil for a shape or
// another error.
func (e *RefusedError) Doc() *seed.DocError { return docError(e.Err) }

// ExitCode is 2 for a document the target's rules refuse before its batch
// was sent, 1 for any other stop.
func (e *InsertError) ExitCode() int {
	if !errors.Is(e.Err, context.Canceled) && refused(e.Doc()) {
		return exitInput
	}
	return exitFailure
}

// Doc is the generated document the run stopped at (the target's rules
// refused it before its batch was sent, or it could not be made), nil for
// any other stop.
func (e *InsertError) Doc() *seed.DocError { return docError(e.Err) }

// docError is the *seed.DocError of err, nil when it has none.
func docError(err error) *seed.DocError {
	var de *seed.DocError
	if errors.As(err, &de) {
		return de
	}
	return nil
}

// refused tells whether de is a document the target's rules refuse.
func refused(de *seed.DocError) bool { return de != nil && de.Violation() != nil }
