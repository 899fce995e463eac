package oid

import (
	"errors"
	"testing"
	"time"
)

func TestWindowBounds(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		from, to string
		filter   string
	}{
		{"1970-01-01T00:00:00Z", "", `{"_id":{"$gte":{"$oid":"000000000000000000000000"}}}`},
		{"1970-01-01T00:00:01.5Z", "1970-01-01T00:00:02.5Z", `{"_id":{"$gte":{"$oid":"000000010000000000000000"},"$lt":{"$oid":"000000030000000000000000"}}}`},
		{"1970-01-01T00:00:01.5Z", "1970-01-01T00:00:02Z", `{"_id":{"$gte":{"$oid":"000000010000000000000000"},"$lt":{"$oid":"000000020000000000000000"}}}`},
		{"2038-01-19T03:14:07Z", "2038-01-19T03:14:09Z", `{"_id":{"$gte":{"$oid":"7fffffff0000000000000000"},"$lt":{"$oid":"800000010000000000000000"}}}`},
		{"2106-02-07T06:28:14Z", "2106-02-07T06:28:15Z", `{"_id":{"$gte":{"$oid":"fffffffe0000000000000000"},"$lt":{"$oid":"ffffffff0000000000000000"}}}`},
		{"2106-02-07T06:28:15Z", "2106-02-07T06:28:15.5Z", `{"_id":{"$gte":{"$oid":"ffffffff0000000000000000"},"$lte":{"$oid":"ffffffffffffffffffffffff"}}}`},
	} {
		var w Window
		var err error
		if c.to == "" {
			w, err = WindowFrom(at(c.from))
		} else {
			w, err = NewWindow(at(c.from), at(c.to))
		}
		if err != nil || w.Filter() != c.filter || string(w.AppendFilter([]byte("x"))) != "x"+c.filter {
			t.Errorf("[%s, %s): %v %s; want %s", c.from, c.to, err, w.Filter(), c.filter)
		}
		if w.HasTo != (c.to != "") || (w.ToOperator() == "$lte") != w.ToInclusive {
			t.Errorf("[%s, %s): %+v, operator %q", c.from, c.to, w, w.ToOperator())
		}
	}
}

func TestWindowErrors(t *testing.T) {
	for _, c := range []struct {
		from, to time.Time
		is       error
	}{
		{time.Unix(100, 0), time.Unix(100, 0), ErrEmptyWindow},
		{time.Unix(100, 500), time.Unix(100, 900), nil}, // one second, rounded both ways: not empty
		{time.Unix(100, 0), time.Unix(50, 0), ErrEmptyWindow},
		{time.Unix(-1, 0), time.Unix(50, 0), ErrTimeRange},
		{time.Unix(100, 0), MaxTime.Add(time.Second), ErrTimeRange},
	} {
		_, err := NewWindow(c.from, c.to)
		if c.is == nil {
			if err != nil {
				t.Errorf("NewWindow(%v, %v): %v", c.from, c.to, err)
			}
			continue
		}
		if !errors.Is(err, c.is) {
			t.Errorf("NewWindow(%v, %v) = %v; want %v", c.from, c.to, err, c.is)
		}
		var we *WindowError
		if errors.As(err, &we) != (c.is == ErrEmptyWindow) || (we != nil && (!we.From.Equal(c.from) || !we.To.Equal(c.to))) {
			t.Errorf("NewWindow(%v, %v): %#v", c.from, c.to, err)
		}
	}
	if _, err := WindowFrom(MaxTime.Add(time.Second)); !errors.Is(err, ErrTimeRange) {
		t.Errorf("WindowFrom past MaxTime: %v", err)
	}
}

// Consecutive windows with whole-second bounds share their bound: neither
// overlap nor gap.
func TestWindowsTile(t *testing.T) {
	a, b, c := time.Unix(1000, 0), time.Unix(2000, 0), time.Unix(3000, 0)
	w1, err1 := NewWindow(a, b)
	w2, err2 := NewWindow(b, c)
	if err1 != nil || err2 != nil || w1.To != w2.From {
		t.Errorf("%v %v: %s then %s", err1, err2, w1.Filter(), w2.Filter())
	}
}
