package oid

import (
	"errors"
	"strconv"
)

// Errors returned by Parse, FromBytes and the unmarshalers; match them with
// errors.Is. Every Parse failure matches ErrInvalidHex, and also
// ErrInvalidLength or ErrInvalidChar.
var (
	ErrInvalidHex    = errors.New("oid: invalid ObjectID hex")
	ErrInvalidLength = errors.New("oid: invalid ObjectID length")
	ErrInvalidChar   = errors.New("oid: invalid character in ObjectID hex")
	ErrInvalidJSON   = errors.New("oid: invalid ObjectID JSON")
)

// ParseError describes text that is not an ObjectID. Use errors.As to get
// the position of a bad character.
type ParseError struct {
	Input string // the text given (the message shows at most 64 bytes of it)
	Pos   int    // byte offset of the first bad character, or -1 for a wrong length
	kind  error  // ErrInvalidLength or ErrInvalidChar
}

func (e *ParseError) Error() string {
	return "oid: invalid ObjectID " + quoteShort(e.Input) + ": " + e.Reason()
}

// Reason is the message without the input: "length 23, expected 24 hex
// characters" or "invalid character 'z' at position 7, expected 0-9, a-f or
// A-F". It is built only when asked for, so that rejecting input is cheap.
func (e *ParseError) Reason() string {
	if e.Pos < 0 {
		return "length " + strconv.Itoa(len(e.Input)) + ", expected 24 hex characters"
	}
	return "invalid character " + quoteChar(e.Input[e.Pos]) + " at position " + strconv.Itoa(e.Pos) + ", expected 0-9, a-f or A-F"
}

// Unwrap lets errors.Is match both ErrInvalidHex and the precise kind.
func (e *ParseError) Unwrap() []error {
	if e.kind == ErrInvalidLength {
		return lengthKinds
	}
	return charKinds
}

// The slices Unwrap returns, shared so that errors.Is does not allocate.
var (
	lengthKinds = []error{ErrInvalidHex, ErrInvalidLength}
	charKinds   = []error{ErrInvalidHex, ErrInvalidChar}
)

func quoteShort(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "..."
	}
	return strconv.Quote(s)
}

const hexDigits = "0123456789abcdef"

// unhex maps a character to its value, or 0xFF when it is not a hex digit.
var unhex = [256]byte{
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 10, 11, 12, 13, 14, 15, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 10, 11, 12, 13, 14, 15, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
}

// Parse reads exactly 24 hexadecimal characters, either case (see the package
// doc). The error is a *ParseError wrapping ErrInvalidHex.
func Parse(s string) (ID, error) {
	if len(s) != 24 {
		return Nil, lengthError(s)
	}
	var id ID
	if !decode(&id, s) {
		return Nil, charError(s)
	}
	return id, nil
}

// parseBytes is Parse for a byte slice, without converting it to a string
// on the success path.
func parseBytes(b []byte) (ID, error) {
	if len(b) != 24 {
		return Nil, lengthError(string(b))
	}
	var id ID
	if !decodeBytes(&id, b) {
		return Nil, charError(string(b))
	}
	return id, nil
}

// decode fills id from 24 hex characters and reports whether all were valid.
// It checks once at the end rather than per byte, so the valid case, which
// matters for speed, runs without branches. s must be 24 bytes long.
func decode(id *ID, s string) bool {
	if len(s) != 24 {
		return false
	}
	var bad byte
	for i := 0; i < 23; i += 2 {
		hi, lo := unhex[s[i]], unhex[s[i+1]]
		bad |= hi | lo
		id[i>>1] = hi<<4 | lo&0xF
	}
	return bad&0xF0 == 0
}

// decodeBytes is decode for a byte slice (a separate copy: a generic
// version is slower, and converting to a string would copy).
func decodeBytes(id *ID, s []byte) bool {
	if len(s) != 24 {
		return false
	}
	var bad byte
	for i := 0; i < 23; i += 2 {
		hi, lo := unhex[s[i]], unhex[s[i+1]]
		bad |= hi | lo
		id[i>>1] = hi<<4 | lo&0xF
	}
	return bad&0xF0 == 0
}

func lengthError(s string) error {
	return &ParseError{Input: s, Pos: -1, kind: ErrInvalidLength}
}

// charError is called only for 24 characters that decode found invalid.
func charError(s string) error {
	p := 0
	for p < len(s)-1 && unhex[s[p]] != 0xFF {
		p++
	}
	return &ParseError{Input: s, Pos: p, kind: ErrInvalidChar}
}

func quoteChar(c byte) string {
	if c >= 0x20 && c < 0x7F {
		return strconv.QuoteRune(rune(c))
	}
	return "0x" + string(hexDigits[c>>4]) + string(hexDigits[c&0xF])
}

// MustParse is Parse that panics on error, for constants in programs and tests.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return id
}

// IsValid reports whether Parse accepts s.
func IsValid(s string) bool {
	if len(s) != 24 {
		return false
	}
	var id ID
	return decode(&id, s)
}

// FromBytes copies a 12-byte slice into an ID; any other length is an error
// wrapping ErrInvalidLength.
func FromBytes(b []byte) (ID, error) {
	if len(b) != 12 {
		return Nil, &lengthBytesError{n: len(b)}
	}
	return ID(b), nil
}

type lengthBytesError struct{ n int }

func (e *lengthBytesError) Error() string {
	return "oid: invalid ObjectID length: " + strconv.Itoa(e.n) + " bytes, expected 12"
}
func (e *lengthBytesError) Unwrap() error { return ErrInvalidLength }
