package engine

import (
	"math"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The date expression operators that take named arguments: $dateAdd,
// $dateSubtract, $dateDiff, $dateTrunc, $dateFromParts, $dateToParts and
// $dateFromString. Calendar arithmetic happens on the wall clock of the
// timezone argument (UTC when there is none), which is an Olson name or
// a UTC offset "+hh:mm", "+hhmm" or "+hh". A null or missing argument
// makes the result null, as the manual lists for each operator.
func init() {
	moreOps["$dateAdd"] = compileDateArith
	moreOps["$dateSubtract"] = compileDateArith
	moreOps["$dateDiff"] = compileDateDiff
	moreOps["$dateTrunc"] = compileDateTrunc
	moreOps["$dateFromParts"] = compileDateFromParts
	moreOps["$dateToParts"] = compileDateToParts
	moreOps["$dateFromString"] = compileDateFromString
}

// dateArgs are the compiled fields of an operator's object argument.
type dateArgs map[string]*expr

// compileNamed compiles the fields of d, each of which must be one of
// names; unknown makes the error for another field.
func compileNamed(d bsoncore.Document, vars *exprVars, names []string, unknown func(string) error) (dateArgs, error) {
	out := dateArgs{}
	for _, el := range elements(d) {
		k := el.Key()
		known := false
		for _, n := range names {
			if n == k {
				known = true
				break
			}
		}
		if !known {
			return nil, unknown(k)
		}
		e, err := compileExpr(el.Value(), vars)
		if err != nil {
			return nil, err
		}
		out[k] = e
	}
	return out, nil
}

// dateValues are the evaluated arguments; given tells which were present.
type dateValues struct {
	v     map[string]bsoncore.Value
	given map[string]bool
}

func (a dateArgs) eval(root bsoncore.Document, local map[string]bsoncore.Value) (dateValues, error) {
	out := dateValues{v: map[string]bsoncore.Value{}, given: map[string]bool{}}
	for k, e := range a {
		r, err := e.eval(root, local)
		if err != nil {
			return out, err
		}
		out.v[k] = r
		out.given[k] = true
	}
	return out, nil
}

// null reports whether a present argument is null or missing.
func (n dateValues) null(k string) bool { return n.given[k] && nullish(n.v[k]) }

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
	v := n.v["timezone"]
	if nullish(v) {
		return nil, nil
	}
	if v.Type != bsoncore.TypeString {
		return nil, mongoerr.New(mongoerr.Location(40517), "timezone must evaluate to a string, found %s", typeName(v.Type))
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
		return intOf(v)
	case bsoncore.TypeDouble:
		f := v.Double()
		if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
			return 0, false
		}
		return int64(f), true
	case bsoncore.TypeDecimal128:
		r, _ := bigOf(v)
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
// (Sunday when absent).
func startOfWeek(op string, n dateValues) (time.Weekday, error) {
	if !n.given["startOfWeek"] {
		return time.Sunday, nil
	}
	v := n.v["startOfWeek"]
	if v.Type != bsoncore.TypeString {
		return 0, mongoerr.New(mongoerr.Location(5439015), "%s requires 'startOfWeek' to be a string, but got %s", op, typeName(v.Type))
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
		return "", mongoerr.New(mongoerr.Location(5439013), "%s requires 'unit' to be a string, but got %s", op, typeName(v.Type))
	}
	u := v.StringValue()
	if !isTimeUnit(u) {
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

func compileDateArith(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(5166400), "%s expects an object as its argument", op)
	}
	a, err := compileNamed(bsoncore.Document(v.Data), vars, []string{"startDate", "unit", "amount", "timezone"}, func(k string) error {
		return mongoerr.New(mongoerr.Location(5166401), "Unrecognized argument to %s: %s. Expected arguments are startDate, unit, amount, and optionally timezone.", op, k)
	})
	if err != nil {
		return nil, err
	}
	if a["startDate"] == nil || a["unit"] == nil || a["amount"] == nil {
		return nil, mongoerr.New(mongoerr.Location(5166402), "%s requires startDate, unit, and amount to be specified", op)
	}
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		n, err := a.eval(root, local)
		if err != nil {
			return missing, err
		}
		if n.null("startDate") || n.null("unit") || n.null("amount") {
			return vNull(), nil
		}
		loc, err := zoneArg(n)
		if err != nil || loc == nil {
			return vNull(), err
		}
		start, ok := dateMillis(n.v["startDate"])
		if !ok {
			return missing, mongoerr.New(mongoerr.Location(5166403), "%s requires startDate to be convertible to a date", op)
		}
		uv := n.v["unit"]
		if uv.Type != bsoncore.TypeString {
			return missing, mongoerr.New(mongoerr.Location(5166404), "%s expects string defining the time unit", op)
		}
		unit := uv.StringValue()
		if !isTimeUnit(unit) {
			return missing, mongoerr.New(mongoerr.FailedToParse, "unknown time unit value: %s", unit)
		}
		amount, ok := integral64(n.v["amount"])
		if !ok {
			return missing, mongoerr.New(mongoerr.Location(5166405), "%s expects integer amount of time units", op)
		}
		if op == "$dateSubtract" {
			if amount == math.MinInt64 {
				return missing, mongoerr.New(mongoerr.Location(6045000), "invalid %s 'amount' parameter value: %d %s", op, amount, unit)
			}
			amount = -amount
		}
		if limit := maxAddAmount[unit]; limit != 0 && (amount > limit || amount < -limit) {
			return missing, mongoerr.New(mongoerr.Location(5976500), "invalid %s 'amount' parameter value: %d %s", op, amount, unit)
		}
		r, ok := dateAdd(start, unit, amount, loc)
		if !ok {
			return missing, mongoerr.New(mongoerr.Location(5166406), "%s overflowed", op)
		}
		return vDate(r), nil
	}}, nil
}

// dateAdd is ms plus n units: hours and shorter units as elapsed time,
// days and longer ones on loc's wall clock, the day of the month clamped
// to the last day of the resulting month. False when the result is
// outside the range of a date.
func dateAdd(ms int64, unit string, n int64, loc *time.Location) (int64, bool) {
	switch unit {
	case "millisecond", "second", "minute", "hour":
		u := unitMillis[unit]
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
		total := int64(y)*12 + int64(m-1) + n*calendarMonths[unit]
		ny := floorDiv(total, 12)
		nm := time.Month(total-ny*12) + 1
		r = time.Date(int(ny), nm, min(d, daysIn(ny, nm)), h, mi, s, t.Nanosecond(), loc)
	}
	return timeMillis(r)
}

// $dateDiff.

func compileDateDiff(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(5166301), "$dateDiff only supports an object as its argument")
	}
	a, err := compileNamed(bsoncore.Document(v.Data), vars, []string{"startDate", "endDate", "unit", "timezone", "startOfWeek"}, func(k string) error {
		return mongoerr.New(mongoerr.Location(5166302), "Unrecognized argument to $dateDiff: %s", k)
	})
	if err != nil {
		return nil, err
	}
	for i, k := range []string{"startDate", "endDate", "unit"} {
		if a[k] == nil {
			return nil, mongoerr.New(mongoerr.Location(5166303+int32(i)), "Missing '%s' parameter to $dateDiff", k)
		}
	}
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		n, err := a.eval(root, local)
		if err != nil {
			return missing, err
		}
		if n.null("startDate") || n.null("endDate") || n.null("unit") || n.null("timezone") ||
			(n.null("startOfWeek") && isWeekUnit(n.v["unit"])) {
			return vNull(), nil
		}
		var ends [2]int64
		for i, k := range []string{"startDate", "endDate"} {
			ms, ok := dateMillis(n.v[k])
			if !ok {
				return missing, mongoerr.New(mongoerr.Location(5166307), "$dateDiff requires '%s' to be a date, but got %s", k, typeName(n.v[k].Type))
			}
			ends[i] = ms
		}
		unit, err := unitArg(op, n.v["unit"])
		if err != nil {
			return missing, err
		}
		loc, err := zoneArg(n)
		if err != nil {
			return missing, err
		}
		sow := time.Sunday
		if unit == "week" {
			if sow, err = startOfWeek(op, n); err != nil {
				return missing, err
			}
		}
		d, ok := dateDiff(ends[0], ends[1], unit, loc, sow)
		if !ok {
			return missing, mongoerr.New(mongoerr.Location(15), "$dateDiff overflowed")
		}
		return vInt64(d), nil
	}}, nil
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
		u := unitMillis[unit] / 1000
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
	return floorDiv(months(b), calendarMonths[unit]) - floorDiv(months(a), calendarMonths[unit]), true
}

// $dateTrunc.

func compileDateTrunc(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(5439007), "$dateTrunc only supports an object as its argument")
	}
	a, err := compileNamed(bsoncore.Document(v.Data), vars, []string{"date", "unit", "binSize", "timezone", "startOfWeek"}, func(k string) error {
		return mongoerr.New(mongoerr.Location(5439008), "Unrecognized argument to $dateTrunc: %s", k)
	})
	if err != nil {
		return nil, err
	}
	if a["date"] == nil {
		return nil, mongoerr.New(mongoerr.Location(5439009), "Missing 'date' parameter to $dateTrunc")
	}
	if a["unit"] == nil {
		return nil, mongoerr.New(mongoerr.Location(5439010), "Missing 'unit' parameter to $dateTrunc")
	}
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		n, err := a.eval(root, local)
		if err != nil {
			return missing, err
		}
		if n.null("date") || n.null("unit") || n.null("binSize") || n.null("timezone") ||
			(n.null("startOfWeek") && isWeekUnit(n.v["unit"])) {
			return vNull(), nil
		}
		ms, ok := dateMillis(n.v["date"])
		if !ok {
			return missing, mongoerr.New(mongoerr.Location(5439012), "$dateTrunc requires 'date' to be a date, but got %s", typeName(n.v["date"].Type))
		}
		unit, err := unitArg(op, n.v["unit"])
		if err != nil {
			return missing, err
		}
		sow := time.Sunday
		if unit == "week" {
			if sow, err = startOfWeek(op, n); err != nil {
				return missing, err
			}
		}
		bin := int64(1)
		if n.given["binSize"] {
			bv := n.v["binSize"]
			if bin, ok = integral64(bv); !ok {
				return missing, mongoerr.New(mongoerr.Location(5439017), "$dateTrunc requires 'binSize' to be a 64-bit integer, but got value '%s' of type %s", shell(bv), typeName(bv.Type))
			}
			if bin <= 0 {
				return missing, mongoerr.New(mongoerr.Location(5439018), "$dateTrunc requires 'binSize' to be greater than 0, but got value %d", bin)
			}
		}
		loc, err := zoneArg(n)
		if err != nil {
			return missing, err
		}
		r, ok := dateTrunc(ms, unit, bin, loc, sow)
		if !ok {
			return missing, mongoerr.New(mongoerr.Location(159), "$dateTrunc: the truncated date is outside the range of a date")
		}
		return vDate(r), nil
	}}, nil
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
		k := calendarMonths[unit]
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
		size := bin * unitMillis[unit]
		if size/unitMillis[unit] != bin {
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

// $dateFromParts.

// datePartBound is the range of month, day, hour, minute, isoWeek and
// isoDayOfWeek.
const datePartBound = 32767

func compileDateFromParts(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(40519), "$dateFromParts only supports an object as its argument")
	}
	a, err := compileNamed(bsoncore.Document(v.Data), vars, []string{"year", "month", "day", "hour", "minute", "second", "millisecond", "isoWeekYear", "isoWeek", "isoDayOfWeek", "timezone"}, func(k string) error {
		return mongoerr.New(mongoerr.Location(40518), "Unrecognized argument to $dateFromParts: %s", k)
	})
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
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		n, err := a.eval(root, local)
		if err != nil {
			return missing, err
		}
		parts := map[string]int64{"month": 1, "day": 1, "isoWeek": 1, "isoDayOfWeek": 1}
		null := false
		for _, k := range order {
			if !n.given[k] {
				continue
			}
			pv := n.v[k]
			if nullish(pv) {
				null = true
				continue
			}
			x, ok := integral64(pv)
			if !ok {
				return missing, mongoerr.New(mongoerr.Location(40515), "'%s' must evaluate to an integer, found %s with value %s", k, typeName(pv.Type), shell(pv))
			}
			switch k {
			case "year", "isoWeekYear":
				if x < 1 || x > 9999 {
					code := int32(40523)
					if k == "isoWeekYear" {
						code = 31095
					}
					return missing, mongoerr.New(mongoerr.Location(code), "'%s' must evaluate to an integer in the range 1 to 9999, found %d", k, x)
				}
			case "second", "millisecond":
				if x > math.MaxInt64/1000 || x < math.MinInt64/1000 {
					return missing, mongoerr.New(mongoerr.Location(159), "Overflow casting from a lower-precision duration to a higher-precision duration")
				}
			default:
				if x < -datePartBound-1 || x > datePartBound {
					return missing, mongoerr.New(mongoerr.Location(31034), "'%s' must evaluate to a value in the range [-32768, 32767]; value %d is not in range", k, x)
				}
			}
			parts[k] = x
		}
		loc, err := zoneArg(n)
		if err != nil {
			return missing, err
		}
		if null || loc == nil {
			return vNull(), nil
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
			return missing, mongoerr.New(mongoerr.Location(159), "Overflow casting from a lower-precision duration to a higher-precision duration")
		}
		return vDate(ms), nil
	}}, nil
}

// $dateToParts.

func compileDateToParts(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(40524), "$dateToParts only supports an object as its argument")
	}
	a, err := compileNamed(bsoncore.Document(v.Data), vars, []string{"date", "timezone", "iso8601"}, func(k string) error {
		return mongoerr.New(mongoerr.Location(40520), "Unrecognized argument to $dateToParts: %s", k)
	})
	if err != nil {
		return nil, err
	}
	if a["date"] == nil {
		return nil, mongoerr.New(mongoerr.Location(40522), "Missing 'date' parameter to $dateToParts")
	}
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		n, err := a.eval(root, local)
		if err != nil {
			return missing, err
		}
		loc, err := zoneArg(n)
		if err != nil || loc == nil {
			return vNull(), err
		}
		iso := false
		if n.given["iso8601"] {
			iv := n.v["iso8601"]
			if nullish(iv) {
				return vNull(), nil
			}
			if iv.Type != bsoncore.TypeBoolean {
				return missing, mongoerr.New(mongoerr.Location(40521), "iso8601 must evaluate to a bool, found %s", typeName(iv.Type))
			}
			iso = iv.Boolean()
		}
		dv := n.v["date"]
		if nullish(dv) {
			return vNull(), nil
		}
		ms, ok := dateMillis(dv)
		if !ok {
			return missing, mongoerr.New(mongoerr.Location(16006), "can't convert from BSON type %s to Date", typeName(dv.Type))
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
		return vDoc(b.Build()), nil
	}}, nil
}

// $dateFromString.

// fromStringSpecifiers are the format specifiers $dateFromString reads.
const fromStringSpecifiers = "bBdGHjLmMSuVYzZ%"

func validateFromStringFormat(f string) error {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		if i+1 == len(f) {
			return mongoerr.New(mongoerr.Location(18535), "Unmatched '%%' at end of format string")
		}
		i++
		if !strings.ContainsRune(fromStringSpecifiers, rune(f[i])) {
			return mongoerr.New(mongoerr.Location(18536), "Invalid format character '%%%c' in format string", f[i])
		}
	}
	return nil
}

func compileDateFromString(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(40540), "$dateFromString only supports an object as an argument, found: %s", typeName(v.Type))
	}
	a, err := compileNamed(bsoncore.Document(v.Data), vars, []string{"dateString", "format", "timezone", "onError", "onNull"}, func(k string) error {
		return mongoerr.New(mongoerr.Location(40541), "Unrecognized argument to $dateFromString: %s", k)
	})
	if err != nil {
		return nil, err
	}
	if a["dateString"] == nil {
		return nil, mongoerr.New(mongoerr.Location(40542), "Missing 'dateString' parameter to $dateFromString")
	}
	onError, onNull := a["onError"], a["onNull"]
	delete(a, "onError")
	delete(a, "onNull")
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		n, err := a.eval(root, local)
		if err != nil {
			return missing, err
		}
		fv := n.v["format"]
		if n.given["format"] && !nullish(fv) {
			if fv.Type != bsoncore.TypeString {
				return missing, mongoerr.New(mongoerr.Location(40684), "$dateFromString requires that 'format' be a string, found: %s with value %s", typeName(fv.Type), shell(fv))
			}
			if err := validateFromStringFormat(fv.StringValue()); err != nil {
				return missing, err
			}
		}
		loc, err := zoneArg(n)
		if err != nil {
			return missing, err
		}
		ds := n.v["dateString"]
		if nullish(ds) {
			if onNull != nil {
				return onNull.eval(root, local)
			}
			return vNull(), nil
		}
		fail := func(err error) (bsoncore.Value, error) {
			if onError != nil {
				return onError.eval(root, local)
			}
			return missing, err
		}
		if ds.Type != bsoncore.TypeString {
			return fail(mongoerr.New(mongoerr.Location(241), "$dateFromString requires that 'dateString' be a string, found: %s with value %s", typeName(ds.Type), shell(ds)))
		}
		if loc == nil || (n.given["format"] && nullish(fv)) {
			return vNull(), nil
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
		return vDate(ms), nil
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
			return 0, mongoerr.New(mongoerr.Location(241), "an incomplete date/time string has been found, with elements missing: '%s'", s)
		}
		if p.yday < 1 || p.yday > 366 || (p.yday == 366 && daysIn(int64(y), time.February) == 28) {
			return 0, invalidDate
		}
		t := time.Date(y, time.January, p.yday, 0, 0, 0, 0, time.UTC)
		m, d = int(t.Month()), t.Day()
	default:
		if y < 0 || m < 0 || d < 0 {
			return 0, mongoerr.New(mongoerr.Location(241), "an incomplete date/time string has been found, with elements missing: '%s'", s)
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
	if c := sc.peek(); c == '+' || c == '-' {
		off, ok := sc.offset()
		if !ok {
			return conversionError(sc.s, begin, "The timezone could not be found in the database")
		}
		p.zone, p.zoneOffset = time.FixedZone(sc.s[begin:sc.i], off), true
		p.zoneText = sc.s[begin:sc.i]
		return nil
	}
	w := sc.word()
	if sc.peek() == '/' || sc.peek() == '_' || w == "" {
		sc.i = start
		return conversionError(sc.s, begin, "The timezone could not be found in the database")
	}
	up := strings.ToUpper(w)
	if up == "GMT" || up == "UTC" {
		if c := sc.peek(); c == '+' || c == '-' {
			off, ok := sc.offset()
			if !ok {
				return conversionError(sc.s, begin, "The timezone could not be found in the database")
			}
			p.zone, p.zoneOffset = time.FixedZone(sc.s[begin:sc.i], off), true
			p.zoneText = sc.s[begin:sc.i]
			return nil
		}
	}
	hours, ok := zoneAbbreviations[up]
	if !ok && len(up) == 1 {
		var mh int
		mh, ok = militaryZone(up[0])
		hours = float64(mh)
	}
	if !ok {
		return conversionError(sc.s, begin, "The timezone could not be found in the database")
	}
	p.zone, p.zoneText = time.FixedZone(up, int(hours*3600)), w
	return nil
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
		at := sc.i
		num := func(max int, what string) (int, error) {
			n, _, ok := sc.number(max)
			if !ok {
				return 0, conversionError(s, at, what+" could not be found")
			}
			return n, nil
		}
		var err error
		switch f[j] {
		case 'Y':
			p.year, err = num(4, "A four digit year")
			p.natural = true
		case 'm':
			p.month, err = num(2, "A two digit month")
			p.natural = true
		case 'd':
			p.day, err = num(2, "A two digit day")
			p.natural = true
		case 'j':
			p.yday, err = num(3, "A three digit day-of-year")
			p.natural = true
		case 'b', 'B':
			m := monthNamed(sc.word(), f[j] == 'B', f[j] == 'b')
			if m == 0 {
				err = conversionError(s, at, "A textual month could not be found")
			}
			p.month, p.natural = m, true
		case 'G':
			p.isoYear, err = num(4, "A four digit ISO year")
			p.isoFields = true
		case 'V':
			p.isoWeek, err = num(2, "A two digit ISO week")
			p.isoFields = true
		case 'u':
			p.isoDay, err = num(1, "A single digit day of week")
			p.isoFields = true
		case 'H':
			p.hour, err = num(2, "A two digit hour")
		case 'M':
			p.minute, err = num(2, "A two digit minute")
		case 'S':
			p.second, err = num(2, "A two digit second")
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
			var mins int
			if mins, err = num(4, "A UTC offset in minutes"); err == nil {
				p.zone, p.zoneOffset = time.FixedZone(s[at:sc.i], sign*mins*60), true
				p.zoneText = s[at:sc.i]
			}
		case '%':
			if sc.s[sc.i] != '%' {
				err = conversionError(s, at, "Format literal not found")
			}
			sc.i++
		default:
			err = conversionError(s, at, "The format specifier is not supported")
		}
		if err != nil {
			return nil, err
		}
	}
	if !sc.done() {
		return nil, conversionError(s, sc.i, "Trailing data")
	}
	return p, nil
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
	bad := func() error { return conversionError(s, sc.i, "Unexpected character") }
	incomplete := mongoerr.New(mongoerr.Location(241), "an incomplete date/time string has been found, with elements missing: '%s'", s)
	start := sc.i
	switch c := sc.peek(); {
	case c >= '0' && c <= '9':
		n1, d1, _ := sc.number(5)
		sep := sc.peek()
		switch {
		case sep == ':' || ((sep == 'a' || sep == 'p' || sep == 'A' || sep == 'P') && d1 <= 2):
			// a time without a date
			sc.i = start
			if err := sc.clock(p); err != nil {
				return nil, err
			}
			return nil, incomplete
		case d1 == 4 && (sep == '-' || sep == '/'):
			sc.i++
			p.year = n1
			if m := monthNamed(sc.word(), true, true); m != 0 {
				p.month = m
			} else if m, _, ok := sc.number(2); ok {
				p.month = m
			} else {
				return nil, bad()
			}
			if sc.peek() != sep {
				return nil, bad()
			}
			sc.i++
			d, _, ok := sc.number(2)
			if !ok {
				return nil, bad()
			}
			p.day = d
		case d1 <= 2 && (sep == '/' || sep == '-' || sep == '.'):
			sc.i++
			n2, _, ok := sc.number(2)
			if !ok || sc.peek() != sep {
				return nil, bad()
			}
			sc.i++
			y, dy, ok := sc.number(4)
			if !ok || dy == 3 {
				return nil, bad()
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
			return nil, bad()
		}
	case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
		m := monthNamed(sc.word(), true, true)
		if m == 0 {
			sc.i = start
			return nil, bad()
		}
		p.month = m
		if sc.peek() == '.' {
			sc.i++
		}
		sc.skipSpace()
		d, _, ok := sc.number(2)
		if !ok {
			return nil, bad()
		}
		p.day = d
		if w := strings.ToLower(sc.word()); w != "" && w != "st" && w != "nd" && w != "rd" && w != "th" {
			return nil, bad()
		}
		if sc.peek() == ',' {
			sc.i++
		}
		sc.skipSpace()
		if sc.done() {
			return nil, incomplete
		}
		y, _, ok := sc.number(4)
		if !ok {
			return nil, bad()
		}
		if c := sc.peek(); c >= '0' && c <= '9' {
			return nil, bad()
		}
		p.year = y
	default:
		return nil, bad()
	}
	p.natural = true
	// the time
	if sc.peek() == 'T' || sc.peek() == 't' {
		sc.i++
		if err := sc.clock(p); err != nil {
			return nil, err
		}
	} else {
		save := sc.i
		sc.skipSpace()
		if c := sc.peek(); c >= '0' && c <= '9' {
			if err := sc.clock(p); err != nil {
				return nil, err
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
			return nil, err
		}
		sc.skipSpace()
	}
	if !sc.done() {
		return nil, bad()
	}
	return p, nil
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
