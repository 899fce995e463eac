package parts

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/rules"
)

// Range is the half-open range [From, To) of document numbers of one
// collection. It is the unit of work that writing, resuming, partitions and
// verification share.
type Range struct {
	From, To int64
}

// Len is the number of documents in r (0 when To <= From).
func (r Range) Len() int64 { return max(r.To-r.From, 0) }

// Within is r cut to the documents [0, n) of a collection.
func (r Range) Within(n int64) Range { return Range{max(r.From, 0), min(r.To, n)} }

func (r Range) String() string { return fmt.Sprintf("[%d,%d)", r.From, r.To) }

// Merge sorts rs and merges the ranges that overlap or touch; empty
// ranges are left out.
func Merge(rs []Range) []Range {
	rs = slices.DeleteFunc(slices.Clone(rs), func(r Range) bool { return r.Len() == 0 })
	sort.Slice(rs, func(i, j int) bool { return rs[i].From < rs[j].From })
	out := []Range{}
	for _, r := range rs {
		if n := len(out); n > 0 && r.From <= out[n-1].To {
			out[n-1].To = max(out[n-1].To, r.To)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Batch is the marshalled documents From, From+1, ... of one collection.
type Batch struct {
	From int64
	Docs []bson.Raw
}

// Range is the document numbers the batch holds.
func (b Batch) Range() Range { return Range{b.From, b.From + int64(len(b.Docs))} }

// DocError is an error about one document of a collection, by number.
type DocError struct {
	Collection string
	Index      int64
	Err        error
}

func (e *DocError) Error() string {
	return fmt.Sprintf("%s document %d: %v", e.Collection, e.Index, e.Err)
}

func (e *DocError) Unwrap() error { return e.Err }

// Violation is the rule of the target that the document breaks, nil when
// Err is another error (the document could not be made, or its generation
// was stopped).
func (e *DocError) Violation() *rules.Violation {
	var v *rules.Violation
	if errors.As(e.Err, &v) {
		return v
	}
	return nil
}

// The exit statuses of this package's errors for a command line: 2 when
// what was asked for cannot be done as given, 1 for a failure at run time.
const (
	exitFailure = 1
	exitInput   = 2
)

// ExitCode is 2 for a document the target's rules refuse, 1 otherwise.
func (e *DocError) ExitCode() int {
	if e.Violation() != nil {
		return exitInput
	}
	return exitFailure
}

// ExitCode is 2: the part cannot be read or does not exist.
func (e *Error) ExitCode() int { return exitInput }
