package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/mongowrite"
)

// The one describer of a write that stopped (*mongowrite.WriteError): how far it
// got (stopCount), why it stopped (stopCause), and what went to standard
// output before (stdoutNote). Every command that writes documents says it
// with these.

// stopCount is how far a write got: "K of N documents", "at least K of N
// documents" when the server's answer left some unknown, or "K documents"
// when N is not known.
func stopCount(we *mongowrite.WriteError) string {
	if we.Total < 0 {
		return docCount(we.Written)
	}
	bound := ""
	if we.AtLeast {
		bound = "at least "
	}
	return fmt.Sprintf("%s%d of %d documents", bound, we.Written, we.Total)
}

// stopCause is why a write stopped: the refused document, if any, and the
// cause (interrupted, timed out, or the server's message).
func stopCause(we *mongowrite.WriteError) string {
	if we.Doc != nil {
		return we.Doc.String() + ": " + writeCause(we.Err)
	}
	return writeCause(we.Err)
}

// writeCause is the cause of a failed write in words.
func writeCause(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out: " + err.Error()
	}
	return mongowrite.ServerMessage(err.Error())
}

// stdoutNote flushes w after a stop and says what became of standard
// output: what went out cannot be taken back, so the complete documents
// buffered before the stop go out too. The error is the flush's, if it
// failed (the note then says so).
func stdoutNote(w *fixtures.Writer, layout fixtures.Layout) (string, error) {
	if err := w.Flush(); err != nil {
		return fmt.Sprintf("writing to standard output: %v", err), err
	}
	unclosed := ""
	if layout == fixtures.Array && w.Count() > 0 {
		unclosed = " (the JSON array is not closed)"
	}
	return fmt.Sprintf("%d complete documents went to standard output%s", w.Count(), unclosed), nil
}
