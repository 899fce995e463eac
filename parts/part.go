package parts

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Max bounds the number of parts a dataset is split into.
const Max = 1 << 20

// Part is part I of N of a dataset: for every collection, the index range
// Range(count). Parts are numbered from 0, as a Kubernetes Indexed Job
// numbers its pods (JOB_COMPLETION_INDEX), so part I of N is I in [0, N).
// The zero Part is the whole dataset.
type Part struct {
	I, N int64
}

// Whole reports whether p is the whole dataset (the zero Part, or 0 of 1).
func (p Part) Whole() bool { return p.N <= 1 }

// Range is the documents of a collection of count documents that p covers:
// [count*I/N, count*(I+1)/N). The N ranges of a count tile [0, count) in
// order, without gaps or overlap, and differ in length by at most one;
// with N > count some are empty. It is a pure function of I, N and count,
// so every worker computes the same split without talking to the others.
func (p Part) Range(count int64) Range {
	if p.Whole() || count <= 0 {
		return Range{0, max(count, 0)}
	}
	return Range{p.bound(count, p.I), p.bound(count, p.I+1)}
}

// bound is count*k/N without overflow (k <= N, so the quotient fits).
func (p Part) bound(count, k int64) int64 {
	hi, lo := bits.Mul64(uint64(count), uint64(k))
	q, _ := bits.Div64(hi, lo, uint64(p.N))
	return int64(q)
}

// String is "I/N", the form Parse reads.
func (p Part) String() string { return fmt.Sprintf("%d/%d", p.I, p.N) }

// Suffix names the part in keys and file names: "part-0003-of-0016"
// (four digits at least, so that names sort in part order up to 10000).
func (p Part) Suffix() string { return fmt.Sprintf("part-%04d-of-%04d", p.I, p.N) }

// ErrInvalid is wrapped by the errors of Parse and Part.Validate.
var ErrInvalid = errors.New("invalid part")

// Error is a part that cannot be read or does not exist: Value as
// given, and what was expected. Field, from Of, says which of its two
// numbers was wrong: "I", "N", or "" for the pair.
type Error struct {
	Value    string
	Expected string
	Field    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("part %q: expected %s", e.Value, e.Expected)
}

func (e *Error) Unwrap() error { return ErrInvalid }

// Parse reads "I/N": 0 <= I < N <= Max.
func Parse(s string) (Part, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.ParseInt(strings.TrimSpace(is), 10, 64)
	n, err2 := strconv.ParseInt(strings.TrimSpace(ns), 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return Part{}, &Error{Value: s, Expected: "I/N, two integers: part I (from 0) of N"}
	}
	p := Part{I: i, N: n}
	if err := p.Validate(); err != nil {
		return Part{}, &Error{Value: s, Expected: err.(*Error).Expected}
	}
	return p, nil
}

// Of is part index of parts, both given as decimal text, as a
// Kubernetes Indexed Job gives its pod's index and its completions. On an
// error (a *Error naming the Field) the part read so far is returned.
func Of(index, parts string) (Part, error) {
	i, err := strconv.ParseInt(index, 10, 64)
	if err != nil {
		return Part{}, &Error{Value: index, Field: "I", Expected: "the index of the part, an integer from 0"}
	}
	n, err := strconv.ParseInt(parts, 10, 64)
	if err != nil {
		return Part{}, &Error{Value: parts, Field: "N", Expected: fmt.Sprintf("the number of parts, an integer from 1 to %d", Max)}
	}
	p := Part{I: i, N: n}
	return p, p.Validate()
}

// Validate checks 0 <= I < N <= Max.
func (p Part) Validate() error {
	switch {
	case p.N < 1 || p.N > Max:
		return &Error{Value: p.String(), Expected: fmt.Sprintf("N from 1 to %d", Max)}
	case p.I < 0 || p.I >= p.N:
		return &Error{Value: p.String(), Expected: fmt.Sprintf("I from 0 to %d (parts are numbered from 0)", p.N-1)}
	}
	return nil
}

// IsZero reports whether p is the zero Part (so a manifest of a whole
// collection leaves its part out).
func (p Part) IsZero() bool { return p == Part{} }

// ParseSuffix reads what Suffix writes ("part-0003-of-0016"), and only
// that spelling.
func ParseSuffix(s string) (Part, bool) {
	rest, ok := strings.CutPrefix(s, "part-")
	is, ns, ok2 := strings.Cut(rest, "-of-")
	if !ok || !ok2 {
		return Part{}, false
	}
	i, err1 := strconv.ParseInt(is, 10, 64)
	n, err2 := strconv.ParseInt(ns, 10, 64)
	p := Part{I: i, N: n}
	if err1 != nil || err2 != nil || p.Validate() != nil || p.Suffix() != s {
		return Part{}, false
	}
	return p, true
}
