package ejson

import (
	"errors"
	"strconv"
)

// ErrInvalid is matched (errors.Is) by every *Error.
var ErrInvalid = errors.New("invalid Extended JSON")

// Error is input that is not Extended JSON: where it was found (a byte
// offset in the input), what was found there and what was expected.
type Error struct {
	Offset   int
	Found    string
	Expected string
}

func (e *Error) Error() string {
	return "offset " + strconv.Itoa(e.Offset) + ": found " + e.Found + "; expected " + e.Expected
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// errEOD and errEOA end a document and an array (the driver's ErrEOD and
// ErrEOA): control flow, never returned.
var (
	errEOD = errors.New("end of document")
	errEOA = errors.New("end of array")
)

// shown quotes a value of the input for a message, shortened.
func shown(b []byte) string {
	const max = 64
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "..."
	}
	return strconv.Quote(string(b))
}
