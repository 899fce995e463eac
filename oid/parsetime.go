package oid

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// TimeForms names the forms ParseTime reads, for usages and messages.
const TimeForms = "RFC 3339 (2023-11-14T22:13:20Z), a date (2023-11-14, midnight UTC) or Unix seconds"

// ParseTime reads a time as people give one for an ObjectID: RFC 3339
// (with or without fractional seconds), a date alone (YYYY-MM-DD, meaning
// midnight UTC of that day), or Unix seconds. The result must fit an
// ObjectID timestamp (MinTime..MaxTime); a value outside that range is
// refused (CheckTime) rather than wrapped, because a caller who names a
// time means it. An error says what was expected; the caller names the
// value.
func ParseTime(value string) (time.Time, error) {
	s := strings.TrimSpace(value)
	var t time.Time
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		t = time.Unix(n, 0).UTC()
	} else if pt, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t = pt.UTC()
	} else if pt, err := time.Parse(time.DateOnly, s); err == nil {
		t = pt // time.Parse without a zone gives UTC
	} else {
		return time.Time{}, errors.New("expected " + TimeForms)
	}
	if err := CheckTime(t); err != nil {
		return time.Time{}, err
	}
	return t, nil
}
