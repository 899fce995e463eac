package mongowrite

import (
	"context"
	"errors"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/parts"
)

// ExitCode is the exit status a command line gives the stopped write: its
// cause's, when the cause says it (a document the target's rules refuse
// is bad input, 2), else 1, a failure at run time.
func (e *WriteError) ExitCode() int {
	var c interface{ ExitCode() int }
	if errors.As(e.Err, &c) {
		return c.ExitCode()
	}
	return 1
}

// ExitCode is 1: the server failed the operation.
func (e *CollectionError) ExitCode() int { return 1 }

// ExitCode is 2: the input repeats a key.
func (e *UniqueInputError) ExitCode() int { return 2 }

// ExitCode is 1: stored documents hold the keys.
func (e *UniqueClashError) ExitCode() int { return 1 }

// ExitCode is 1: the documents are stored already.
func (e *AlreadyStoredError) ExitCode() int { return 1 }

// ExitCode is 2 for invalid indexes, 1 when the collection or the server
// will not take them; of IndexUnique, 2 for keys the plan repeats, 1 for
// keys held by stored documents.
func (e *IndexError) ExitCode() int {
	var ue *UniqueInputError
	switch {
	case e.Stage == IndexUnique && errors.As(e.Err, &ue):
		return 2
	case e.Stage == IndexUnique:
		return 1
	case errors.Is(e.Err, indexes.ErrInvalid) && !indexes.ServerRefused(e.Err):
		return 2
	}
	return 1
}

// ExitCode is 2 for a shape or a document the target's rules refuse, 1
// for any other error of the checks.
func (e *RefusedError) ExitCode() int {
	if e.Shape || refused(e.Doc()) {
		return 2
	}
	return 1
}

// Doc is the generated document the checks stopped at, nil for a shape or
// another error.
func (e *RefusedError) Doc() *parts.DocError { return docError(e.Err) }

// ExitCode is 2 for a document the target's rules refuse before its batch
// was sent, 1 for any other stop.
func (e *InsertError) ExitCode() int {
	if !errors.Is(e.Err, context.Canceled) && refused(e.Doc()) {
		return 2
	}
	return 1
}

// Doc is the generated document the run stopped at (the target's rules
// refused it before its batch was sent, or it could not be made), nil for
// any other stop.
func (e *InsertError) Doc() *parts.DocError { return docError(e.Err) }

// docError is the *parts.DocError of err, nil when it has none.
func docError(err error) *parts.DocError {
	var de *parts.DocError
	if errors.As(err, &de) {
		return de
	}
	return nil
}

// refused tells whether de is a document the target's rules refuse.
func refused(de *parts.DocError) bool { return de != nil && de.Violation() != nil }
