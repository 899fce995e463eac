package bsonval

import (
	"time"
)

// The time units of $setWindowFields range windows, $derivative,
// $integral and $densify, as $dateAdd counts them in UTC: a fixed number
// of milliseconds up to a week, calendar months for month, quarter and
// year, the day of the month clamped to the month's last day (January 31
// plus one month is the last day of February).

// UnitMillis is the length of each fixed unit.
var UnitMillis = map[string]int64{
	"millisecond": 1, "second": 1000, "minute": 60 * 1000, "hour": 60 * 60 * 1000,
	"day": 24 * 60 * 60 * 1000, "week": 7 * 24 * 60 * 60 * 1000,
}

// CalendarMonths is the number of months in each calendar unit.
var CalendarMonths = map[string]int64{"month": 1, "quarter": 3, "year": 12}

// IsTimeUnit reports whether u names a unit AddTimeUnit knows.
func IsTimeUnit(u string) bool {
	return UnitMillis[u] != 0 || CalendarMonths[u] != 0
}

// AddTimeUnit is ms plus n units; false when the unit is unknown or the
// result leaves the range a date can hold.
func AddTimeUnit(ms int64, unit string, n int64) (int64, bool) {
	const limit = 1 << 53 // far beyond any date, small enough not to overflow
	if n > limit || n < -limit {
		return 0, false
	}
	if u := UnitMillis[unit]; u != 0 {
		d := n * u
		if d/u != n {
			return 0, false
		}
		r := ms + d
		if (d > 0 && r < ms) || (d < 0 && r > ms) {
			return 0, false
		}
		return r, true
	}
	k := CalendarMonths[unit]
	if k == 0 {
		return 0, false
	}
	months := n * k
	if months > 12*300000 || months < -12*300000 {
		return 0, false
	}
	t := time.UnixMilli(ms).UTC()
	y, m, d := t.Date()
	total := int64(y)*12 + int64(m-1) + months
	ny, nm := total/12, total%12
	if nm < 0 {
		nm += 12
		ny--
	}
	last := time.Date(int(ny), time.Month(nm+1)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	d = min(d, last)
	h, mi, s := t.Clock()
	return time.Date(int(ny), time.Month(nm+1), d, h, mi, s, t.Nanosecond(), time.UTC).UnixMilli(), true
}
