package cli

import (
	"time"

	"github.com/oidkit/oidkit/oid"
)

// timeForms names the forms of a TIME argument, for flag usages and
// messages: every flag that takes a time reads it with parseTime.
const timeForms = oid.TimeForms

// parseTime reads a TIME argument with oid.ParseTime: a bad one is bad
// usage naming the flag, the value as given and what was expected.
func parseTime(flag, value string) (time.Time, error) {
	t, err := oid.ParseTime(value)
	if err != nil {
		return time.Time{}, usageErrorf("%s %q: %v", arg(flag), value, err)
	}
	return t, nil
}
