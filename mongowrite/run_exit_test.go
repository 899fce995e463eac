package mongowrite

import (
	"context"
	"fmt"
	"testing"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
)

// A run that stopped at a generated document says which (Doc); it is bad
// input (2) only when the target's rules refuse the document and the run
// was not interrupted.
func TestStoppedAtDoc(t *testing.T) {
	refused := &parts.DocError{Collection: "users", Index: 4, Err: &rules.Violation{Profile: "MongoDB", Reason: rules.TooLarge}}
	stopped := &parts.DocError{Collection: "users", Index: 4, Err: context.Canceled}
	for _, tc := range []struct {
		err  error
		doc  *parts.DocError
		code int
	}{
		{&WriteError{Collection: "users", Err: refused}, refused, 2},
		{fmt.Errorf("users: %w", refused), refused, 2},
		{&WriteError{Collection: "users", Err: stopped}, stopped, 1},
		{&WriteError{Collection: "users", Err: fmt.Errorf("connection reset")}, nil, 1},
	} {
		ie := &InsertError{DB: "d", Collection: "users", Err: tc.err}
		if got := ie.Doc(); got != tc.doc {
			t.Errorf("InsertError{Err: %v}.Doc() = %v, want %v", tc.err, got, tc.doc)
		}
		if got := ie.ExitCode(); got != tc.code {
			t.Errorf("InsertError{Err: %v}.ExitCode() = %d, want %d", tc.err, got, tc.code)
		}
		re := &RefusedError{DB: "d", Err: tc.err}
		if got := re.Doc(); got != tc.doc {
			t.Errorf("RefusedError{Err: %v}.Doc() = %v, want %v", tc.err, got, tc.doc)
		}
	}
}

// Indexes: invalid ones are bad input (2), a refusal a failure (1); of
// IndexUnique, keys the plan repeats are bad input, keys held by stored
// documents a failure.
func TestIndexErrorExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  *IndexError
		want int
	}{
		{&IndexError{Stage: IndexCheck, Err: fmt.Errorf("%w: no key", indexes.ErrInvalid)}, 2},
		{&IndexError{Stage: IndexBefore, Err: fmt.Errorf("connection reset")}, 1},
		{&IndexError{Stage: IndexUnique, Err: &UniqueInputError{Count: 2}}, 2},
		{&IndexError{Stage: IndexUnique, Err: &UniqueClashError{Count: 2}}, 1},
	} {
		if got := tc.err.ExitCode(); got != tc.want {
			t.Errorf("IndexError{Stage: %d, Err: %v}.ExitCode() = %d, want %d", tc.err.Stage, tc.err.Err, got, tc.want)
		}
	}
}
