package cli

import (
	"strconv"
	"strings"
	"time"

	"github.com/oidkit/oidkit/oid"
)

// parseTime reads a TIME argument: RFC 3339 (with or without fractional
// seconds) or Unix seconds. The result must fit an ObjectID timestamp
// (1970-01-01T00:00:00Z .. 2106-02-07T06:28:15Z); a value outside that range is
// refused rather than wrapped, because a user who names a time means it.
func parseTime(flag, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	var t time.Time
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		t = time.Unix(n, 0).UTC()
	} else if pt, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t = pt.UTC()
	} else {
		return time.Time{}, usageErrorf("%s %q: expected RFC 3339 (2023-11-14T22:13:20Z) or Unix seconds", arg(flag), s)
	}
	if err := oid.CheckTime(t); err != nil {
		return time.Time{}, usageErrorf("%s %q: %v", arg(flag), s, err)
	}
	return t, nil
}
