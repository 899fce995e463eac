package expr

import (
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The date expression operators that take named arguments: $dateAdd,
// $dateSubtract, $dateDiff and $dateTrunc here, $dateFromParts and
// $dateToParts in date_parts.go, $dateFromString in
// date_parse.go. Calendar arithmetic happens on the wall clock of the
// timezone argument (UTC when there is none), which is an Olson name or
// a UTC offset "+hh:mm", "+hhmm" or "+hh". A null or missing argument
// makes the result null, as the manual lists for each operator.

// dateArgs are the compiled fields of an operator's object argument.
type dateArgs map[string]*Expr

// dateSyntax is what a date operator's object argument holds: the names
// it requires and those it may have, and MongoDB's error codes for an
// argument that is not an object, for an unknown name and for a missing
// required one (that of the first required name; the next count up).
type dateSyntax struct {
	required, optional          []string
	notObject, unknown, missing int32
}

// dateOperands compiles date operator op's object argument v, as syn
// says.
func dateOperands(op string, v bsoncore.Value, vars *Vars, syn dateSyntax) (dateArgs, error) {
	a, err := namedArgs(v, vars, nil, func() error {
		return mongoerr.New(mongoerr.Location(syn.notObject), "%s only supports an object as its argument", op)
	}, func(k string) error {
		return mongoerr.New(mongoerr.Location(syn.unknown), "Unrecognized argument to %s: %s", op, k)
	}, slices.Concat(syn.required, syn.optional)...)
	if err != nil {
		return nil, err
	}
	for i, k := range syn.required {
		if a[k] == nil {
			return nil, mongoerr.New(mongoerr.Location(syn.missing+int32(i)), "Missing '%s' parameter to %s", k, op)
		}
	}
	return a, nil
}

// compileDateOp compiles date operator op, of the arguments syn says,
// into the expression that evaluates them, then eval of their values.
func compileDateOp(op string, v bsoncore.Value, vars *Vars, syn dateSyntax, eval func(n dateValues) (bsoncore.Value, error)) (*Expr, error) {
	a, err := dateOperands(op, v, vars, syn)
	if err != nil {
		return nil, err
	}
	return a.expr(eval), nil
}

// expr is the expression that evaluates the arguments, then eval of
// their values.
func (a dateArgs) expr(eval func(n dateValues) (bsoncore.Value, error)) *Expr {
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		n, err := a.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		return eval(n)
	}}
}

// dateValues are the evaluated arguments; given tells which were present.
type dateValues struct {
	v     map[string]bsoncore.Value
	given map[string]bool
}

func (a dateArgs) Eval(root bsoncore.Document, local map[string]bsoncore.Value) (dateValues, error) {
	out := dateValues{v: map[string]bsoncore.Value{}, given: map[string]bool{}}
	for k, e := range a {
		r, err := e.Eval(root, local)
		if err != nil {
			return out, err
		}
		out.v[k] = r
		out.given[k] = true
	}
	return out, nil
}

// null reports whether a present argument is null or missing.
func (n dateValues) null(k string) bool { return n.given[k] && Nullish(n.v[k]) }

// anyNull reports whether a present argument is null or missing,
// startOfWeek counting only with a week unit: what makes $dateDiff and
// $dateTrunc null.
func (n dateValues) anyNull() bool {
	for k := range n.given {
		if n.null(k) && (k != "startOfWeek" || isWeekUnit(n.v["unit"])) {
			return true
		}
	}
	return false
}

var zoneCache sync.Map // name -> *time.Location

// zoneNamed is the time zone a timezone string names.
func zoneNamed(name string) (*time.Location, error) {
	if l, ok := zoneCache.Load(name); ok {
		return l.(*time.Location), nil
	}
	bad := mongoerr.New(mongoerr.Location(40485), "unrecognized time zone identifier: \"%s\"", name)
	if name == "Local" || strings.ContainsAny(name, "\x00\\") || len(name) > 64 {
		return nil, bad
	}
	if name != "" && (name[0] == '+' || name[0] == '-') {
		s := name[1:]
		if len(s) == 5 && s[2] == ':' {
			s = s[:2] + s[3:]
		}
		if (len(s) != 2 && len(s) != 4) || strings.Trim(s, "0123456789") != "" {
			return nil, bad
		}
	}
	loc, err := location(name)
	if err != nil {
		return nil, err
	}
	zoneCache.Store(name, loc)
	return loc, nil
}

// zoneArg is the time zone of a timezone argument: UTC when it is absent,
// nil without an error when it is null or missing.
func zoneArg(n dateValues) (*time.Location, error) {
	if !n.given["timezone"] {
		return time.UTC, nil
	}
	return zoneValue(n.v["timezone"])
}

// zoneValue is the time zone a timezone argument's value names: nil
// without an error when it is null or missing; a string or an error.
func zoneValue(v bsoncore.Value) (*time.Location, error) {
	if Nullish(v) {
		return nil, nil
	}
	if v.Type != bsoncore.TypeString {
		return nil, mongoerr.New(mongoerr.Location(40517), "timezone must evaluate to a string, found %s", bsonval.TypeName(v.Type))
	}
	return zoneNamed(v.StringValue())
}

// dateMillis is a Date, Timestamp or ObjectId as milliseconds since the
// epoch.
func dateMillis(v bsoncore.Value) (int64, bool) {
	if v.Type == bsoncore.TypeDateTime {
		return v.DateTime(), true
	}
	t, ok := dateOf(v)
	if !ok {
		return 0, false
	}
	return t.UnixMilli(), true
}

// integral64 is a number with an integral value that fits in 64 bits.
func integral64(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return bsonval.IntOf(v)
	case bsoncore.TypeDouble:
		f := v.Double()
		if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
			return 0, false
		}
		return int64(f), true
	case bsoncore.TypeDecimal128:
		r, _ := bsonval.BigOf(v)
		if r == nil || !r.IsInt() || !r.Num().IsInt64() {
			return 0, false
		}
		return r.Num().Int64(), true
	}
	return 0, false
}

// timeMillis is t as milliseconds since the epoch; false when that does
// not fit a date.
func timeMillis(t time.Time) (int64, bool) {
	s := t.Unix()
	if s >= math.MaxInt64/1000 || s <= math.MinInt64/1000 {
		return 0, false
	}
	return s*1000 + int64(t.Nanosecond()/1e6), true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// dayNumber is the number of days from 1970-01-01 to t's wall-clock date.
func dayNumber(t time.Time) int64 {
	y, m, d := t.Date()
	return floorDiv(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix(), 86400)
}

func daysIn(y int64, m time.Month) int {
	return time.Date(int(y), m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "sun": time.Sunday, "monday": time.Monday, "mon": time.Monday,
	"tuesday": time.Tuesday, "tue": time.Tuesday, "wednesday": time.Wednesday, "wed": time.Wednesday,
	"thursday": time.Thursday, "thu": time.Thursday, "friday": time.Friday, "fri": time.Friday,
	"saturday": time.Saturday, "sat": time.Saturday,
}

// startOfWeek reads the startOfWeek argument of $dateDiff or $dateTrunc
// (Sunday when absent), which only a week unit reads.
func startOfWeek(op, unit string, n dateValues) (time.Weekday, error) {
	if unit != "week" || !n.given["startOfWeek"] {
		return time.Sunday, nil
	}
	v := n.v["startOfWeek"]
	if v.Type != bsoncore.TypeString {
		return 0, mongoerr.New(mongoerr.Location(5439015), "%s requires 'startOfWeek' to be a string, but got %s", op, bsonval.TypeName(v.Type))
	}
	d, ok := weekdays[strings.ToLower(v.StringValue())]
	if !ok {
		return 0, mongoerr.New(mongoerr.Location(5439016), "%s parameter 'startOfWeek' value cannot be recognized as a day of a week: %s", op, v.StringValue())
	}
	return d, nil
}

// unitArg reads the unit argument of $dateDiff or $dateTrunc.
func unitArg(op string, v bsoncore.Value) (string, error) {
	if v.Type != bsoncore.TypeString {
		return "", mongoerr.New(mongoerr.Location(5439013), "%s requires 'unit' to be a string, but got %s", op, bsonval.TypeName(v.Type))
	}
	u := v.StringValue()
	if !bsonval.IsTimeUnit(u) {
		return "", mongoerr.New(mongoerr.Location(5439014), "%s parameter 'unit' value cannot be recognized as a time unit: %s", op, u)
	}
	return u, nil
}

// isWeekUnit reports whether a unit argument is the string "week".
func isWeekUnit(v bsoncore.Value) bool {
	return v.Type == bsoncore.TypeString && v.StringValue() == "week"
}

// $dateAdd and $dateSubtract.

// maxAddAmount bounds the amount of each calendar unit: more of the
// shortest such unit than a date can span.
var maxAddAmount = map[string]int64{
	"day": math.MaxInt64 / (24 * 3600 * 1000), "week": math.MaxInt64 / (7 * 24 * 3600 * 1000),
	"month": math.MaxInt64 / (28 * 24 * 3600 * 1000), "quarter": math.MaxInt64 / (89 * 24 * 3600 * 1000),
	"year": math.MaxInt64 / (365 * 24 * 3600 * 1000),
}

func compileDateArith(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	a, err := namedArgs(v, vars, nil, func() error {
		return mongoerr.New(mongoerr.Location(5166400), "%s expects an object as its argument", op)
	}, func(k string) error {
		return mongoerr.New(mongoerr.Location(5166401), "Unrecognized argument to %s: %s. Expected arguments are startDate, unit, amount, and optionally timezone.", op, k)
	}, "startDate", "unit", "amount", "timezone")
	if err != nil {
		return nil, err
	}
	if a["startDate"] == nil || a["unit"] == nil || a["amount"] == nil {
		return nil, mongoerr.New(mongoerr.Location(5166402), "%s requires startDate, unit, and amount to be specified", op)
	}
	return dateArgs(a).expr(func(n dateValues) (bsoncore.Value, error) {
		if n.null("startDate") || n.null("unit") || n.null("amount") {
			return bsonval.Null(), nil
		}
		loc, err := zoneArg(n)
		if err != nil || loc == nil {
			return bsonval.Null(), err
		}
		start, ok := dateMillis(n.v["startDate"])
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5166403), "%s requires startDate to be convertible to a date", op)
		}
		uv := n.v["unit"]
		if uv.Type != bsoncore.TypeString {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5166404), "%s expects string defining the time unit", op)
		}
		unit := uv.StringValue()
		if !bsonval.IsTimeUnit(unit) {
			return bsonval.Missing, mongoerr.New(mongoerr.FailedToParse, "unknown time unit value: %s", unit)
		}
		amount, ok := integral64(n.v["amount"])
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5166405), "%s expects integer amount of time units", op)
		}
		if op == "$dateSubtract" {
			if amount == math.MinInt64 {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(6045000), "invalid %s 'amount' parameter value: %d %s", op, amount, unit)
			}
			amount = -amount
		}
		if limit := maxAddAmount[unit]; limit != 0 && (amount > limit || amount < -limit) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5976500), "invalid %s 'amount' parameter value: %d %s", op, amount, unit)
		}
		r, ok := dateAdd(start, unit, amount, loc)
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5166406), "%s overflowed", op)
		}
		return bsonval.DateTime(r), nil
	}), nil
}

// dateAdd is ms plus n units: hours and shorter units as elapsed time,
// days and longer ones on loc's wall clock, the day of the month clamped
// to the last day of the resulting month. False when the result is
// outside the range of a date.
func dateAdd(ms int64, unit string, n int64, loc *time.Location) (int64, bool) {
	switch unit {
	case "millisecond", "second", "minute", "hour":
		u := bsonval.UnitMillis[unit]
		d := n * u
		if n != 0 && d/n != u {
			return 0, false
		}
		r := ms + d
		if (d > 0 && r < ms) || (d < 0 && r > ms) {
			return 0, false
		}
		return r, true
	}
	t := time.UnixMilli(ms).In(loc)
	y, m, d := t.Date()
	h, mi, s := t.Clock()
	var r time.Time
	switch unit {
	case "day", "week":
		if unit == "week" {
			n *= 7
		}
		r = time.Date(y, m, d+int(n), h, mi, s, t.Nanosecond(), loc)
	default:
		total := int64(y)*12 + int64(m-1) + n*bsonval.CalendarMonths[unit]
		ny := floorDiv(total, 12)
		nm := time.Month(total-ny*12) + 1
		r = time.Date(int(ny), nm, min(d, daysIn(ny, nm)), h, mi, s, t.Nanosecond(), loc)
	}
	return timeMillis(r)
}

// $dateDiff.

func compileDateDiff(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	syn := dateSyntax{required: []string{"startDate", "endDate", "unit"}, optional: []string{"timezone", "startOfWeek"},
		notObject: 5166301, unknown: 5166302, missing: 5166303}
	return compileDateOp(op, v, vars, syn, func(n dateValues) (bsoncore.Value, error) {
		if n.anyNull() {
			return bsonval.Null(), nil
		}
		var ends [2]int64
		for i, k := range []string{"startDate", "endDate"} {
			ms, ok := dateMillis(n.v[k])
			if !ok {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(5166307), "$dateDiff requires '%s' to be a date, but got %s", k, bsonval.TypeName(n.v[k].Type))
			}
			ends[i] = ms
		}
		unit, err := unitArg(op, n.v["unit"])
		if err != nil {
			return bsonval.Missing, err
		}
		loc, err := zoneArg(n)
		if err != nil {
			return bsonval.Missing, err
		}
		sow, err := startOfWeek(op, unit, n)
		if err != nil {
			return bsonval.Missing, err
		}
		d, ok := dateDiff(ends[0], ends[1], unit, loc, sow)
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(15), "$dateDiff overflowed")
		}
		return bsonval.Int64(d), nil
	})
}

// dateDiff counts the unit boundaries crossed from start to end on loc's
// wall clock. Hours, minutes and seconds are counted in elapsed time, with
// boundaries shifted by the part of loc's offset that is not a whole
// number of the unit (a +05:30 zone's hours begin at half past the UTC
// hour), so a daylight saving change neither adds nor drops an hour.
func dateDiff(start, end int64, unit string, loc *time.Location, sow time.Weekday) (int64, bool) {
	if unit == "millisecond" {
		d := end - start
		if (end >= 0) != (start >= 0) && (d >= 0) != (end >= 0) {
			return 0, false
		}
		return d, true
	}
	a, b := time.UnixMilli(start).In(loc), time.UnixMilli(end).In(loc)
	switch unit {
	case "second", "minute", "hour":
		u := bsonval.UnitMillis[unit] / 1000
		idx := func(t time.Time, ms int64) int64 {
			_, off := t.Zone()
			shift := ((int64(off) % u) + u) % u
			return floorDiv(floorDiv(ms, 1000)+shift, u)
		}
		return idx(b, end) - idx(a, start), true
	case "day":
		return dayNumber(b) - dayNumber(a), true
	case "week":
		// 1970-01-01 was a Thursday
		idx := func(t time.Time) int64 { return floorDiv(dayNumber(t)+4-int64(sow), 7) }
		return idx(b) - idx(a), true
	}
	months := func(t time.Time) int64 { return int64(t.Year())*12 + int64(t.Month()-1) }
	return floorDiv(months(b), bsonval.CalendarMonths[unit]) - floorDiv(months(a), bsonval.CalendarMonths[unit]), true
}

// $dateTrunc.

func compileDateTrunc(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	syn := dateSyntax{required: []string{"date", "unit"}, optional: []string{"binSize", "timezone", "startOfWeek"},
		notObject: 5439007, unknown: 5439008, missing: 5439009}
	return compileDateOp(op, v, vars, syn, func(n dateValues) (bsoncore.Value, error) {
		if n.anyNull() {
			return bsonval.Null(), nil
		}
		ms, ok := dateMillis(n.v["date"])
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5439012), "$dateTrunc requires 'date' to be a date, but got %s", bsonval.TypeName(n.v["date"].Type))
		}
		unit, err := unitArg(op, n.v["unit"])
		if err != nil {
			return bsonval.Missing, err
		}
		sow, err := startOfWeek(op, unit, n)
		if err != nil {
			return bsonval.Missing, err
		}
		bin := int64(1)
		if n.given["binSize"] {
			bv := n.v["binSize"]
			if bin, ok = integral64(bv); !ok {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(5439017), "$dateTrunc requires 'binSize' to be a 64-bit integer, but got value '%s' of type %s", bsonval.Shell(bv), bsonval.TypeName(bv.Type))
			}
			if bin <= 0 {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(5439018), "$dateTrunc requires 'binSize' to be greater than 0, but got value %d", bin)
			}
		}
		loc, err := zoneArg(n)
		if err != nil {
			return bsonval.Missing, err
		}
		r, ok := dateTrunc(ms, unit, bin, loc, sow)
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(159), "$dateTrunc: the truncated date is outside the range of a date")
		}
		return bsonval.DateTime(r), nil
	})
}

// dateTrunc is the start of the bin of bin units that holds ms. Bins are
// counted from 2000-01-01T00:00 on loc's wall clock (for weeks, from the
// first sow on or after that day): calendar units on the wall clock,
// hours and shorter units in elapsed time.
func dateTrunc(ms int64, unit string, bin int64, loc *time.Location, sow time.Weekday) (int64, bool) {
	// Any bin wider than this holds every date from the reference on.
	const wide = 1 << 40
	t := time.UnixMilli(ms).In(loc)
	var r time.Time
	switch unit {
	case "year", "quarter", "month":
		months := (int64(t.Year())-2000)*12 + int64(t.Month()-1)
		k := bsonval.CalendarMonths[unit]
		bin = min(bin, wide)
		n := floorDiv(floorDiv(months, k), bin) * bin * k
		r = time.Date(2000, time.January+time.Month(n), 1, 0, 0, 0, 0, loc)
	case "week", "day":
		ref := int64(10957) // 2000-01-01, a Saturday
		size := min(bin, wide)
		if unit == "week" {
			ref += (int64(sow) - int64(time.Saturday) + 7) % 7
			size *= 7
		}
		n := floorDiv(dayNumber(t)-ref, size) * size
		r = time.Date(1970, time.January, 1+int(ref+n), 0, 0, 0, 0, loc)
	default:
		ref := time.Date(2000, time.January, 1, 0, 0, 0, 0, loc).UnixMilli()
		if ms < math.MinInt64+ref {
			return 0, false
		}
		diff := ms - ref
		size := bin * bsonval.UnitMillis[unit]
		if size/bsonval.UnitMillis[unit] != bin {
			// a bin wider than the range of a date
			if diff >= 0 {
				return ref, true
			}
			return 0, false
		}
		q := floorDiv(diff, size)
		n := q * size
		if q != 0 && n/q != size {
			return 0, false
		}
		r := ref + n
		if (n < 0 && r > ref) || (n > 0 && r < ref) {
			return 0, false
		}
		return r, true
	}
	return timeMillis(r)
}
