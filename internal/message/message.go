// Package message owns the one format of what the oidkit command writes
// on stderr, progress aside: every line starts "oidkit: ", then "warning: "
// or "note: " for those kinds, then the text, which starts in lower case
// (unless its first word is a name) and has no trailing period.
package message

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the kind of a message on stderr: an error has no label.
type Kind string

const (
	Error   Kind = ""
	Warning Kind = "warning: "
	Note    Kind = "note: "
)

// Prefix starts every line the command writes on stderr, progress aside.
const Prefix = "oidkit: "

// Format is the one format of a message on stderr: each line is
// "oidkit: ", then "warning: " or "note: " for those kinds, then the text,
// which starts in lower case (unless its first word is a name such as
// MongoDB or a flag) and has no trailing period. It ends with a newline.
func Format(kind Kind, msg string) string {
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
		b.WriteString(Prefix)
		b.WriteString(string(kind))
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// lowerFirstWord lowers the first letter of s when its first word is a
// capitalised ordinary word ("Required flag" -> "required flag"), and
// leaves names with more capitals or digits (MongoDB, ObjectID, I/N) alone.
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
