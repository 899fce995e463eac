package mongowrite

import (
	"regexp"
	"strings"
)

// serverFrame is a source location FerretDB prefixes to the errors it
// passes up (its lazyerrors package): "[msg_insert.go:168
// handler.(*Handler).MsgInsert] ", possibly several in a row. They say where
// in the server the error was wrapped, which tells a user nothing.
var serverFrame = regexp.MustCompile(`\[(?:[\w.\-]+\.go:\d+(?: [^\[\]]*)?|unknown)\] ?`)

// ServerMessage is a server's error message without FerretDB's internal
// source locations; any other message is returned unchanged.
func ServerMessage(msg string) string {
	if !strings.Contains(msg, "[") {
		return msg
	}
	return strings.TrimSpace(serverFrame.ReplaceAllString(msg, ""))
}
