package oid

import (
	"errors"
	"fmt"
)

// Errors returned by Parse and the unmarshalers; match them with errors.Is.
var (
	ErrInvalidHex    = errors.New("oid: invalid ObjectID hex")
	ErrInvalidLength = errors.New("oid: invalid ObjectID length")
)

const hexDigits = "0123456789abcdef"

// unhex maps a character to its value, or 0xFF when it is not a hex digit.
var unhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := byte(0); i < 10; i++ {
		t['0'+i] = i
	}
	for i := byte(0); i < 6; i++ {
		t['a'+i] = 10 + i
		t['A'+i] = 10 + i
	}
	return t
}()

// Parse reads 24 hexadecimal characters. Upper case is accepted, as the
// driver and mongosh accept it; output is always lower case.
func Parse(s string) (ID, error) {
	var id ID
	if len(s) != 24 {
		return Nil, fmt.Errorf("%w: %q: length %d, expected 24 hex characters", ErrInvalidLength, s, len(s))
	}
	for i := 0; i < 12; i++ {
		hi, lo := unhex[s[2*i]], unhex[s[2*i+1]]
		if hi|lo == 0xFF || hi > 15 || lo > 15 {
			p := 2 * i
			if hi <= 15 {
				p++
			}
			return Nil, fmt.Errorf("%w: %q: invalid character %q at position %d, expected 0-9 or a-f", ErrInvalidHex, s, s[p], p)
		}
		id[i] = hi<<4 | lo
	}
	return id, nil
}

// MustParse is Parse that panics on error, for constants in programs and tests.
func MustParse(s string) ID {
	id, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return id
}

// IsValid reports whether s is a valid hex ObjectID.
func IsValid(s string) bool {
	_, err := Parse(s)
	return err == nil
}

// FromBytes copies a 12-byte slice into an ID.
func FromBytes(b []byte) (ID, error) {
	if len(b) != 12 {
		return Nil, fmt.Errorf("%w: %d bytes, expected 12", ErrInvalidLength, len(b))
	}
	return ID(b), nil
}

// AppendHex appends the 24 lower-case hex characters of id to b.
func (id ID) AppendHex(b []byte) []byte {
	for _, c := range id {
		b = append(b, hexDigits[c>>4], hexDigits[c&0xF])
	}
	return b
}

// Hex is the 24 lower-case hex characters of id.
func (id ID) Hex() string {
	var buf [24]byte
	return string(id.AppendHex(buf[:0]))
}

// String is Hex (the driver's String prints ObjectID("...") instead).
func (id ID) String() string { return id.Hex() }
