package oid

import (
	"encoding/binary"
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
// It reads 8 characters at a time as one 64-bit word (see unhex8), so the
// valid case, which matters for speed, runs without a branch per character.
func decode(id *ID, s string) bool {
	if len(s) != 24 {
		return false
	}
	a, ok0 := unhex8(load8(s[0:8]))
	b, ok1 := unhex8(load8(s[8:16]))
	c, ok2 := unhex8(load8(s[16:24]))
	binary.BigEndian.PutUint32(id[0:4], a)
	binary.BigEndian.PutUint32(id[4:8], b)
	binary.BigEndian.PutUint32(id[8:12], c)
	return ok0 && ok1 && ok2
}

// decodeBytes is decode for a byte slice (converting it to a string would
// copy it).
func decodeBytes(id *ID, s []byte) bool {
	if len(s) != 24 {
		return false
	}
	a, ok0 := unhex8(binary.BigEndian.Uint64(s[0:8]))
	b, ok1 := unhex8(binary.BigEndian.Uint64(s[8:16]))
	c, ok2 := unhex8(binary.BigEndian.Uint64(s[16:24]))
	binary.BigEndian.PutUint32(id[0:4], a)
	binary.BigEndian.PutUint32(id[4:8], b)
	binary.BigEndian.PutUint32(id[8:12], c)
	return ok0 && ok1 && ok2
}

// load8 is the first 8 bytes of s as a big-endian word.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
		uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
}

const lanes = 0x0101010101010101 // 1 in each byte

// unhex8 decodes 8 hex characters, one per byte of x (the first in the top
// byte), into 4 bytes, and reports whether all 8 were 0-9, a-f or A-F. Each
// byte is tested for its range by adding a constant that carries into the
// byte's top bit exactly at the range's bounds; that holds because a valid
// byte is below 0x80, and a byte at or above 0x80 fails on its own top bit.
func unhex8(x uint64) (uint32, bool) {
	y := x | 0x20*lanes                            // fold A-F to a-f; digits already have 0x20 set
	digit := (x + 0x50*lanes) &^ (x + 0x46*lanes)  // top bit set where 0x30 <= byte <= 0x39
	letter := (y + 0x1F*lanes) &^ (y + 0x19*lanes) // top bit set where 0x61 <= byte|0x20 <= 0x66
	ok := (x|((digit|letter)^0x80*lanes))&(0x80*lanes) == 0
	v := y&(0x0F*lanes) + (letter>>7&lanes)*9 // nibble values: 'a' is 1+9
	v = (v | v>>4) & 0x00FF00FF00FF00FF
	v = (v | v>>8) & 0x0000FFFF0000FFFF
	v = (v | v>>16) & 0xFFFFFFFF
	return uint32(v), ok
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
