package cli

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// msgKind is the kind of a message on stderr: an error has no label.
type msgKind string

const (
	msgError   msgKind = ""
	msgWarning msgKind = "warning: "
	msgNote    msgKind = "note: "
)

// msgPrefix starts every line the CLI writes on stderr, progress aside.
const msgPrefix = "oidkit: "

// say writes a message on stderr in the CLI's one format (formatMessage).
// Every error, warning and note goes through it; progress lines do not.
func (a *App) say(kind msgKind, format string, args ...any) {
	_, _ = fmt.Fprint(a.stderr, formatMessage(kind, fmt.Sprintf(format, args...)))
}

// formatMessage is the one format of a message on stderr: each line is
// "oidkit: ", then "warning: " or "note: " for those kinds, then the text,
// which starts in lower case (unless its first word is a name such as
// FerretDB or a flag) and has no trailing period. It ends with a newline.
func formatMessage(kind msgKind, msg string) string {
	msg = strings.TrimRight(msg, " \t\r\n")
	if strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "..") {
		msg = msg[:len(msg)-1]
	}
	var b strings.Builder
	for i, line := range strings.Split(msg, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if i == 0 {
			line = lowerFirstWord(line)
		}
		b.WriteString(msgPrefix)
		b.WriteString(string(kind))
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// lowerFirstWord lowers the first letter of s when its first word is a
// capitalised ordinary word ("Required flag" -> "required flag"), and
// leaves names with more capitals or digits (FerretDB, ObjectID, I/N) alone.
func lowerFirstWord(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if !unicode.IsUpper(r) {
		return s
	}
	for _, c := range s[size:] {
		if c == ' ' || c == ':' || c == ',' || c == ';' {
			break
		}
		if !unicode.IsLower(c) {
			return s
		}
	}
	return string(unicode.ToLower(r)) + s[size:]
}
