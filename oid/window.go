package oid

import (
	"errors"
	"time"
)

// Window is the range of _id values of the documents created in a time
// window [from, to): the bounds are zero-tailed IDs, like mongosh's
// ObjectId.createFromTime, the smallest ID of a second. IDs store whole
// seconds, so a fractional from is rounded down and a fractional to up: no
// ID created inside the window is left out. Consecutive windows with
// whole-second bounds (from A to B, then from B to C) neither overlap nor
// leave a gap.
type Window struct {
	// From is the inclusive lower bound ($gte).
	From ID
	// To is the upper bound, when HasTo: exclusive ($lt), or, when
	// ToInclusive, the largest ID ffffffffffffffffffffffff ($lte), because
	// the window reaches past the last second an ID can hold.
	To          ID
	HasTo       bool
	ToInclusive bool
}

// maxID is the largest ObjectID: an upper bound that no $lt can express.
var maxID = ID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// ErrEmptyWindow is wrapped by the *WindowError of a window whose end is not
// after its start.
var ErrEmptyWindow = errors.New("oid: empty window")

// WindowError describes a window that holds no second: To, rounded up to a
// whole second, is not after From rounded down.
type WindowError struct {
	From, To time.Time
}

func (e *WindowError) Error() string {
	return "oid: empty window: " + e.To.UTC().Format(time.RFC3339Nano) + " is not after " +
		e.From.UTC().Format(time.RFC3339Nano) + " (the window is [from, to), whole seconds)"
}

// Unwrap returns ErrEmptyWindow.
func (e *WindowError) Unwrap() error { return ErrEmptyWindow }

// WindowFrom is the window of the documents created at from or later: a
// lower bound only. from must lie in MinTime..MaxTime (else the error wraps
// ErrTimeRange).
func WindowFrom(from time.Time) (Window, error) {
	lo, err := FromTime(from)
	if err != nil {
		return Window{}, err
	}
	return Window{From: lo}, nil
}

// NewWindow is the window of the documents created in [from, to). Both must
// lie in MinTime..MaxTime (else the error wraps ErrTimeRange), and to must
// be after from in whole seconds (else a *WindowError).
func NewWindow(from, to time.Time) (Window, error) {
	w, err := WindowFrom(from)
	if err != nil {
		return Window{}, err
	}
	if err := CheckTime(to); err != nil {
		return Window{}, err
	}
	end := to.Unix()
	if to.Nanosecond() > 0 {
		end++ // round a fractional end up: its second may hold IDs made before it
	}
	if end <= w.From.Unix() {
		return Window{}, &WindowError{From: from, To: to}
	}
	w.HasTo = true
	if end > MaxTime.Unix() {
		w.To, w.ToInclusive = maxID, true
	} else {
		w.To, _ = FromTime(time.Unix(end, 0))
	}
	return w, nil
}

// ToOperator is the query operator of the upper bound: "$lt", or "$lte" when
// ToInclusive; "" without an upper bound.
func (w Window) ToOperator() string {
	switch {
	case !w.HasTo:
		return ""
	case w.ToInclusive:
		return "$lte"
	}
	return "$lt"
}

// AppendFilter appends the window as a canonical Extended JSON query filter
// on _id: {"_id":{"$gte":{"$oid":"..."},"$lt":{"$oid":"..."}}}.
func (w Window) AppendFilter(b []byte) []byte {
	b = append(b, `{"_id":{"$gte":{"$oid":"`...)
	b = w.From.AppendHex(b)
	b = append(b, `"}`...)
	if w.HasTo {
		b = append(b, `,"`+w.ToOperator()+`":{"$oid":"`...)
		b = w.To.AppendHex(b)
		b = append(b, `"}`...)
	}
	return append(b, "}}"...)
}

// Filter is AppendFilter as a string.
func (w Window) Filter() string { return string(w.AppendFilter(nil)) }
