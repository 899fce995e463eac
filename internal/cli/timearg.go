package cli

import (
	"strconv"
	"strings"
	"time"

	"github.com/oidkit/oidkit/oid"
)

// timeForms names the forms of a TIME argument, for flag usages and
// messages: every flag that takes a time reads it with parseTime.
const timeForms = "RFC 3339 (2023-11-14T22:13:20Z), a date (2023-11-14, midnight UTC) or Unix seconds"

// parseTime reads a TIME argument: RFC 3339 (with or without fractional
// seconds), a date alone (YYYY-MM-DD, meaning midnight UTC of that day), or
// Unix seconds. The result must fit an ObjectID timestamp
// (1970-01-01T00:00:00Z..2106-02-07T06:28:15Z); a
// value outside that range is refused rather than wrapped, because a user
// who names a time means it. Errors name the flag, the value as given and
// what was expected.
func parseTime(flag, value string) (time.Time, error) {
	s := strings.TrimSpace(value)
	var t time.Time
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		t = time.Unix(n, 0).UTC()
	} else if pt, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t = pt.UTC()
	} else if pt, err := time.Parse(time.DateOnly, s); err == nil {
		t = pt // time.Parse without a zone gives UTC
	} else {
		return time.Time{}, usageErrorf("%s %q: expected %s", arg(flag), value, timeForms)
	}
	if err := oid.CheckTime(t); err != nil {
		return time.Time{}, usageErrorf("%s %q: %v", arg(flag), value, err)
	}
	return t, nil
}
