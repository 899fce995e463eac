package ejson

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The driver's $date string formats.
var dateFormats = [...]string{"2006-01-02T15:04:05.999Z07:00", "2006-01-02T15:04:05.999Z0700"}

func parseDateTime(v value) (int64, error) {
	switch v.t {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return v.i, nil
	case bsoncore.TypeString:
		if ms, ok := fastDate(v.s); ok {
			return ms, nil
		}
		for _, f := range dateFormats {
			if t, err := time.Parse(f, unsafeString(v.s)); err == nil {
				return t.Unix()*1e3 + int64(t.Nanosecond())/1e6, nil
			}
		}
		return 0, &Error{Offset: v.p, Found: "the $date " + shown(v.s), Expected: "an RFC 3339 date and time such as 2024-05-06T07:08:09.123Z"}
	case bsoncore.TypeEmbeddedDocument:
		o := v.obj
		found := false
		var ms int64
		for i := range o.n {
			k, val := o.keys[i], o.vals[i]
			if string(k) != "$numberLong" {
				return 0, &Error{Offset: val.p, Found: "the key " + shown(k) + " in $date", Expected: "{\"$numberLong\": \"<milliseconds>\"}"}
			}
			if found {
				return 0, &Error{Offset: val.p, Found: "$numberLong twice in $date", Expected: "one $numberLong"}
			}
			if val.t != bsoncore.TypeString {
				return 0, typeErr(val, "a string of an integer as the $numberLong of $date")
			}
			n, err := parseInt64Value(val, "$numberLong")
			if err != nil {
				return 0, err
			}
			ms, found = n, true
		}
		if !found {
			return 0, &Error{Offset: v.p, Found: "a $date object without $numberLong", Expected: "{\"$numberLong\": \"<milliseconds>\"}"}
		}
		return ms, nil
	}
	return 0, typeErr(v, "a string or an object as the value of $date")
}

// fastDate reads the one date format oidkit writes,
// YYYY-MM-DDTHH:MM:SS[.mmm]Z, as time.Parse does with the driver's format;
// anything else is left to time.Parse.
func fastDate(s []byte) (int64, bool) {
	if len(s) != 20 && len(s) != 24 {
		return 0, false
	}
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	if s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return 0, false
	}
	year, ok1 := num(s[0:4])
	month, ok2 := num(s[5:7])
	day, ok3 := num(s[8:10])
	hour, ok4 := num(s[11:13])
	minute, ok5 := num(s[14:16])
	sec, ok6 := num(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, false
	}
	ms := 0
	if len(s) == 24 {
		if s[19] != '.' {
			return 0, false
		}
		var ok bool
		if ms, ok = num(s[20:23]); !ok {
			return 0, false
		}
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	return t.Unix()*1e3 + int64(ms), true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
