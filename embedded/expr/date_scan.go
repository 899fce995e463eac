package expr

import (
	"strings"
	"time"
)

// The reading of the pieces of a date string for $dateFromString:
// numbers, fractions, month names, zones and times of day.

// dateScanner reads a date string.
type dateScanner struct {
	s string
	i int
}

func (sc *dateScanner) done() bool { return sc.i >= len(sc.s) }
func (sc *dateScanner) peek() byte {
	if sc.done() {
		return 0
	}
	return sc.s[sc.i]
}
func (sc *dateScanner) skipSpace() {
	for !sc.done() && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

// number reads up to max digits; false when there are none.
func (sc *dateScanner) number(max int) (int, int, bool) {
	start := sc.i
	n := 0
	for !sc.done() && sc.i-start < max && sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9' {
		n = n*10 + int(sc.s[sc.i]-'0')
		sc.i++
	}
	return n, sc.i - start, sc.i > start
}

// fraction reads the digits of a fraction of a second as nanoseconds.
func (sc *dateScanner) fraction(max int) (int, bool) {
	n, digits, ok := sc.number(max)
	if !ok {
		return 0, false
	}
	for ; digits < 9; digits++ {
		n *= 10
	}
	for !sc.done() && sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9' && max > 3 {
		sc.i++ // precision beyond nanoseconds
	}
	return n / 1e6 * 1e6, true
}

func (sc *dateScanner) word() string {
	start := sc.i
	for !sc.done() {
		c := sc.s[sc.i]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
			sc.i++
			continue
		}
		break
	}
	return sc.s[start:sc.i]
}

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}

// monthNamed is the month a name or its first three letters name (1-12),
// or 0.
func monthNamed(w string, full, short bool) int {
	w = strings.ToLower(w)
	for i, m := range monthNames {
		if (full && w == m) || (short && len(w) == 3 && w == m[:3]) || (full && short && w == "sept" && i == 8) {
			return i + 1
		}
	}
	return 0
}

// zoneAbbreviations are the zone abbreviations a date string may end with,
// as hours east of UTC.
var zoneAbbreviations = map[string]float64{
	"UTC": 0, "UT": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 1, "BST": 1, "CET": 1, "CEST": 2, "MET": 1, "MEST": 2,
	"EET": 2, "EEST": 3, "MSK": 3, "IST": 5.5, "JST": 9, "KST": 9, "HKT": 8, "AWST": 8, "ACST": 9.5, "ACDT": 10.5,
	"AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7,
	"MDT": -6, "PST": -8, "PDT": -7, "AKST": -9, "AKDT": -8, "HST": -10, "AST": -4, "ADT": -3, "NST": -3.5, "NDT": -2.5,
}

// militaryZone is the offset in hours of a one-letter military zone.
func militaryZone(c byte) (int, bool) {
	switch {
	case c >= 'A' && c <= 'I':
		return int(c-'A') + 1, true
	case c >= 'K' && c <= 'M':
		return int(c-'K') + 10, true
	case c >= 'N' && c <= 'Y':
		return -int(c-'N') - 1, true
	case c == 'Z':
		return 0, true
	}
	return 0, false
}

// offset reads "+hh", "+hhmm", "+hh:mm" or "+h" as seconds east of UTC.
func (sc *dateScanner) offset() (int, bool) {
	sign := 1
	switch sc.peek() {
	case '-':
		sign = -1
	case '+':
	default:
		return 0, false
	}
	sc.i++
	h, digits, ok := sc.number(4)
	if !ok {
		return 0, false
	}
	m := 0
	switch digits {
	case 3, 4:
		h, m = h/100, h%100
	default:
		if sc.peek() == ':' {
			sc.i++
			if m, digits, ok = sc.number(2); !ok || digits != 2 {
				return 0, false
			}
		}
	}
	if h > 99 || m > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60), true
}

// zone reads a zone: an offset, GMT or UTC with or without an offset, an
// abbreviation or a military letter.
func (sc *dateScanner) zone(p *parsedDate) error {
	start := sc.i
	sc.skipSpace()
	begin := sc.i
	notFound := func() error { return conversionError(sc.s, begin, "The timezone could not be found in the database") }
	// offsetZone reads the offset at the scanner's position, the end of
	// the zone.
	offsetZone := func() error {
		off, ok := sc.offset()
		if !ok {
			return notFound()
		}
		p.setOffsetZone(sc.s[begin:sc.i], off)
		return nil
	}
	if c := sc.peek(); c == '+' || c == '-' {
		return offsetZone()
	}
	w := sc.word()
	if sc.peek() == '/' || sc.peek() == '_' || w == "" {
		sc.i = start
		return notFound()
	}
	up := strings.ToUpper(w)
	if c := sc.peek(); (up == "GMT" || up == "UTC") && (c == '+' || c == '-') {
		return offsetZone()
	}
	hours, ok := zoneAbbreviations[up]
	if !ok && len(up) == 1 {
		var mh int
		mh, ok = militaryZone(up[0])
		hours = float64(mh)
	}
	if !ok {
		return notFound()
	}
	p.zone, p.zoneText = time.FixedZone(up, int(hours*3600)), w
	return nil
}

// clock reads a time of day: "11:56", "11:56:02", "11:56.02", with a
// fraction of a second, and "11am", "11:30 pm".
func (sc *dateScanner) clock(p *parsedDate) error {
	bad := func() error { return conversionError(sc.s, sc.i, "Unexpected character") }
	h, _, ok := sc.number(2)
	if !ok {
		return bad()
	}
	m, s, nanos := 0, 0, 0
	if sc.peek() == ':' || sc.peek() == '.' {
		sc.i++
		if m, _, ok = sc.number(2); !ok {
			return bad()
		}
		if c := sc.peek(); c == ':' || c == '.' {
			sc.i++
			if s, _, ok = sc.number(2); !ok {
				return bad()
			}
			if c := sc.peek(); c == '.' || c == ',' {
				sc.i++
				if nanos, ok = sc.fraction(9); !ok {
					return bad()
				}
			}
		}
	}
	save := sc.i
	sc.skipSpace()
	switch w := strings.ToLower(strings.ReplaceAll(sc.word(), ".", "")); w {
	case "am", "pm":
		if h < 1 || h > 12 {
			return conversionError(sc.s, save, "The parsed time was invalid")
		}
		h %= 12
		if w == "pm" {
			h += 12
		}
	default:
		sc.i = save
	}
	p.hour, p.minute, p.second, p.nanos = h, m, s, nanos
	return nil
}
