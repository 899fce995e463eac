package mongowrite

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// serverFrame is a source location a server written in Go may prefix to the
// errors it passes up: "[msg_insert.go:168 handler.(*Handler).MsgInsert] ",
// possibly several in a row. They say where in the server the error was
// wrapped, which tells a user nothing.
var serverFrame = regexp.MustCompile(`\[(?:[\w.\-]+\.go:\d+(?: [^\[\]]*)?|unknown)\] ?`)

// ServerMessage is a server's error message without the internal source
// locations some servers prefix to it; any other message is returned
// unchanged.
func ServerMessage(msg string) string {
	if !strings.Contains(msg, "[") {
		return msg
	}
	return strings.TrimSpace(serverFrame.ReplaceAllString(msg, ""))
}

// The one describer of a write that stopped: how far it got (Reached), why
// it stopped (Cause, Describe). Every command that writes documents says it
// with these.

// Reached is how far a write that stopped got: "K of N documents", "at
// least K of N documents" when the server's answer left some unknown, or
// "K documents" when N is not known.
func (e *WriteError) Reached() string {
	if e.Total < 0 {
		return Documents(e.Written)
	}
	bound := ""
	if e.AtLeast {
		bound = "at least "
	}
	return fmt.Sprintf("%s%d of %d documents", bound, e.Written, e.Total)
}

// Cause is why a write stopped: the refused document, if any, and the
// cause (Describe).
func (e *WriteError) Cause() string {
	if e.Doc != nil {
		return e.Doc.String() + ": " + Describe(e.Err)
	}
	return Describe(e.Err)
}

// Describe is the cause of a failed write in words: interrupted, timed
// out, or the server's message.
func Describe(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out: " + err.Error()
	}
	return ServerMessage(err.Error())
}

// Documents is n documents in words: "1 document", "5 documents".
func Documents(n int64) string {
	if n == 1 {
		return "1 document"
	}
	return fmt.Sprintf("%d documents", n)
}
