package ejson

import (
	"errors"
	"fmt"
	"strings"
)

// Mode is the flavour of Extended JSON v2 that an Encoder writes.
// AppendDocument reads both.
type Mode int

const (
	// Relaxed writes numbers as JSON numbers and recent dates as ISO-8601
	// strings, keeping type wrappers only where plain JSON would lose the
	// type. It is the default.
	Relaxed Mode = iota
	// Canonical wraps every number and date, so any JSON tool keeps the types.
	Canonical
)

// ErrBadMode is returned by ParseMode for an unknown mode name.
var ErrBadMode = errors.New("unknown Extended JSON mode")

// ParseMode reads "relaxed" or "canonical" (case-insensitive).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "relaxed":
		return Relaxed, nil
	case "canonical":
		return Canonical, nil
	}
	return Relaxed, fmt.Errorf("%w: %q: expected relaxed or canonical", ErrBadMode, s)
}

func (m Mode) String() string {
	if m == Canonical {
		return "canonical"
	}
	return "relaxed"
}
