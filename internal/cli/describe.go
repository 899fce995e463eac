package cli

import (
	"fmt"

	"github.com/oidkit/oidkit/fixtures"
)

// A write that stopped is described by mongowrite (WriteError.Reached,
// WriteError.Cause, Describe); what went to standard output before, here.

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
