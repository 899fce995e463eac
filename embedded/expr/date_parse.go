package expr

import (
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// $dateFromString, and the reading of date strings with a format or
// without one.

// fromStringSpecifiers are the format specifiers $dateFromString reads.
const fromStringSpecifiers = "bBdGHjLmMSuVYzZ%"

// validateFormat refuses a format with a specifier not in specifiers, or
// a '%' that ends it.
func validateFormat(f, specifiers string) error {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		if i+1 == len(f) {
			return mongoerr.New(mongoerr.Location(18535), "Unmatched '%%' at end of format string")
		}
		i++
		if !strings.ContainsRune(specifiers, rune(f[i])) {
			return mongoerr.New(mongoerr.Location(18536), "Invalid format character '%%%c' in format string", f[i])
		}
	}
	return nil
}

func compileDateFromString(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(40540), "$dateFromString only supports an object as an argument, found: %s", bsonval.TypeName(v.Type))
	}
	a, err := dateOperands(op, v, vars, dateSyntax{required: []string{"dateString"}, optional: []string{"format", "timezone", "onError", "onNull"},
		notObject: 40540, unknown: 40541, missing: 40542})
	if err != nil {
		return nil, err
	}
	onError, onNull := a["onError"], a["onNull"]
	delete(a, "onError")
	delete(a, "onNull")
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		n, err := a.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		fv := n.v["format"]
		if n.given["format"] && !Nullish(fv) {
			if fv.Type != bsoncore.TypeString {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(40684), "$dateFromString requires that 'format' be a string, found: %s with value %s", bsonval.TypeName(fv.Type), bsonval.Shell(fv))
			}
			if err := validateFormat(fv.StringValue(), fromStringSpecifiers); err != nil {
				return bsonval.Missing, err
			}
		}
		loc, err := zoneArg(n)
		if err != nil {
			return bsonval.Missing, err
		}
		ds := n.v["dateString"]
		if Nullish(ds) {
			if onNull != nil {
				return onNull.Eval(root, local)
			}
			return bsonval.Null(), nil
		}
		fail := func(err error) (bsoncore.Value, error) {
			if onError != nil {
				return onError.Eval(root, local)
			}
			return bsonval.Missing, err
		}
		if ds.Type != bsoncore.TypeString {
			return fail(mongoerr.New(mongoerr.Location(241), "$dateFromString requires that 'dateString' be a string, found: %s with value %s", bsonval.TypeName(ds.Type), bsonval.Shell(ds)))
		}
		if loc == nil || (n.given["format"] && Nullish(fv)) {
			return bsonval.Null(), nil
		}
		s := ds.StringValue()
		var pd *parsedDate
		if n.given["format"] {
			pd, err = parseDateFormat(s, fv.StringValue())
		} else {
			pd, err = parseDateDefault(s)
		}
		if err != nil {
			return fail(err)
		}
		ms, err := pd.millis(s, loc, n.given["timezone"])
		if err != nil {
			return fail(err)
		}
		return bsonval.DateTime(ms), nil
	}}, nil
}

// parsedDate is what a date string says; fields not given are -1.
type parsedDate struct {
	year, month, day, yday      int
	isoYear, isoWeek, isoDay    int
	hour, minute, second, nanos int
	zone                        *time.Location
	zoneOffset                  bool // the zone was written as an offset from UTC
	zoneText                    string
	natural, isoFields          bool
}

// setOffsetZone makes the date's zone the offset from UTC (seconds east)
// written as text.
func (p *parsedDate) setOffsetZone(text string, seconds int) {
	p.zone, p.zoneOffset, p.zoneText = time.FixedZone(text, seconds), true, text
}

func newParsedDate() *parsedDate {
	return &parsedDate{year: -1, month: -1, day: -1, yday: -1, isoYear: -1, isoWeek: -1, isoDay: -1, hour: -1, minute: -1, second: -1}
}

// conversionError is a date string that cannot be read.
func conversionError(s string, pos int, msg string) error {
	return mongoerr.New(mongoerr.Location(241), "Error parsing date string '%s'; %d: %s", s, pos, msg)
}

// millis is the date the parsed fields name, read on loc's wall clock
// unless the string names its own zone.
func (p *parsedDate) millis(s string, loc *time.Location, tzGiven bool) (int64, error) {
	if p.zone != nil {
		if tzGiven {
			if p.zoneOffset {
				return 0, mongoerr.New(mongoerr.Location(241), "you cannot pass in a date/time string with GMT offset together with a timezone argument")
			}
			return 0, mongoerr.New(mongoerr.Location(241), "you cannot pass in a date/time string with time zone information ('%s') together with a timezone argument", p.zoneText)
		}
		loc = p.zone
	}
	invalidDate := conversionError(s, 0, "The parsed date was invalid")
	y, m, d := p.year, p.month, p.day
	switch {
	case p.isoFields:
		if p.natural {
			return 0, conversionError(s, 0, "Mixing of ISO dates with natural dates is not allowed")
		}
		if p.isoYear < 0 {
			return 0, invalidDate
		}
		w, wd := max(p.isoWeek, 1), max(p.isoDay, 1)
		if p.isoWeek > 53 || p.isoWeek == 0 || p.isoDay > 7 || p.isoDay == 0 {
			return 0, invalidDate
		}
		jan4 := time.Date(p.isoYear, time.January, 4, 0, 0, 0, 0, time.UTC)
		t := jan4.AddDate(0, 0, -(int(jan4.Weekday())+6)%7+(w-1)*7+wd-1)
		y, m, d = t.Year(), int(t.Month()), t.Day()
	case p.yday >= 0:
		if y < 0 {
			return 0, incompleteDate(s)
		}
		if p.yday < 1 || p.yday > 366 || (p.yday == 366 && daysIn(int64(y), time.February) == 28) {
			return 0, invalidDate
		}
		t := time.Date(y, time.January, p.yday, 0, 0, 0, 0, time.UTC)
		m, d = int(t.Month()), t.Day()
	default:
		if y < 0 || m < 0 || d < 0 {
			return 0, incompleteDate(s)
		}
		if m < 1 || m > 12 || d < 1 || d > daysIn(int64(y), time.Month(m)) {
			return 0, invalidDate
		}
	}
	h, mi, sec := max(p.hour, 0), max(p.minute, 0), max(p.second, 0)
	if h > 23 || mi > 59 || sec > 59 {
		return 0, conversionError(s, 0, "The parsed time was invalid")
	}
	ms, ok := timeMillis(time.Date(y, time.Month(m), d, h, mi, sec, p.nanos, loc))
	if !ok {
		return 0, invalidDate
	}
	return ms, nil
}

// parseDateFormat reads s as format f says.
func parseDateFormat(s, f string) (*parsedDate, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(f, 0); i >= 0 {
		f = f[:i]
	}
	p := newParsedDate()
	sc := &dateScanner{s: s}
	for j := 0; j < len(f); j++ {
		if sc.done() {
			return nil, conversionError(s, sc.i, "Data missing")
		}
		if f[j] != '%' || j+1 >= len(f) {
			if sc.s[sc.i] != f[j] {
				return nil, conversionError(s, sc.i, "Format literal not found")
			}
			sc.i++
			continue
		}
		j++
		if err := sc.formatField(p, f[j]); err != nil {
			return nil, err
		}
	}
	if !sc.done() {
		return nil, conversionError(s, sc.i, "Trailing data")
	}
	return p, nil
}

// numberSpecifiers are the format specifiers of a number: the field of
// a parsedDate it fills, its most digits, what the error says is
// missing, and which kind of date it belongs to.
var numberSpecifiers = map[byte]struct {
	field  func(*parsedDate) *int
	digits int
	what   string
	kind   dateKind
}{
	'Y': {func(p *parsedDate) *int { return &p.year }, 4, "A four digit year", naturalDate},
	'm': {func(p *parsedDate) *int { return &p.month }, 2, "A two digit month", naturalDate},
	'd': {func(p *parsedDate) *int { return &p.day }, 2, "A two digit day", naturalDate},
	'j': {func(p *parsedDate) *int { return &p.yday }, 3, "A three digit day-of-year", naturalDate},
	'G': {func(p *parsedDate) *int { return &p.isoYear }, 4, "A four digit ISO year", isoDate},
	'V': {func(p *parsedDate) *int { return &p.isoWeek }, 2, "A two digit ISO week", isoDate},
	'u': {func(p *parsedDate) *int { return &p.isoDay }, 1, "A single digit day of week", isoDate},
	'H': {func(p *parsedDate) *int { return &p.hour }, 2, "A two digit hour", timeOfDay},
	'M': {func(p *parsedDate) *int { return &p.minute }, 2, "A two digit minute", timeOfDay},
	'S': {func(p *parsedDate) *int { return &p.second }, 2, "A two digit second", timeOfDay},
}

// dateKind is what a date field belongs to: a natural date (year, month,
// day), an ISO week date, or neither (the time of day). A date string
// may not mix the first two.
type dateKind uint8

const (
	timeOfDay dateKind = iota
	naturalDate
	isoDate
)

// formatField reads into p the field of format specifier c, which
// begins at the scanner's position.
func (sc *dateScanner) formatField(p *parsedDate, c byte) error {
	s, at := sc.s, sc.i
	if spec, ok := numberSpecifiers[c]; ok {
		n, _, ok := sc.number(spec.digits)
		if !ok {
			return conversionError(s, at, spec.what+" could not be found")
		}
		*spec.field(p) = n
		p.natural = p.natural || spec.kind == naturalDate
		p.isoFields = p.isoFields || spec.kind == isoDate
		return nil
	}
	var err error
	switch c {
	case 'b', 'B':
		m := monthNamed(sc.word(), c == 'B', c == 'b')
		if m == 0 {
			err = conversionError(s, at, "A textual month could not be found")
		}
		p.month, p.natural = m, true
	case 'L':
		var ok bool
		if p.nanos, ok = sc.fraction(3); !ok {
			err = conversionError(s, at, "A three digit millisecond could not be found")
		}
	case 'z':
		err = sc.zone(p)
	case 'Z':
		sign := 1
		switch sc.peek() {
		case '-':
			sign = -1
			sc.i++
		case '+':
			sc.i++
		}
		if mins, _, ok := sc.number(4); ok {
			p.setOffsetZone(s[at:sc.i], sign*mins*60)
		} else {
			err = conversionError(s, at, "A UTC offset in minutes could not be found")
		}
	case '%':
		if sc.s[sc.i] != '%' {
			err = conversionError(s, at, "Format literal not found")
		}
		sc.i++
	default:
		err = conversionError(s, at, "The format specifier is not supported")
	}
	return err
}

// parseDateDefault reads a date string without a format: an ISO 8601
// date ("2017-07-04", "2017-Jul-04", "2017/07/04"), "7/4/17" (month,
// day, year), "04-07-2017" or "04.07.2017" (day, month, year), or "July
// 4th, 2017"; then a time ("T" or spaces, then "11:56", "11:56:02",
// "11:56.02.813", "11am", "noon") and a zone ("Z", "+03:30", "GMT+02",
// "CEST").
func parseDateDefault(s string) (*parsedDate, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	p := newParsedDate()
	sc := &dateScanner{s: s}
	sc.skipSpace()
	var err error
	switch c := sc.peek(); {
	case c >= '0' && c <= '9':
		err = sc.numericDate(p)
	case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
		err = sc.monthNameDate(p)
	default:
		err = sc.unexpected()
	}
	if err != nil {
		return nil, err
	}
	p.natural = true
	if err := sc.defaultTimeAndZone(p); err != nil {
		return nil, err
	}
	return p, nil
}

// unexpected is the error for the character at the scanner's position.
func (sc *dateScanner) unexpected() error {
	return conversionError(sc.s, sc.i, "Unexpected character")
}

// incompleteDate is the error for a date string that has no date or no
// year.
func incompleteDate(s string) error {
	return mongoerr.New(mongoerr.Location(241), "an incomplete date/time string has been found, with elements missing: '%s'", s)
}

// numericDate reads a date that begins with a number: "2017-07-04",
// "2017-Jul-04", "2017/07/04", "7/4/17", "04-07-2017" or "04.07.2017". A
// time without a date is an incomplete date.
func (sc *dateScanner) numericDate(p *parsedDate) error {
	start := sc.i
	n1, d1, _ := sc.number(5)
	sep := sc.peek()
	switch {
	case sep == ':' || ((sep == 'a' || sep == 'p' || sep == 'A' || sep == 'P') && d1 <= 2):
		// a time without a date
		sc.i = start
		if err := sc.clock(p); err != nil {
			return err
		}
		return incompleteDate(sc.s)
	case d1 == 4 && (sep == '-' || sep == '/'):
		sc.i++
		p.year = n1
		if m := monthNamed(sc.word(), true, true); m != 0 {
			p.month = m
		} else if m, _, ok := sc.number(2); ok {
			p.month = m
		} else {
			return sc.unexpected()
		}
		if sc.peek() != sep {
			return sc.unexpected()
		}
		sc.i++
		d, _, ok := sc.number(2)
		if !ok {
			return sc.unexpected()
		}
		p.day = d
	case d1 <= 2 && (sep == '/' || sep == '-' || sep == '.'):
		sc.i++
		n2, _, ok := sc.number(2)
		if !ok || sc.peek() != sep {
			return sc.unexpected()
		}
		sc.i++
		y, dy, ok := sc.number(4)
		if !ok || dy == 3 {
			return sc.unexpected()
		}
		if dy <= 2 {
			y += 1900
			if y < 1970 {
				y += 100
			}
		}
		p.year = y
		if sep == '/' {
			p.month, p.day = n1, n2
		} else {
			p.day, p.month = n1, n2
		}
	default:
		return sc.unexpected()
	}
	return nil
}

// monthNameDate reads a date that begins with the name of its month:
// "July 4th, 2017", "Jul. 4 2017".
func (sc *dateScanner) monthNameDate(p *parsedDate) error {
	start := sc.i
	m := monthNamed(sc.word(), true, true)
	if m == 0 {
		sc.i = start
		return sc.unexpected()
	}
	p.month = m
	if sc.peek() == '.' {
		sc.i++
	}
	sc.skipSpace()
	d, _, ok := sc.number(2)
	if !ok {
		return sc.unexpected()
	}
	p.day = d
	if w := strings.ToLower(sc.word()); w != "" && w != "st" && w != "nd" && w != "rd" && w != "th" {
		return sc.unexpected()
	}
	if sc.peek() == ',' {
		sc.i++
	}
	sc.skipSpace()
	if sc.done() {
		return incompleteDate(sc.s)
	}
	y, _, ok := sc.number(4)
	if !ok {
		return sc.unexpected()
	}
	if c := sc.peek(); c >= '0' && c <= '9' {
		return sc.unexpected()
	}
	p.year = y
	return nil
}

// defaultTimeAndZone reads what may follow the date of a date string
// without a format: a time, then a zone, and nothing after them.
func (sc *dateScanner) defaultTimeAndZone(p *parsedDate) error {
	// the time
	if sc.peek() == 'T' || sc.peek() == 't' {
		sc.i++
		if err := sc.clock(p); err != nil {
			return err
		}
	} else {
		save := sc.i
		sc.skipSpace()
		if c := sc.peek(); c >= '0' && c <= '9' {
			if err := sc.clock(p); err != nil {
				return err
			}
		} else if w := strings.ToLower(sc.word()); w == "noon" || w == "midnight" {
			p.hour, p.minute, p.second = 0, 0, 0
			if w == "noon" {
				p.hour = 12
			}
		} else {
			sc.i = save
		}
	}
	// the zone
	save := sc.i
	sc.skipSpace()
	if !sc.done() {
		sc.i = save
		if err := sc.zone(p); err != nil {
			return err
		}
		sc.skipSpace()
	}
	if !sc.done() {
		return sc.unexpected()
	}
	return nil
}
