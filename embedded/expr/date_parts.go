package expr

import (
	"math"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The date expression operators that read or build a date from its
// parts: $year, $month, $dayOfMonth, $hour, $minute, $second,
// $millisecond, $dayOfWeek, $dayOfYear, $week, $isoWeek, $isoWeekYear,
// $isoDayOfWeek, $dateToString, $dateFromParts and $dateToParts.

// compileDatePart is the operators of one part of a date, $year to
// $isoDayOfWeek: date, [date] or {date, timezone}.
func compileDatePart(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	arg := v
	var tz *Expr
	if v.Type == bsoncore.TypeEmbeddedDocument {
		d := bsoncore.Document(v.Data)
		if dv, err := d.LookupErr("date"); err == nil {
			arg = dv
			if t, err := d.LookupErr("timezone"); err == nil {
				if tz, err = Compile(t, vars); err != nil {
					return nil, err
				}
			}
		}
	}
	if arg.Type == bsoncore.TypeArray {
		vals := bsonval.ArrayValues(arg)
		if len(vals) == 1 {
			arg = vals[0]
		}
	}
	e, err := Compile(arg, vars)
	if err != nil {
		return nil, err
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		d, err := e.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		if Nullish(d) {
			return bsonval.Null(), nil
		}
		t, ok := dateOf(d)
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(16006), "can't convert from BSON type %s to Date", bsonval.TypeName(d.Type))
		}
		if tz != nil {
			zv, err := tz.Eval(root, local)
			if err != nil {
				return bsonval.Missing, err
			}
			loc, err := zoneValue(zv)
			if err != nil {
				return bsonval.Missing, err
			}
			if loc == nil {
				return bsonval.Null(), nil
			}
			t = t.In(loc)
		}
		return bsonval.Int32(int32(datePart(op, t))), nil
	}}, nil
}

// toStringSpecifiers are the format specifiers $dateToString writes.
const toStringSpecifiers = "bBdGHjLmMSuUVwYzZ%"

// compileDateToString is $dateToString: {date, format, timezone, onNull}.
// A null date gives onNull (null without it); a null timezone or format
// gives null; a format that is not a string or has an unknown specifier,
// and a timezone that is not a string or names no zone, are errors.
func compileDateToString(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	a, err := dateOperands(op, v, vars, dateSyntax{required: []string{"date"}, optional: []string{"format", "timezone", "onNull"},
		notObject: 18629, unknown: 18534, missing: 18628})
	if err != nil {
		return nil, err
	}
	onNull := a["onNull"]
	delete(a, "onNull")
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		n, err := a.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		format, fv := "%Y-%m-%dT%H:%M:%S.%LZ", n.v["format"]
		if n.given["format"] && !Nullish(fv) {
			if fv.Type != bsoncore.TypeString {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(18533), "$dateToString requires that 'format' be a string, found: %s with value %s", bsonval.TypeName(fv.Type), bsonval.Shell(fv))
			}
			format = fv.StringValue()
			if err := validateFormat(format, toStringSpecifiers); err != nil {
				return bsonval.Missing, err
			}
		}
		if dv := n.v["date"]; Nullish(dv) {
			if onNull != nil {
				return onNull.Eval(root, local)
			}
			return bsonval.Null(), nil
		}
		t, ok := dateOf(n.v["date"])
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(16006), "can't convert from BSON type %s to Date", bsonval.TypeName(n.v["date"].Type))
		}
		loc, err := zoneArg(n)
		if err != nil {
			return bsonval.Missing, err
		}
		if loc == nil || n.null("format") {
			return bsonval.Null(), nil
		}
		return bsonval.String(formatDate(format, t.In(loc))), nil
	}}, nil
}

func location(name string) (*time.Location, error) {
	if name == "" || name == "UTC" || name == "GMT" || name == "Z" {
		return time.UTC, nil
	}
	if name[0] == '+' || name[0] == '-' {
		s := strings.ReplaceAll(name[1:], ":", "")
		if len(s) == 2 {
			s += "00"
		}
		if len(s) == 4 {
			h, e1 := strconv.Atoi(s[:2])
			m, e2 := strconv.Atoi(s[2:])
			if e1 == nil && e2 == nil {
				off := (h*60 + m) * 60
				if name[0] == '-' {
					off = -off
				}
				return time.FixedZone(name, off), nil
			}
		}
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, mongoerr.New(mongoerr.Location(40485), "unrecognized time zone identifier: \"%s\"", name)
	}
	return loc, nil
}

func datePart(op string, t time.Time) int {
	switch op {
	case "$year":
		return t.Year()
	case "$month":
		return int(t.Month())
	case "$dayOfMonth":
		return t.Day()
	case "$hour":
		return t.Hour()
	case "$minute":
		return t.Minute()
	case "$second":
		return t.Second()
	case "$millisecond":
		return t.Nanosecond() / 1e6
	case "$dayOfWeek":
		return int(t.Weekday()) + 1
	case "$dayOfYear":
		return t.YearDay()
	case "$week":
		// weeks begin on Sunday; days before the first Sunday are week 0
		return (t.YearDay() + 6 - int(t.Weekday())) / 7
	case "$isoWeek":
		_, w := t.ISOWeek()
		return w
	case "$isoWeekYear":
		y, _ := t.ISOWeek()
		return y
	case "$isoDayOfWeek":
		d := int(t.Weekday())
		if d == 0 {
			d = 7
		}
		return d
	}
	return 0
}

func formatDate(f string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			b.WriteString(pad(t.Year(), 4))
		case 'm':
			b.WriteString(pad(int(t.Month()), 2))
		case 'd':
			b.WriteString(pad(t.Day(), 2))
		case 'H':
			b.WriteString(pad(t.Hour(), 2))
		case 'M':
			b.WriteString(pad(t.Minute(), 2))
		case 'S':
			b.WriteString(pad(t.Second(), 2))
		case 'L':
			b.WriteString(pad(t.Nanosecond()/1e6, 3))
		case 'j':
			b.WriteString(pad(t.YearDay(), 3))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday()) + 1))
		case 'u':
			b.WriteString(strconv.Itoa(datePart("$isoDayOfWeek", t)))
		case 'U':
			b.WriteString(pad(datePart("$week", t), 2))
		case 'V':
			b.WriteString(pad(datePart("$isoWeek", t), 2))
		case 'G':
			b.WriteString(pad(datePart("$isoWeekYear", t), 4))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			_, off := t.Zone()
			b.WriteString(strconv.Itoa(off / 60))
		case 'b':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

func pad(n, w int) string {
	s := strconv.Itoa(n)
	for len(s) < w {
		s = "0" + s
	}
	return s
}

func dateOf(v bsoncore.Value) (time.Time, bool) {
	switch v.Type {
	case bsoncore.TypeDateTime:
		return time.UnixMilli(v.DateTime()).UTC(), true
	case bsoncore.TypeObjectID:
		id := v.ObjectID()
		return time.Unix(int64(uint32(id[0])<<24|uint32(id[1])<<16|uint32(id[2])<<8|uint32(id[3])), 0).UTC(), true
	case bsoncore.TypeTimestamp:
		t, _ := v.Timestamp()
		return time.Unix(int64(t), 0).UTC(), true
	}
	return time.Time{}, false
}

// $dateFromParts.

// datePartBound is the range of month, day, hour, minute, isoWeek and
// isoDayOfWeek.
const datePartBound = 32767

func compileDateFromParts(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	a, err := dateOperands(op, v, vars, dateSyntax{
		optional:  []string{"year", "month", "day", "hour", "minute", "second", "millisecond", "isoWeekYear", "isoWeek", "isoDayOfWeek", "timezone"},
		notObject: 40519, unknown: 40518})
	if err != nil {
		return nil, err
	}
	iso := a["isoWeekYear"] != nil
	switch {
	case a["year"] == nil && !iso:
		return nil, mongoerr.New(mongoerr.Location(40516), "$dateFromParts requires either 'year' or 'isoWeekYear' to be present")
	case a["year"] != nil && (iso || a["isoWeek"] != nil || a["isoDayOfWeek"] != nil):
		return nil, mongoerr.New(mongoerr.Location(40489), "$dateFromParts does not allow mixing natural dates with ISO dates")
	case iso && (a["month"] != nil || a["day"] != nil):
		return nil, mongoerr.New(mongoerr.Location(40525), "$dateFromParts does not allow mixing ISO dates with natural dates")
	}
	var order []string
	if iso {
		order = []string{"isoWeekYear", "isoWeek", "isoDayOfWeek"}
	} else {
		order = []string{"year", "month", "day"}
	}
	order = append(order, "hour", "minute", "second", "millisecond")
	return a.expr(func(n dateValues) (bsoncore.Value, error) {
		parts, null, err := dateFromPartsValues(n, order)
		if err != nil {
			return bsonval.Missing, err
		}
		loc, err := zoneArg(n)
		if err != nil {
			return bsonval.Missing, err
		}
		if null || loc == nil {
			return bsonval.Null(), nil
		}
		// seconds and milliseconds carry into the wall clock
		sec := parts["second"] + floorDiv(parts["millisecond"], 1000)
		msec := parts["millisecond"] - floorDiv(parts["millisecond"], 1000)*1000
		var t time.Time
		if iso {
			y := int(parts["isoWeekYear"])
			jan4 := time.Date(y, time.January, 4, 0, 0, 0, 0, time.UTC)
			monday := 4 - (int(jan4.Weekday())+6)%7
			day := monday + int(parts["isoWeek"]-1)*7 + int(parts["isoDayOfWeek"]-1)
			t = time.Date(y, time.January, day, int(parts["hour"]), int(parts["minute"]), int(sec), int(msec)*1e6, loc)
		} else {
			t = time.Date(int(parts["year"]), time.Month(parts["month"]), int(parts["day"]), int(parts["hour"]), int(parts["minute"]), int(sec), int(msec)*1e6, loc)
		}
		ms, ok := timeMillis(t)
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(159), "Overflow casting from a lower-precision duration to a higher-precision duration")
		}
		return bsonval.DateTime(ms), nil
	}), nil
}

// dateFromPartsValues checks the evaluated parts of $dateFromParts named
// in order and gives them, with the defaults of those absent; null when
// a part given is null or missing.
func dateFromPartsValues(n dateValues, order []string) (parts map[string]int64, null bool, err error) {
	parts = map[string]int64{"month": 1, "day": 1, "isoWeek": 1, "isoDayOfWeek": 1}
	for _, k := range order {
		if !n.given[k] {
			continue
		}
		pv := n.v[k]
		if Nullish(pv) {
			null = true
			continue
		}
		x, ok := integral64(pv)
		if !ok {
			return nil, false, mongoerr.New(mongoerr.Location(40515), "'%s' must evaluate to an integer, found %s with value %s", k, bsonval.TypeName(pv.Type), bsonval.Shell(pv))
		}
		switch k {
		case "year", "isoWeekYear":
			if x < 1 || x > 9999 {
				code := int32(40523)
				if k == "isoWeekYear" {
					code = 31095
				}
				return nil, false, mongoerr.New(mongoerr.Location(code), "'%s' must evaluate to an integer in the range 1 to 9999, found %d", k, x)
			}
		case "second", "millisecond":
			if x > math.MaxInt64/1000 || x < math.MinInt64/1000 {
				return nil, false, mongoerr.New(mongoerr.Location(159), "Overflow casting from a lower-precision duration to a higher-precision duration")
			}
		default:
			if x < -datePartBound-1 || x > datePartBound {
				return nil, false, mongoerr.New(mongoerr.Location(31034), "'%s' must evaluate to a value in the range [-32768, 32767]; value %d is not in range", k, x)
			}
		}
		parts[k] = x
	}
	return parts, null, nil
}

// $dateToParts.

func compileDateToParts(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	syn := dateSyntax{required: []string{"date"}, optional: []string{"timezone", "iso8601"}, notObject: 40524, unknown: 40520, missing: 40522}
	return compileDateOp(op, v, vars, syn, func(n dateValues) (bsoncore.Value, error) {
		loc, err := zoneArg(n)
		if err != nil || loc == nil {
			return bsonval.Null(), err
		}
		iso := false
		if n.given["iso8601"] {
			iv := n.v["iso8601"]
			if Nullish(iv) {
				return bsonval.Null(), nil
			}
			if iv.Type != bsoncore.TypeBoolean {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(40521), "iso8601 must evaluate to a bool, found %s", bsonval.TypeName(iv.Type))
			}
			iso = iv.Boolean()
		}
		dv := n.v["date"]
		if Nullish(dv) {
			return bsonval.Null(), nil
		}
		ms, ok := dateMillis(dv)
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(16006), "can't convert from BSON type %s to Date", bsonval.TypeName(dv.Type))
		}
		t := time.UnixMilli(ms).In(loc)
		b := bsoncore.NewDocumentBuilder()
		if iso {
			y, w := t.ISOWeek()
			b.AppendInt32("isoWeekYear", int32(y)).AppendInt32("isoWeek", int32(w)).
				AppendInt32("isoDayOfWeek", int32(datePart("$isoDayOfWeek", t)))
		} else {
			b.AppendInt32("year", int32(t.Year())).AppendInt32("month", int32(t.Month())).AppendInt32("day", int32(t.Day()))
		}
		b.AppendInt32("hour", int32(t.Hour())).AppendInt32("minute", int32(t.Minute())).
			AppendInt32("second", int32(t.Second())).AppendInt32("millisecond", int32(t.Nanosecond()/1e6))
		return bsonval.Doc(b.Build()), nil
	})
}
