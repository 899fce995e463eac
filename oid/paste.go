package oid

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// pastedQuotes are the quotes an ID may come in: straight ones, and the
// curly ones of articles and word processors (the web page takes the same).
var pastedQuotes = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2018", "'", "\u2019", "'")

// PasteError describes text that ParsePasted cannot read as an ObjectID.
// Err is the failure underneath: a *ParseError of the hex inside the
// wrapper (its Input and Pos refer to that hex), or the error of
// UnmarshalJSON for an object form; errors.Is matches ErrInvalidHex,
// ErrInvalidLength, ErrInvalidChar or ErrInvalidJSON through it.
type PasteError struct {
	Input  string // the text as given
	Err    error
	reason string
}

func (e *PasteError) Error() string {
	return "oid: invalid ObjectID " + quoteShort(e.Input) + ": " + e.reason
}

// Reason is the message without the input: "length 3, expected 24 hex
// characters", "invalid character 'é' at position 3, expected 0-9, a-f or
// A-F" (positions count characters, not bytes), or, for an object that is
// not an ObjectID, `expected 24 hex characters, ObjectId("...") or
// {"$oid":"..."}`.
func (e *PasteError) Reason() string { return e.reason }

// Unwrap returns Err.
func (e *PasteError) Unwrap() error { return e.Err }

// ParsePasted reads an ID as people paste it: bare hex (either case),
// ObjectId("hex") or ObjectId(hex) (mongosh), new ObjectId("hex"),
// ObjectID("hex") (the drivers' String), {"$oid":"hex"} (Extended JSON) or a
// quoted "hex" or 'hex', with curly quotes too, a leading byte order mark and
// surrounding space. Parse stays strict; this is for input typed or pasted
// by a person. The error is a *PasteError naming the input.
func ParsePasted(s string) (ID, error) {
	in := pastedQuotes.Replace(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "\ufeff")))
	h := in
	for _, p := range []string{"ObjectId(", "ObjectID(", "new ObjectId("} {
		if strings.HasPrefix(h, p) && strings.HasSuffix(h, ")") {
			h = strings.TrimSpace(h[len(p) : len(h)-1])
			h = strings.Trim(h, `"'`)
			break
		}
	}
	if len(h) >= 2 && (h[0] == '"' || h[0] == '\'') && h[len(h)-1] == h[0] {
		h = h[1 : len(h)-1]
	} else if strings.HasPrefix(h, "{") {
		var id ID
		if err := id.UnmarshalJSON([]byte(h)); err != nil {
			return Nil, &PasteError{Input: s, Err: err, reason: `expected 24 hex characters, ObjectId("...") or {"$oid":"..."}`}
		}
		return id, nil
	}
	// A non-ASCII letter takes several bytes, so Parse would report a
	// length the user cannot see ("length 25" for 24 visible characters):
	// name the character and its position in characters instead.
	pos := 0
	for at, r := range h {
		if r >= utf8.RuneSelf && r != utf8.RuneError {
			return Nil, &PasteError{Input: s, Err: &ParseError{Input: h, Pos: at, kind: ErrInvalidChar},
				reason: "invalid character " + strconv.QuoteRune(r) + " at position " + strconv.Itoa(pos) + ", expected 0-9, a-f or A-F"}
		}
		pos++
	}
	id, err := Parse(h)
	if err != nil {
		reason := err.Error()
		if pe, ok := err.(*ParseError); ok { // always, from Parse
			reason = pe.Reason()
		}
		return Nil, &PasteError{Input: s, Err: err, reason: reason}
	}
	return id, nil
}
