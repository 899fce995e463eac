package engine

import (
	"fmt"
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// iso is an ISODate literal.
func iso(s string) bson.DateTime {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return bson.NewDateTimeFromTime(t)
}

// isoX is the result {"x": ISODate(s)} as checkExprs renders it.
func isoX(s string) string { return dateX(iso(s)) }

func dateX(d bson.DateTime) string {
	b, err := bson.MarshalExtJSON(bson.D{{Key: "x", Value: d}}, false, false)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func decimal(s string) bson.Decimal128 {
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		panic(err)
	}
	return d
}

// args is a named-argument document from key, value pairs.
func dargs(kv ...any) bson.D {
	var d bson.D
	for i := 0; i+1 < len(kv); i += 2 {
		d = append(d, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return d
}

// The manual's and MongoDB's own examples of $dateAdd and $dateSubtract:
// every unit, wall-clock days across a daylight saving change, the last
// day of the month, offsets, null arguments and each error.
func TestDateAddSubtract(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("dateadd")
	oid, _ := bson.ObjectIDFromHex("507c7f79bcf86cd7994f6c0e")
	doc := bson.D{
		{Key: "date", Value: iso("2020-12-31T12:10:05Z")},
		{Key: "unit", Value: "month"},
		{Key: "timezone", Value: "Europe/Paris"},
		{Key: "oid", Value: oid},
		{Key: "ts", Value: bson.Timestamp{T: 1350336377, I: 0}},
		{Key: "n", Value: nil},
	}
	add := func(kv ...any) bson.D { return op("$dateAdd", dargs(kv...)) }
	sub := func(kv ...any) bson.D { return op("$dateSubtract", dargs(kv...)) }
	checkExprs(t, coll, doc, []exprCase{
		{expr: add("startDate", iso("2020-11-30T12:10:05Z"), "unit", "day", "amount", 1), want: isoX("2020-12-01T12:10:05Z")},
		// null and missing arguments, even beside invalid ones
		{expr: add("startDate", "$dateSent", "unit", "day", "amount", 1), want: `{"x":null}`},
		{expr: add("startDate", "$date", "unit", "$timeunit", "amount", 1), want: `{"x":null}`},
		{expr: add("startDate", "$date", "unit", "day", "amount", nil), want: `{"x":null}`},
		{expr: add("startDate", "$date", "unit", "$unit", "amount", 1, "timezone", nil), want: `{"x":null}`},
		{expr: add("startDate", "$dateSent", "unit", "workday", "amount", 1), want: `{"x":null}`},
		{expr: add("startDate", "New year day", "unit", "$timeunit", "amount", 1), want: `{"x":null}`},
		{expr: add("startDate", "$date", "unit", "workday", "amount", "$amount", "timezone", "Unknown"), want: `{"x":null}`},
		{expr: add("startDate", "$date", "unit", "$unit", "amount", 1.5, "timezone", nil), want: `{"x":null}`},
		{expr: add("startDate", "$n", "unit", "day", "amount", 1), want: `{"x":null}`},
		// hours are elapsed time, days are wall-clock days
		{expr: add("startDate", iso("2020-10-24T18:10:00Z"), "unit", "hour", "amount", 24, "timezone", "Europe/Paris"), want: isoX("2020-10-25T18:10:00Z")},
		{expr: add("startDate", iso("2020-10-24T18:10:00Z"), "unit", "day", "amount", 1, "timezone", "Europe/Paris"), want: isoX("2020-10-25T19:10:00Z")},
		// every unit
		{expr: add("startDate", "$date", "unit", "year", "amount", -1), want: isoX("2019-12-31T12:10:05Z")},
		{expr: add("startDate", "$date", "unit", "quarter", "amount", 1), want: isoX("2021-03-31T12:10:05Z")},
		{expr: add("startDate", "$date", "unit", "month", "amount", 2), want: isoX("2021-02-28T12:10:05Z")},
		{expr: add("startDate", "$date", "unit", "week", "amount", 1), want: isoX("2021-01-07T12:10:05Z")},
		{expr: add("startDate", "$date", "unit", "day", "amount", 1), want: isoX("2021-01-01T12:10:05Z")},
		{expr: add("startDate", "$date", "unit", "hour", "amount", 2), want: isoX("2020-12-31T14:10:05Z")},
		{expr: add("startDate", "$date", "unit", "minute", "amount", -20), want: isoX("2020-12-31T11:50:05Z")},
		{expr: add("startDate", "$date", "unit", "second", "amount", int64(3600)), want: isoX("2020-12-31T13:10:05Z")},
		{expr: add("startDate", "$date", "unit", "millisecond", "amount", 1050), want: isoX("2020-12-31T12:10:06.05Z")},
		{expr: add("startDate", "$date", "unit", "$unit", "amount", 1), want: isoX("2021-01-31T12:10:05Z")},
		{expr: add("startDate", "$date", "unit", "month", "amount", 2, "timezone", "$timezone"), want: isoX("2021-02-28T12:10:05Z")},
		{expr: add("startDate", "$date", "unit", "day", "amount", decimal("2")), want: isoX("2021-01-02T12:10:05Z")},
		{expr: add("startDate", "$date", "unit", "day", "amount", 3.0), want: isoX("2021-01-03T12:10:05Z")},
		{expr: add("startDate", iso("2021-01-30T23:30:00Z"), "unit", "month", "amount", 1, "timezone", "Europe/Paris"), want: isoX("2021-02-27T23:30:00Z")},
		{expr: add("startDate", iso("2020-02-29T00:00:00Z"), "unit", "year", "amount", 1), want: isoX("2021-02-28T00:00:00Z")},
		{expr: add("startDate", iso("2020-02-29T00:00:00Z"), "unit", "year", "amount", 4), want: isoX("2024-02-29T00:00:00Z")},
		// ObjectId and Timestamp start dates
		{expr: add("startDate", "$oid", "unit", "day", "amount", 1), want: isoX("2012-10-16T21:26:17Z")},
		{expr: add("startDate", "$ts", "unit", "second", "amount", 3), want: isoX("2012-10-15T21:26:20Z")},
		// UTC offsets: the month is counted on the offset's wall clock
		{expr: add("startDate", iso("2021-03-01T02:00:00Z"), "unit", "month", "amount", 1, "timezone", "-0500"), want: isoX("2021-03-29T02:00:00Z")},
		{expr: add("startDate", iso("2021-03-01T02:00:00Z"), "unit", "month", "amount", 1), want: isoX("2021-04-01T02:00:00Z")},
		{expr: add("startDate", iso("2021-02-28T22:00:00Z"), "unit", "month", "amount", -1, "timezone", "+03"), want: isoX("2021-01-31T22:00:00Z")},
		{expr: add("startDate", iso("2021-02-28T22:00:00Z"), "unit", "month", "amount", -1, "timezone", "+03:00"), want: isoX("2021-01-31T22:00:00Z")},
		{expr: add("startDate", iso("2021-02-28T22:00:00Z"), "unit", "month", "amount", -1), want: isoX("2021-01-28T22:00:00Z")},
		// $dateSubtract
		{expr: sub("startDate", "$date", "unit", "year", "amount", 2), want: isoX("2018-12-31T12:10:05Z")},
		{expr: sub("startDate", "$date", "unit", "quarter", "amount", 2), want: isoX("2020-06-30T12:10:05Z")},
		{expr: sub("startDate", "$date", "unit", "day", "amount", 15), want: isoX("2020-12-16T12:10:05Z")},
		{expr: sub("startDate", "$date", "unit", "hour", "amount", 48), want: isoX("2020-12-29T12:10:05Z")},
		{expr: sub("startDate", "$date", "unit", "minute", "amount", 15), want: isoX("2020-12-31T11:55:05Z")},
		{expr: sub("startDate", "$date", "unit", "second", "amount", 125), want: isoX("2020-12-31T12:08:00Z")},
		{expr: sub("startDate", "$date", "unit", "$unit", "amount", 3), want: isoX("2020-09-30T12:10:05Z")},
		{expr: sub("startDate", "$date", "unit", "$unit", "amount", 3, "timezone", "$timezone"), want: isoX("2020-09-30T11:10:05Z")},
		{expr: sub("startDate", "$date", "unit", "$unit", "amount", 1), want: isoX("2020-11-30T12:10:05Z")},
		{expr: sub("startDate", iso("2021-01-31T03:00:00Z"), "unit", "month", "amount", 2), want: isoX("2020-11-30T03:00:00Z")},
		{expr: sub("startDate", iso("2021-01-31T03:00:00Z"), "unit", "month", "amount", 2, "timezone", "America/New_York"), want: isoX("2020-12-01T03:00:00Z")},
		{expr: sub("startDate", add("startDate", "$date", "unit", "hour", "amount", 2), "unit", "hour", "amount", 2), want: isoX("2020-12-31T12:10:05Z")},
		{expr: sub("startDate", "$date", "unit", "day", "amount", -1), want: isoX("2021-01-01T12:10:05Z")},
		{expr: sub("startDate", "$n", "unit", "day", "amount", 1), want: `{"x":null}`},
		// the edges of the range of a date
		{expr: add("startDate", "$date", "unit", "day", "amount", int64(-106751991167)), want: dateX(bson.DateTime(-9223370427412195000))},
		{expr: add("startDate", "$date", "unit", "day", "amount", int64(106751991167)), code: 5166406},
		{expr: add("startDate", "$date", "unit", "millisecond", "amount", int64(math.MaxInt64)), code: 5166406},
		{expr: add("startDate", "$date", "unit", "hour", "amount", int64(math.MinInt64)), code: 5166406},
		{expr: add("startDate", bson.DateTime(math.MaxInt64), "unit", "year", "amount", 1), code: 5166406},
		{expr: add("startDate", bson.DateTime(math.MinInt64), "unit", "month", "amount", -1), code: 5166406},
		{expr: add("startDate", bson.DateTime(math.MaxInt64), "unit", "millisecond", "amount", int64(math.MinInt64)), want: dateX(bson.DateTime(-1))},
		{expr: sub("startDate", "$date", "unit", "month", "amount", 12*300000000), code: 5166406},
		{expr: sub("startDate", "$date", "unit", "month", "amount", int64(-30000000000)), code: 5976500},
		{expr: add("startDate", "$date", "unit", "year", "amount", int64(math.MaxInt64)), code: 5976500},
		{expr: sub("startDate", "$date", "unit", "day", "amount", int64(math.MinInt64)), code: 6045000},
		// errors
		{expr: add("unit", "second", "amount", 120), code: 5166402},
		{expr: sub("startDate", "$date", "amount", 1), code: 5166402},
		{expr: sub("startDate", "$date", "units", "day", "amount", 1), code: 5166401},
		{expr: op("$dateAdd", "$date"), code: 5166400},
		{expr: sub("startDate", "myBirthDate", "unit", "year", "amount", 10), code: 5166403},
		{expr: add("startDate", 12, "unit", "year", "amount", 10), code: 5166403},
		{expr: add("startDate", "$date", "unit", 1, "amount", 10), code: 5166404},
		{expr: add("startDate", "$date", "unit", "epoch", "amount", 10), code: 9},
		{expr: sub("startDate", "$date", "unit", "year", "amount", 1.001), code: 5166405},
		{expr: sub("startDate", "$date", "unit", "year", "amount", "1"), code: 5166405},
		{expr: sub("startDate", "$date", "unit", "year", "amount", math.NaN()), code: 5166405},
		{expr: sub("startDate", "$date", "unit", "year", "amount", math.Inf(1)), code: 5166405},
		{expr: sub("startDate", "$date", "unit", "year", "amount", 1e19), code: 5166405},
		{expr: add("startDate", "$date", "unit", "year", "amount", 1, "timezone", "Unknown"), code: 40485},
		{expr: add("startDate", "$date", "unit", "year", "amount", 1, "timezone", "+5"), code: 40485},
		{expr: add("startDate", "$date", "unit", "year", "amount", 1, "timezone", "Local"), code: 40485},
		{expr: add("startDate", "$date", "unit", "year", "amount", 1, "timezone", 5), code: 40517},
	})
}

// The manual's $dateDiff examples (elapsed days, result precision, weeks
// per month) and MongoDB's own cases: startOfWeek, time zones, nulls and
// errors.
func TestDateDiff(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("datediff")
	oid, _ := bson.ObjectIDFromHex("507c7f79bcf86cd7994f6c0e")
	doc := bson.D{{Key: "oid", Value: oid}, {Key: "ts", Value: bson.Timestamp{T: 1350336377, I: 0}}, {Key: "n", Value: nil}}
	someDate := iso("2020-11-01T18:23:36Z")
	diff := func(start, end any, unit any, kv ...any) bson.D {
		return op("$dateDiff", append(dargs("startDate", start, "endDate", end, "unit", unit), dargs(kv...)...))
	}
	cases := []exprCase{
		{expr: diff(someDate, iso("2020-11-02T00:00:00Z"), "hour"), want: `{"x":6}`},
		{expr: diff(someDate, iso("2020-11-02T00:00:00Z"), "hour", "timezone", "America/New_York", "startOfWeek", "IGNORED"), want: `{"x":6}`},
		{expr: diff("$oid", "$oid", "millisecond", "timezone", "America/New_York"), want: `{"x":0}`},
		{expr: diff("$ts", "$ts", "millisecond"), want: `{"x":0}`},
		{expr: diff("$ts", "$oid", "second"), want: `{"x":0}`},
		// the manual's elapsed days
		{expr: diff(iso("2020-12-31T00:00:00Z"), iso("2021-01-05T00:00:00Z"), "day"), want: `{"x":5}`},
		{expr: diff(iso("2021-02-28T00:00:00Z"), iso("2021-03-07T00:00:00Z"), "day"), want: `{"x":7}`},
		{expr: diff(iso("2021-02-16T00:00:00Z"), iso("2021-02-18T00:00:00Z"), "day"), want: `{"x":2}`},
		// the manual's result precision
		{expr: diff(iso("2010-01-01T00:00:00Z"), iso("2011-01-01T00:00:00Z"), "year"), want: `{"x":1}`},
		{expr: diff(iso("2010-01-01T00:00:00Z"), iso("2011-01-01T00:00:00Z"), "month"), want: `{"x":12}`},
		{expr: diff(iso("2010-01-01T00:00:00Z"), iso("2011-01-01T00:00:00Z"), "day"), want: `{"x":365}`},
		{expr: diff(iso("2010-01-01T00:00:00Z"), iso("2011-07-01T00:00:00Z"), "year"), want: `{"x":1}`},
		{expr: diff(iso("2010-01-01T00:00:00Z"), iso("2011-07-01T00:00:00Z"), "month"), want: `{"x":18}`},
		{expr: diff(iso("2010-01-01T00:00:00Z"), iso("2011-07-01T00:00:00Z"), "day"), want: `{"x":546}`},
		{expr: diff(iso("2010-03-01T00:00:00Z"), iso("2010-04-30T00:00:00Z"), "year"), want: `{"x":0}`},
		{expr: diff(iso("2010-03-01T00:00:00Z"), iso("2010-04-30T00:00:00Z"), "month"), want: `{"x":1}`},
		{expr: diff(iso("2010-03-01T00:00:00Z"), iso("2010-04-30T00:00:00Z"), "day"), want: `{"x":60}`},
		{expr: diff(iso("2020-03-31T00:00:00Z"), iso("2020-04-01T00:00:00Z"), "quarter"), want: `{"x":1}`},
		{expr: diff(iso("2020-01-01T00:00:00Z"), iso("2020-03-31T00:00:00Z"), "quarter"), want: `{"x":0}`},
		{expr: diff(iso("2011-07-01T00:00:00Z"), iso("2010-01-01T00:00:00Z"), "month"), want: `{"x":-18}`},
		// the manual's weeks per month: Sunday, Monday and Friday weeks
		{expr: diff(iso("2021-01-01T00:00:00Z"), iso("2021-01-31T00:00:00Z"), "week"), want: `{"x":5}`},
		{expr: diff(iso("2021-01-01T00:00:00Z"), iso("2021-01-31T00:00:00Z"), "week", "startOfWeek", "Monday"), want: `{"x":4}`},
		{expr: diff(iso("2021-01-01T00:00:00Z"), iso("2021-01-31T00:00:00Z"), "week", "startOfWeek", "fri"), want: `{"x":4}`},
		{expr: diff(iso("2021-02-01T00:00:00Z"), iso("2021-02-28T00:00:00Z"), "week"), want: `{"x":4}`},
		{expr: diff(iso("2021-02-01T00:00:00Z"), iso("2021-02-28T00:00:00Z"), "week", "startOfWeek", "Monday"), want: `{"x":3}`},
		{expr: diff(iso("2021-02-01T00:00:00Z"), iso("2021-02-28T00:00:00Z"), "week", "startOfWeek", "fri"), want: `{"x":4}`},
		{expr: diff(iso("2021-03-01T00:00:00Z"), iso("2021-03-31T00:00:00Z"), "week"), want: `{"x":4}`},
		{expr: diff(iso("2021-03-01T00:00:00Z"), iso("2021-03-31T00:00:00Z"), "week", "startOfWeek", "Monday"), want: `{"x":4}`},
		{expr: diff(iso("2021-03-01T00:00:00Z"), iso("2021-03-31T00:00:00Z"), "week", "startOfWeek", "fri"), want: `{"x":4}`},
		// startOfWeek and time zones
		{expr: diff(iso("2021-01-24T18:23:36Z"), iso("2021-01-25T02:23:36Z"), "week", "timezone", "GMT", "startOfWeek", "MONDAY"), want: `{"x":1}`},
		{expr: diff(iso("2021-01-17T05:00:00Z"), iso("2021-01-17T04:59:00Z"), "week", "timezone", "America/New_York", "startOfWeek", "sunday"), want: `{"x":-1}`},
		{expr: diff(iso("2021-01-24T18:23:36Z"), iso("2021-01-25T02:23:36Z"), "week"), want: `{"x":0}`},
		{expr: diff(someDate, someDate, "hour", "timezone", "GMT", "startOfWeek", 1), want: `{"x":0}`},
		{expr: diff(iso("2020-12-31T23:30:00Z"), iso("2021-01-01T00:30:00Z"), "year"), want: `{"x":1}`},
		{expr: diff(iso("2020-12-31T23:30:00Z"), iso("2021-01-01T00:30:00Z"), "year", "timezone", "-01:00"), want: `{"x":0}`},
		{expr: diff(iso("2020-12-31T23:30:00Z"), iso("2021-01-01T00:30:00Z"), "day", "timezone", "-0100"), want: `{"x":0}`},
		{expr: diff(iso("2021-03-13T12:00:00Z"), iso("2021-03-14T12:00:00Z"), "day", "timezone", "America/New_York"), want: `{"x":1}`},
		{expr: diff(iso("2021-01-01T00:20:00Z"), iso("2021-01-01T00:40:00Z"), "hour"), want: `{"x":0}`},
		{expr: diff(iso("2021-01-01T00:20:00Z"), iso("2021-01-01T00:40:00Z"), "hour", "timezone", "+05:30"), want: `{"x":1}`},
		{expr: diff(iso("2021-11-07T05:30:00Z"), iso("2021-11-07T06:30:00Z"), "hour", "timezone", "America/New_York"), want: `{"x":1}`},
		{expr: diff(iso("2021-01-01T00:00:59.999Z"), iso("2021-01-01T00:01:00Z"), "minute"), want: `{"x":1}`},
		{expr: diff(iso("2021-01-01T00:00:01Z"), iso("2021-01-01T00:00:00.999Z"), "second"), want: `{"x":-1}`},
		{expr: diff(iso("2021-01-01T00:00:01Z"), iso("2021-01-01T00:00:00Z"), "millisecond"), want: `{"x":-1000}`},
		// the edges of the range of a date
		{expr: diff(bson.DateTime(math.MinInt64), bson.DateTime(math.MaxInt64), "second"), want: `{"x":18446744073709551}`},
		{expr: diff(bson.DateTime(math.MinInt64), bson.DateTime(math.MaxInt64), "day"), want: `{"x":213503982335}`},
		{expr: diff(bson.DateTime(math.MinInt64), bson.DateTime(math.MaxInt64), "millisecond"), code: 15},
		// nulls, even beside invalid arguments
		{expr: diff("string", someDate, "hour", "timezone", "UTC"), code: 5166307},
		{expr: diff("$nope", 1, "century", "timezone", "INVALID"), want: `{"x":null}`},
		{expr: diff(nil, someDate, "hour", "timezone", "UTC"), want: `{"x":null}`},
		{expr: diff(someDate, 1, "hour", "timezone", "UTC"), code: 5166307},
		{expr: diff("", "$nope", "epoch", "timezone", "INVALID"), want: `{"x":null}`},
		{expr: diff(someDate, someDate, nil, "timezone", "UTC"), want: `{"x":null}`},
		{expr: diff(1, 2, "$nope", "timezone", "INVALID"), want: `{"x":null}`},
		{expr: diff(someDate, someDate, 5, "timezone", "UTC"), code: 5439013},
		{expr: diff(someDate, someDate, "decade", "timezone", "UTC"), code: 5439014},
		{expr: diff(someDate, someDate, "hour", "timezone", nil), want: `{"x":null}`},
		{expr: diff(1, 2, "century", "timezone", "$nope"), want: `{"x":null}`},
		{expr: diff(someDate, someDate, "hour", "timezone", 1), code: 40517},
		{expr: diff(someDate, someDate, "hour", "timezone", "America/Invalid"), code: 40485},
		{expr: diff(someDate, someDate, "week", "startOfWeek", nil), want: `{"x":null}`},
		{expr: diff(1, 2, "week", "timezone", 1, "startOfWeek", "$nope"), want: `{"x":null}`},
		{expr: diff(someDate, someDate, "week", "timezone", "GMT", "startOfWeek", 1), code: 5439015},
		{expr: diff(someDate, someDate, "week", "timezone", "GMT", "startOfWeek", "FRIDIE"), code: 5439016},
		// parse errors
		{expr: op("$dateDiff", "x"), code: 5166301},
		{expr: op("$dateDiff", dargs("startDate", someDate, "endDate", someDate, "unit", "day", "units", "day")), code: 5166302},
		{expr: op("$dateDiff", dargs("endDate", someDate, "unit", "day")), code: 5166303},
		{expr: op("$dateDiff", dargs("startDate", someDate, "unit", "day")), code: 5166304},
		{expr: op("$dateDiff", dargs("startDate", someDate, "endDate", someDate)), code: 5166305},
	}
	checkExprs(t, coll, doc, cases)
}

// The manual's $dateTrunc examples (the cake sales, binSize and unit) and
// MongoDB's own cases: reference dates, startOfWeek, nulls and errors.
func TestDateTrunc(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("datetrunc")
	oid, _ := bson.ObjectIDFromHex("507c7f79bcf86cd7994f6c0e")
	doc := bson.D{{Key: "oid", Value: oid}, {Key: "ts", Value: bson.Timestamp{T: 1350336377, I: 0}}}
	someDate := iso("2020-11-01T18:23:36Z")
	trunc := func(date, unit any, kv ...any) bson.D {
		return op("$dateTrunc", append(dargs("date", date, "unit", unit), dargs(kv...)...))
	}
	cakes := map[string]string{
		"2020-05-18T14:10:30Z": "2020-05-11T07:00:00Z",
		"2021-03-20T11:30:05Z": "2021-03-15T07:00:00Z",
		"2021-01-11T06:31:15Z": "2021-01-04T08:00:00Z",
		"2020-02-08T13:13:23Z": "2020-02-03T08:00:00Z",
		"2019-05-18T16:09:01Z": "2019-05-13T07:00:00Z",
		"2019-01-08T06:12:03Z": "2019-01-07T08:00:00Z",
	}
	var cases []exprCase
	for in, out := range cakes {
		cases = append(cases, exprCase{expr: trunc(iso(in), "week", "binSize", 2, "timezone", "America/Los_Angeles", "startOfWeek", "Monday"), want: isoX(out)})
	}
	cases = append(cases, []exprCase{
		// the manual's six-month groups and binSize examples
		{expr: trunc(iso("2020-05-18T14:10:30Z"), "month", "binSize", 6), want: isoX("2020-01-01T00:00:00Z")},
		{expr: trunc(iso("2021-03-20T11:30:05Z"), "month", "binSize", 6), want: isoX("2021-01-01T00:00:00Z")},
		{expr: trunc(iso("2019-08-18T16:09:01Z"), "month", "binSize", 6), want: isoX("2019-07-01T00:00:00Z")},
		{expr: trunc(iso("2021-03-20T11:30:05Z"), "hour"), want: isoX("2021-03-20T11:00:00Z")},
		{expr: trunc(iso("2021-03-20T11:30:05Z"), "hour", "binSize", 2), want: isoX("2021-03-20T10:00:00Z")},
		{expr: trunc(iso("2021-03-20T11:30:05Z"), "year", "binSize", 10), want: isoX("2020-01-01T00:00:00Z")},
		{expr: trunc(iso("1999-06-01T00:00:00Z"), "year", "binSize", 10), want: isoX("1990-01-01T00:00:00Z")},
		{expr: trunc(iso("2021-08-15T10:00:00Z"), "quarter"), want: isoX("2021-07-01T00:00:00Z")},
		{expr: trunc(iso("2021-08-15T10:00:00Z"), "quarter", "binSize", 3), want: isoX("2021-01-01T00:00:00Z")},
		{expr: trunc(iso("2021-03-20T20:00:00Z"), "day", "timezone", "Asia/Tokyo"), want: isoX("2021-03-20T15:00:00Z")},
		{expr: trunc(iso("2021-03-20T20:00:00Z"), "day", "timezone", "+0530"), want: isoX("2021-03-20T18:30:00Z")},
		{expr: trunc(iso("2021-03-20T20:00:00Z"), "second", "binSize", 7), want: isoX("2021-03-20T19:59:55Z")},
		// MongoDB's own cases
		{expr: trunc(someDate, "hour", "binSize", 2), want: isoX("2020-11-01T18:00:00Z")},
		{expr: trunc(iso("2021-12-01T18:23:36Z"), "hour", "binSize", 4, "timezone", "America/New_York", "startOfWeek", "IGNORED"), want: isoX("2021-12-01T17:00:00Z")},
		{expr: trunc(iso("2021-02-15T18:23:36Z"), "week"), want: isoX("2021-02-14T00:00:00Z")},
		{expr: trunc(iso("2000-01-30T18:00:00Z"), "week", "binSize", 2, "timezone", "America/New_York", "startOfWeek", "mon"), want: isoX("2000-01-17T05:00:00Z")},
		{expr: trunc("$oid", "minute", "binSize", 10), want: isoX("2012-10-15T21:20:00Z")},
		{expr: trunc("$ts", "second", "binSize", 10), want: isoX("2012-10-15T21:26:10Z")},
		{expr: trunc(iso("2020-01-30T18:59:00Z"), "minute", "binSize", decimal("15"), "timezone", "UTC"), want: isoX("2020-01-30T18:45:00Z")},
		{expr: trunc(iso("2020-01-30T18:59:00Z"), "day", "binSize", int64(1), "timezone", "UTC"), want: isoX("2020-01-30T00:00:00Z")},
		{expr: trunc(iso("2020-01-30T18:59:00.003Z"), "millisecond", "binSize", int32(1000), "timezone", "UTC"), want: isoX("2020-01-30T18:59:00Z")},
		{expr: trunc(iso("2020-01-30T18:59:00Z"), "year", "binSize", 1, "timezone", "GMT", "startOfWeek", 1), want: isoX("2020-01-01T00:00:00Z")},
		// bins wider than any date
		{expr: trunc(someDate, "hour", "binSize", int64(math.MaxInt64)), want: isoX("2000-01-01T00:00:00Z")},
		{expr: trunc(someDate, "day", "binSize", int64(math.MaxInt64)), want: isoX("2000-01-01T00:00:00Z")},
		{expr: trunc(someDate, "week", "binSize", int64(math.MaxInt64)), want: isoX("2000-01-02T00:00:00Z")},
		{expr: trunc(someDate, "year", "binSize", int64(math.MaxInt64)), want: isoX("2000-01-01T00:00:00Z")},
		{expr: trunc(iso("1999-12-31T00:00:00Z"), "day", "binSize", int64(math.MaxInt64)), code: 159},
		{expr: trunc(iso("1999-12-31T00:00:00Z"), "hour", "binSize", int64(math.MaxInt64)), code: 159},
		{expr: trunc(bson.DateTime(math.MaxInt64), "day"), want: dateX(bson.DateTime(9223372036828800000))},
		{expr: trunc(bson.DateTime(math.MinInt64), "year"), code: 159},
		// nulls and errors
		{expr: op("$dateTrunc", "A"), code: 5439007},
		{expr: op("$dateTrunc", dargs("endDate", 1)), code: 5439008},
		{expr: op("$dateTrunc", dargs("unit", "week")), code: 5439009},
		{expr: op("$dateTrunc", dargs("date", someDate)), code: 5439010},
		{expr: trunc("string", "hour", "binSize", 1, "timezone", "UTC"), code: 5439012},
		{expr: trunc("$nope", "H", "binSize", "string", "timezone", 1), want: `{"x":null}`},
		{expr: trunc(nil, "hour", "binSize", 1, "timezone", "UTC"), want: `{"x":null}`},
		{expr: trunc(someDate, nil, "binSize", 1, "timezone", "UTC"), want: `{"x":null}`},
		{expr: trunc("Invalid", "$nope", "binSize", "Invalid", "timezone", "Invalid"), want: `{"x":null}`},
		{expr: trunc(someDate, 1, "binSize", 1, "timezone", "UTC"), code: 5439013},
		{expr: trunc(someDate, "century", "binSize", 1, "timezone", "UTC"), code: 5439014},
		{expr: trunc(someDate, "hour", "binSize", nil, "timezone", "UTC"), want: `{"x":null}`},
		{expr: trunc("Invalid", "invalid", "binSize", "$nope", "timezone", "Invalid"), want: `{"x":null}`},
		{expr: trunc(someDate, "hour", "binSize", "Number", "timezone", "UTC"), code: 5439017},
		{expr: trunc(someDate, "hour", "binSize", 0, "timezone", "UTC"), code: 5439018},
		{expr: trunc(someDate, "hour", "binSize", -3), code: 5439018},
		{expr: trunc(someDate, "hour", "binSize", 2.5, "timezone", "UTC"), code: 5439017},
		{expr: trunc(someDate, "hour", "binSize", math.NaN()), code: 5439017},
		{expr: trunc(someDate, "hour", "binSize", 1, "timezone", nil), want: `{"x":null}`},
		{expr: trunc(1, "century", "binSize", "1", "timezone", "$nope"), want: `{"x":null}`},
		{expr: trunc(someDate, "hour", "binSize", 1, "timezone", 1), code: 40517},
		{expr: trunc(someDate, "hour", "binSize", 1, "timezone", "America/Invalid"), code: 40485},
		{expr: trunc(someDate, "week", "startOfWeek", nil), want: `{"x":null}`},
		{expr: trunc(1, "week", "binSize", "", "timezone", 1, "startOfWeek", "$nope"), want: `{"x":null}`},
		{expr: trunc(someDate, "week", "binSize", 1, "timezone", "GMT", "startOfWeek", 1), code: 5439015},
		{expr: trunc(someDate, "week", "binSize", 1, "timezone", "GMT", "startOfWeek", "FRIDIE"), code: 5439016},
	}...)
	checkExprs(t, coll, doc, cases)
}

// The manual's and MongoDB's own $dateFromParts cases: calendar and ISO
// week dates, values out of range carried over, time zones and offsets,
// numeric types, nulls and errors.
func TestDateFromParts(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("datefromparts")
	doc := bson.D{
		{Key: "minusOne", Value: -1}, {Key: "zero", Value: 0}, {Key: "one", Value: 1}, {Key: "thirteen", Value: 13},
		{Key: "twentyFive", Value: 25}, {Key: "sixtyOne", Value: 61}, {Key: "thousandAndOne", Value: 1001},
		{Key: "tenThousandMinusOne", Value: 9999}, {Key: "seventyMillion", Value: 71841012},
		{Key: "secondsSinceEpoch", Value: 1502095918}, {Key: "millisSinceEpoch", Value: int64(1502095918551)},
		{Key: "falseValue", Value: false}, {Key: "date", Value: bson.D{{Key: "year", Value: 2017}, {Key: "month", Value: 6}, {Key: "day", Value: 19}, {Key: "timezone", Value: "America/Chicago"}}},
	}
	parts := func(kv ...any) bson.D { return op("$dateFromParts", dargs(kv...)) }
	berlin := "2017-06-23T12:27:37.742Z"
	cases := []exprCase{
		// the manual's examples
		{expr: parts("year", 2017, "month", 2, "day", 8, "hour", 12), want: isoX("2017-02-08T12:00:00Z")},
		{expr: parts("isoWeekYear", 2017, "isoWeek", 6, "isoDayOfWeek", 3, "hour", 12), want: isoX("2017-02-08T12:00:00Z")},
		{expr: parts("year", 2017, "month", 2, "day", 8, "hour", 12, "timezone", "America/New_York"), want: isoX("2017-02-08T17:00:00Z")},
		{expr: parts("year", 2017, "month", 14, "day", 1, "hour", 12), want: isoX("2018-02-01T12:00:00Z")},
		{expr: parts("year", 2017, "month", 0, "day", 1, "hour", 12), want: isoX("2016-12-01T12:00:00Z")},
		{expr: parts("year", 2017, "month", 2, "day", 0), want: isoX("2017-01-31T00:00:00Z")},
		// every part in Berlin, and offsets
		{expr: parts("timezone", "Europe/Berlin", "year", 2017, "month", 6, "day", 23, "hour", 14, "minute", 27, "second", 37, "millisecond", 742), want: isoX(berlin)},
		{expr: parts("timezone", "Europe/Berlin", "year", int64(2017), "month", int64(6), "day", int64(23), "hour", int64(14), "minute", int64(27), "second", int64(37), "millisecond", int64(742)), want: isoX(berlin)},
		{expr: parts("timezone", "Europe/Berlin", "year", decimal("2017"), "month", decimal("6"), "day", decimal("23"), "hour", decimal("14"), "minute", decimal("27"), "second", decimal("37"), "millisecond", decimal("742")), want: isoX(berlin)},
		{expr: parts("timezone", "Europe/Berlin", "year", 2017.0, "month", 6.0, "day", 23.0, "hour", 14.0, "minute", 27.0, "second", 37.0, "millisecond", 742.0), want: isoX(berlin)},
		{expr: parts("timezone", "+02:00", "year", 2017, "month", 6, "day", 23, "hour", 14, "minute", 27, "second", 37, "millisecond", 742), want: isoX(berlin)},
		{expr: parts("timezone", "-02", "year", 2017, "month", 6, "day", 23, "hour", 10, "minute", 27, "second", 37, "millisecond", 742), want: isoX(berlin)},
		{expr: parts("timezone", "+04:15", "year", 2017, "month", 6, "day", 23, "hour", 16, "minute", 42, "second", 37, "millisecond", 742), want: isoX(berlin)},
		{expr: parts("timezone", "-0320", "year", 2017, "month", 6, "day", 19, "hour", 15, "minute", 1, "second", 51, "millisecond", 551), want: isoX("2017-06-19T18:21:51.551Z")},
		{expr: parts("year", 2017, "timezone", "Europe/Amsterdam"), want: isoX("2016-12-31T23:00:00Z")},
		{expr: parts("year", 2017, "timezone", "Asia/Tokyo"), want: isoX("2016-12-31T15:00:00Z")},
		{expr: parts("year", "$date.year", "month", "$date.month", "day", "$date.day", "timezone", "$date.timezone"), want: isoX("2017-06-19T05:00:00Z")},
		// ISO week dates
		{expr: parts("isoWeekYear", decimal("2017"), "isoWeek", 6.0, "isoDayOfWeek", int32(4)), want: isoX("2017-02-09T00:00:00Z")},
		{expr: parts("isoWeekYear", 2017, "isoWeek", 25, "isoDayOfWeek", 1, "hour", 15, "minute", 1, "second", 51, "millisecond", 551, "timezone", "-04:00"), want: isoX("2017-06-19T19:01:51.551Z")},
		{expr: parts("isoWeekYear", 2017, "isoWeek", 25, "isoDayOfWeek", 1, "hour", 15, "minute", 1, "second", 51, "millisecond", 551, "timezone", "+03"), want: isoX("2017-06-19T12:01:51.551Z")},
		{expr: parts("isoWeekYear", 2017, "isoWeek", 25, "isoDayOfWeek", 1, "hour", 15, "minute", 1, "second", 51, "millisecond", 551, "timezone", "America/New_York"), want: isoX("2017-06-19T19:01:51.551Z")},
		{expr: parts("isoWeekYear", 2017, "isoWeek", 25, "isoDayOfWeek", 1, "hour", 15, "minute", 1, "second", 51, "millisecond", 551, "timezone", "Europe/Amsterdam"), want: isoX("2017-06-19T13:01:51.551Z")},
		{expr: parts("isoWeekYear", 2017), want: isoX("2017-01-02T00:00:00Z")},
		{expr: parts("isoWeekYear", 2021, "isoWeek", 0), want: isoX("2020-12-28T00:00:00Z")},
		{expr: parts("isoWeekYear", 2021, "isoDayOfWeek", 8), want: isoX("2021-01-11T00:00:00Z")},
		// out-of-range values carry over
		{expr: parts("year", "$one"), want: isoX("0001-01-01T00:00:00Z")},
		{expr: parts("year", "$tenThousandMinusOne"), want: isoX("9999-01-01T00:00:00Z")},
		{expr: parts("year", 2017, "month", "$minusOne"), want: isoX("2016-11-01T00:00:00Z")},
		{expr: parts("year", 2017, "month", "$zero"), want: isoX("2016-12-01T00:00:00Z")},
		{expr: parts("year", 2017, "month", "$thirteen"), want: isoX("2018-01-01T00:00:00Z")},
		{expr: parts("year", 2017, "day", "$minusOne"), want: isoX("2016-12-30T00:00:00Z")},
		{expr: parts("year", 2017, "day", "$zero"), want: isoX("2016-12-31T00:00:00Z")},
		{expr: parts("year", 2017, "day", "$sixtyOne"), want: isoX("2017-03-02T00:00:00Z")},
		{expr: parts("year", 2017, "hour", "$minusOne"), want: isoX("2016-12-31T23:00:00Z")},
		{expr: parts("year", 2017, "hour", "$twentyFive"), want: isoX("2017-01-02T01:00:00Z")},
		{expr: parts("year", 2017, "minute", "$minusOne"), want: isoX("2016-12-31T23:59:00Z")},
		{expr: parts("year", 2017, "minute", "$zero"), want: isoX("2017-01-01T00:00:00Z")},
		{expr: parts("year", 2017, "minute", "$sixtyOne"), want: isoX("2017-01-01T01:01:00Z")},
		{expr: parts("year", 2017, "second", "$minusOne"), want: isoX("2016-12-31T23:59:59Z")},
		{expr: parts("year", 2017, "second", "$sixtyOne"), want: isoX("2017-01-01T00:01:01Z")},
		{expr: parts("year", 2017, "second", "$seventyMillion"), want: isoX("2019-04-12T11:50:12Z")},
		{expr: parts("year", 1970, "second", "$seventyMillion"), want: isoX("1972-04-11T11:50:12Z")},
		{expr: parts("year", 1970, "second", "$secondsSinceEpoch"), want: isoX("2017-08-07T08:51:58Z")},
		{expr: parts("year", 2017, "millisecond", "$minusOne"), want: isoX("2016-12-31T23:59:59.999Z")},
		{expr: parts("year", 2017, "millisecond", "$thousandAndOne"), want: isoX("2017-01-01T00:00:01.001Z")},
		{expr: parts("year", 2017, "millisecond", "$seventyMillion"), want: isoX("2017-01-01T19:57:21.012Z")},
		{expr: parts("year", 2017, "millisecond", "$secondsSinceEpoch"), want: isoX("2017-01-18T09:14:55.918Z")},
		{expr: parts("year", 1970, "millisecond", "$millisSinceEpoch"), want: isoX("2017-08-07T08:51:58.551Z")},
		{expr: parts("year", 2017, "month", 32767, "day", -32768, "hour", 32767, "minute", -32768), want: isoX("4661-06-14T12:52:00Z")},
		// nulls
		{expr: parts("year", "$nope"), want: `{"x":null}`},
		{expr: parts("year", 2017, "month", "$nope"), want: `{"x":null}`},
		{expr: parts("year", 2017, "day", nil), want: `{"x":null}`},
		{expr: parts("year", 2017, "millisecond", "$nope"), want: `{"x":null}`},
		{expr: parts("isoWeekYear", 2017, "isoWeek", "$nope"), want: `{"x":null}`},
		{expr: parts("isoWeekYear", 2017, "isoDayOfWeek", nil), want: `{"x":null}`},
		{expr: parts("year", 2017, "timezone", "$nope"), want: `{"x":null}`},
		// errors
		{expr: op("$dateFromParts", "$date"), code: 40519},
		{expr: op("$dateFromParts", true), code: 40519},
		{expr: op("$dateFromParts", bson.A{}), code: 40519},
		{expr: parts("unknown", true), code: 40518},
		{expr: op("$dateFromParts", bson.D{}), code: 40516},
		{expr: parts("timezone", "UTC"), code: 40516},
		{expr: parts("year", 2017, "isoWeekYear", 2017), code: 40489},
		{expr: parts("year", 2017, "isoWeek", 3), code: 40489},
		{expr: parts("year", 2017, "isoDayOfWeek", 5), code: 40489},
		{expr: parts("isoWeekYear", 2017, "month", 12), code: 40525},
		{expr: parts("isoWeekYear", 2017, "day", 17), code: 40525},
		{expr: parts("year", false), code: 40515, msg: "'year' must evaluate to an integer, found bool"},
		{expr: parts("year", "2017"), code: 40515},
		{expr: parts("year", 2017.3), code: 40515},
		{expr: parts("year", decimal("2017.3")), code: 40515},
		{expr: parts("year", 2017, "month", "$falseValue"), code: 40515},
		{expr: parts("isoWeekYear", 2017, "isoWeek", "$falseValue"), code: 40515},
		{expr: parts("year", 1970, "millisecond", 18014398509481984000.0), code: 40515, msg: "'millisecond' must evaluate to an integer"},
		{expr: parts("year", 1970, "millisecond", decimal("9223372036854775807000")), code: 40515},
		{expr: parts("year", 1970, "millisecond", 18014398509481984.0), code: 159},
		{expr: parts("year", 1970, "millisecond", decimal("9223372036854775807")), code: 159},
		{expr: parts("year", 1970, "second", int64(math.MaxInt64)), code: 159},
		{expr: parts("year", 1970, "millisecond", math.NaN()), code: 40515},
		{expr: parts("year", 2012, "timezone", "DoesNot/Exist"), code: 40485},
		{expr: parts("year", 2012, "timezone", 5), code: 40517},
		{expr: parts("year", 2017, "timezone", "$falseValue"), code: 40517},
		{expr: parts("year", 10002), code: 40523},
		{expr: parts("year", -1), code: 40523},
		{expr: parts("year", 0), code: 40523, msg: "'year' must evaluate to an integer in the range 1 to 9999"},
		{expr: parts("year", 10000), code: 40523},
		{expr: parts("year", 1970, "month", 32768), code: 31034, msg: "'month' must evaluate to a value in the range [-32768, 32767]"},
		{expr: parts("year", 1970, "month", -32769), code: 31034},
		{expr: parts("year", 1970, "day", 32768), code: 31034, msg: "'day'"},
		{expr: parts("year", 1970, "hour", -32769), code: 31034, msg: "'hour'"},
		{expr: parts("year", 1970, "minute", 32768), code: 31034, msg: "'minute'"},
		{expr: parts("isoWeekYear", 10000), code: 31095, msg: "'isoWeekYear' must evaluate to an integer in the range 1 to 9999"},
		{expr: parts("isoWeekYear", 0), code: 31095},
		{expr: parts("isoWeekYear", 1970, "isoWeek", 32768), code: 31034, msg: "'isoWeek'"},
		{expr: parts("isoWeekYear", 1970, "isoDayOfWeek", -32769), code: 31034, msg: "'isoDayOfWeek'"},
	}
	checkExprs(t, coll, doc, cases)
}

// MongoDB's own $dateToParts cases and the manual's: calendar and ISO
// parts, time zones, ObjectIds, dates before 1970, nulls and errors.
func TestDateToParts(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("datetoparts")
	oid, _ := bson.ObjectIDFromHex("58c7cba47bbadf523cf2c313")
	doc := bson.D{{Key: "date", Value: iso("2017-06-19T15:13:25.713Z")}, {Key: "oid", Value: oid}}
	toParts := func(kv ...any) bson.D { return op("$dateToParts", dargs(kv...)) }
	cal := func(y, mo, d, h, mi, s, ms int) string {
		return fmt.Sprintf(`{"x":{"year":%d,"month":%d,"day":%d,"hour":%d,"minute":%d,"second":%d,"millisecond":%d}}`, y, mo, d, h, mi, s, ms)
	}
	isoParts := func(y, w, d, h, mi, s, ms int) string {
		return fmt.Sprintf(`{"x":{"isoWeekYear":%d,"isoWeek":%d,"isoDayOfWeek":%d,"hour":%d,"minute":%d,"second":%d,"millisecond":%d}}`, y, w, d, h, mi, s, ms)
	}
	checkExprs(t, coll, doc, []exprCase{
		{expr: toParts("date", "$date"), want: cal(2017, 6, 19, 15, 13, 25, 713)},
		{expr: toParts("date", "$date", "timezone", "UTC"), want: cal(2017, 6, 19, 15, 13, 25, 713)},
		{expr: toParts("date", "$date", "timezone", "Europe/London"), want: cal(2017, 6, 19, 16, 13, 25, 713)},
		{expr: toParts("date", "$date", "timezone", "America/New_York"), want: cal(2017, 6, 19, 11, 13, 25, 713)},
		{expr: toParts("date", "$date", "timezone", "America/New_York", "iso8601", false), want: cal(2017, 6, 19, 11, 13, 25, 713)},
		{expr: toParts("date", "$date", "timezone", "America/New_York", "iso8601", true), want: isoParts(2017, 25, 1, 11, 13, 25, 713)},
		{expr: toParts("date", "$date", "timezone", "UTC", "iso8601", true), want: isoParts(2017, 25, 1, 15, 13, 25, 713)},
		{expr: toParts("date", "$date", "timezone", "+04:45"), want: cal(2017, 6, 19, 19, 58, 25, 713)},
		{expr: toParts("date", "$oid", "timezone", "Europe/London", "iso8601", false), want: cal(2017, 3, 14, 10, 53, 24, 0)},
		{expr: toParts("date", iso("2017-01-01T01:29:09.123Z"), "iso8601", true), want: isoParts(2016, 52, 7, 1, 29, 9, 123)},
		{expr: toParts("date", iso("1960-07-10T12:10:37.448Z")), want: cal(1960, 7, 10, 12, 10, 37, 448)},
		{expr: toParts("date", bson.DateTime(-1)), want: cal(1969, 12, 31, 23, 59, 59, 999)},
		{expr: toParts("date", bson.DateTime(math.MaxInt64)), want: cal(292278994, 8, 17, 7, 12, 55, 807)},
		{expr: toParts("date", bson.Timestamp{T: 1350336377}), want: cal(2012, 10, 15, 21, 26, 17, 0)},
		// nulls
		{expr: toParts("date", "$date", "timezone", "$tz"), want: `{"x":null}`},
		{expr: toParts("date", "$date", "iso8601", "$iso8601"), want: `{"x":null}`},
		{expr: toParts("date", "$nope"), want: `{"x":null}`},
		{expr: toParts("date", nil, "timezone", "UTC"), want: `{"x":null}`},
		// errors
		{expr: toParts("timezone", "$tz"), code: 40522},
		{expr: toParts("date", "$nope", "timezone", "Europe/London", "iso8601", 5), code: 40521},
		{expr: toParts("date", 42), code: 16006},
		{expr: toParts("date", "2017-06-19"), code: 16006},
		{expr: toParts("date", "$nope", "timezone", 5), code: 40517},
		{expr: toParts("date", "$date", "timezone", "DoesNot/Exist"), code: 40485},
		{expr: op("$dateToParts", "$date"), code: 40524},
		{expr: toParts("date", "$date", "format", "%Y"), code: 40520},
	})
}

// $dateToString on the manual's examples and MongoDB's own cases: time
// zones, the default format, nulls (a null timezone or format is a null
// result), and each argument's errors.
func TestDateToString(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("datetostring")
	doc := bson.D{{Key: "date", Value: iso("2014-01-01T08:15:39.736Z")}, {Key: "tz", Value: "America/New_York"}, {Key: "n", Value: nil}}
	str := func(kv ...any) bson.D { return op("$dateToString", dargs(kv...)) }
	checkExprs(t, coll, doc, []exprCase{
		{expr: str("format", "%Y-%m-%d", "date", "$date"), want: `{"x":"2014-01-01"}`},
		{expr: str("format", "%H:%M:%S:%L%z", "date", "$date", "timezone", "America/New_York"), want: `{"x":"03:15:39:736-0500"}`},
		{expr: str("format", "%j", "date", "$date"), want: `{"x":"001"}`},
		{expr: str("format", "%w", "date", "$date"), want: `{"x":"4"}`},
		{expr: str("format", "%U", "date", "$date"), want: `{"x":"00"}`},
		{expr: str("format", "%Z", "date", "$date", "timezone", "$tz"), want: `{"x":"-300"}`},
		{expr: str("date", "$date", "timezone", "$tz"), want: `{"x":"2014-01-01T03:15:39.736Z"}`},
		{expr: str("date", "$date"), want: `{"x":"2014-01-01T08:15:39.736Z"}`},
		{expr: str("format", "100%%", "date", "$date"), want: `{"x":"100%"}`},
		// nulls
		{expr: str("date", "$nope"), want: `{"x":null}`},
		{expr: str("date", "$n", "onNull", "none"), want: `{"x":"none"}`},
		{expr: str("date", "$date", "timezone", "$n"), want: `{"x":null}`},
		{expr: str("date", "$date", "timezone", "$nope"), want: `{"x":null}`},
		{expr: str("date", "$date", "format", nil), want: `{"x":null}`},
		{expr: str("date", "$date", "format", "$nope"), want: `{"x":null}`},
		{expr: str("date", "$nope", "timezone", 5), want: `{"x":null}`},
		// errors
		{expr: str("date", "$date", "format", 5), code: 18533, msg: "$dateToString requires that 'format' be a string, found: int with value 5"},
		{expr: str("date", "$nope", "format", 5), code: 18533},
		{expr: str("date", "$date", "format", "%"), code: 18535, msg: "Unmatched '%' at end of format string"},
		{expr: str("date", "$date", "format", "%n"), code: 18536, msg: "Invalid format character '%n' in format string"},
		{expr: str("date", "$date", "timezone", 5), code: 40517, msg: "timezone must evaluate to a string, found int"},
		{expr: str("date", "$date", "timezone", "DoesNotExist"), code: 40485, msg: "unrecognized time zone identifier"},
		{expr: str("date", "$date", "format", op("$bogus", 1)), code: 168},
		{expr: str("date", "$date", "timezone", op("$bogus", 1)), code: 168},
		{expr: str("date", "$date", "onNull", op("$bogus", 1)), code: 168},
		{expr: str("date", "$date", "format", op("$toInt", "x")), code: 241},
		{expr: str("date", "$date", "timezone", op("$toInt", "x")), code: 241},
		{expr: str("date", "$date", "other", 1), code: 18534, msg: "Unrecognized argument to $dateToString: other"},
		{expr: str("format", "%Y"), code: 18628, msg: "Missing 'date' parameter to $dateToString"},
		{expr: str("format", "%Y", "date", 42), code: 16006, msg: "can't convert from BSON type int to Date"},
		{expr: op("$dateToString", "$date"), code: 18629},
		// the date parts take a timezone by the same rules
		{expr: op("$year", dargs("date", "$date", "timezone", "$n")), want: `{"x":null}`},
		{expr: op("$hour", dargs("date", "$date", "timezone", "$tz")), want: `{"x":3}`},
		{expr: op("$hour", dargs("date", "$date", "timezone", 5)), code: 40517},
	})
}

// The manual's $dateFromString examples (log messages, onError, onNull)
// and MongoDB's own cases: formats, ISO weeks, zones in the string,
// offsets, abbreviations, nulls and errors.
func TestDateFromString(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("datefromstring")
	doc := bson.D{{Key: "n", Value: nil}}
	fs := func(kv ...any) bson.D { return op("$dateFromString", dargs(kv...)) }
	var cases []exprCase
	// strings read with and without a format
	for _, tc := range []struct{ in, format, want string }{
		{"2017-07-04T11:56:02Z", "%Y-%m-%dT%H:%M:%SZ", "2017-07-04T11:56:02Z"},
		{"2017-07-04T11:56:02.813Z", "%Y-%m-%dT%H:%M:%S.%LZ", "2017-07-04T11:56:02.813Z"},
		{"2017-07-04T11:56:02.81Z", "%Y-%m-%dT%H:%M:%S.%LZ", "2017-07-04T11:56:02.810Z"},
		{"2017-07-04T11:56:02.8Z", "%Y-%m-%dT%H:%M:%S.%LZ", "2017-07-04T11:56:02.800Z"},
		{"2017-07-04T11:56.02", "%Y-%m-%dT%H:%M.%S", "2017-07-04T11:56:02Z"},
		{"2017-07-04T11:56.02.813", "%Y-%m-%dT%H:%M.%S.%L", "2017-07-04T11:56:02.813Z"},
		{"2017-07-06T12:35:37", "%Y-%m-%dT%H:%M:%S", "2017-07-06T12:35:37Z"},
		{"1960-07-10T12:10:37.448", "%Y-%m-%dT%H:%M:%S.%L", "1960-07-10T12:10:37.448Z"},
		{"2017-07-14T12:02:44.771 GMT", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T12:02:44.771Z"},
		{"2017-07-14T12:02:44.771 GMT+00:00", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T12:02:44.771Z"},
		{"2017-07-14T12:02:44.771 GMT+02", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T10:02:44.771Z"},
		{"2017-07-14T12:02:44.771 GMT+02:00", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T10:02:44.771Z"},
		{"2017-07-14T12:02:44.771+03", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T09:02:44.771Z"},
		{"2017-07-14T12:02:44.771+0330", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T08:32:44.771Z"},
		{"2017-07-14T12:02:44.771+03:30", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T08:32:44.771Z"},
		{"2017-07-14T12:02:44.771 UTC", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T12:02:44.771Z"},
		{"2017-07-14T12:02:44.771 CEST", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T10:02:44.771Z"},
		{"2017-07-14T12:02:44.771 EST", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T17:02:44.771Z"},
		{"2017-07-14T12:02:44.771 PDT", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T19:02:44.771Z"},
		{"2017-07-14T12:02:44.771 A", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T11:02:44.771Z"},
		{"2017-07-14T12:02:44.771 L", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T01:02:44.771Z"},
		{"2017-07-14T12:02:44.771 P", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T15:02:44.771Z"},
		{"2017-07-14T12:02:44.771 Z", "%Y-%m-%dT%H:%M:%S.%L%z", "2017-07-14T12:02:44.771Z"},
	} {
		cases = append(cases,
			exprCase{expr: fs("dateString", tc.in), want: isoX(tc.want)},
			exprCase{expr: fs("dateString", tc.in, "format", tc.format), want: isoX(tc.want)})
	}
	// strings read only without a format
	for in, want := range map[string]string{
		"2017-02-08T12:10:40.787":      "2017-02-08T12:10:40.787Z",
		"2017-02-08":                   "2017-02-08T00:00:00Z",
		"2017-01-01 00:00:00":          "2017-01-01T00:00:00Z",
		"2017-07-06 11:36:54":          "2017-07-06T11:36:54Z",
		"2017-07-06 11:36":             "2017-07-06T11:36:00Z",
		"July 4th, 2017":               "2017-07-04T00:00:00Z",
		"July 4th, 2017 12:39:30 BST":  "2017-07-04T11:39:30Z",
		"July 4th, 2017 11am":          "2017-07-04T11:00:00Z",
		"July 4th, 2017 12pm":          "2017-07-04T12:00:00Z",
		"7/4/17":                       "2017-07-04T00:00:00Z",
		"04-07-2017":                   "2017-07-04T00:00:00Z",
		"2017-Jul-04 noon":             "2017-07-04T12:00:00Z",
		"2017-07-04 12:48:07 GMT+0545": "2017-07-04T07:03:07Z",
		"2017-07-04 12:48:07 GMT-0200": "2017-07-04T14:48:07Z",
		"2017/07/04":                   "2017-07-04T00:00:00Z",
	} {
		cases = append(cases, exprCase{expr: fs("dateString", in), want: isoX(want)})
	}
	cases = append(cases, []exprCase{
		// the manual's examples
		{expr: fs("dateString", "2017-02-08T12:10:40.787", "timezone", "America/New_York"), want: isoX("2017-02-08T17:10:40.787Z")},
		{expr: fs("dateString", "06-15-2018", "format", "%m-%d-%Y"), want: isoX("2018-06-15T00:00:00Z")},
		{expr: fs("dateString", "15-06-2018", "format", "%d-%m-%Y"), want: isoX("2018-06-15T00:00:00Z")},
		{expr: fs("dateString", "2017-02-08", "timezone", "America/New_York"), want: isoX("2017-02-08T05:00:00Z")},
		{expr: fs("dateString", "2017-02-08", "timezone", "-05:00"), want: isoX("2017-02-08T05:00:00Z")},
		{expr: fs("dateString", "2017-02-09", "timezone", "Europe/London"), want: isoX("2017-02-09T00:00:00Z")},
		{expr: fs("dateString", "2017-02-09T03:35:02.055", "timezone", "America/New_York"), want: isoX("2017-02-09T08:35:02.055Z")},
		{expr: fs("dateString", "2017-02-09T03:35:02.055", "timezone", "+0530"), want: isoX("2017-02-08T22:05:02.055Z")},
		{expr: fs("dateString", "$nope", "timezone", "America/New_York"), want: `{"x":null}`},
		{expr: fs("dateString", "20177-02-09T03:35:02.055", "timezone", "America/New_York", "onError", "20177-02-09T03:35:02.055"), want: `{"x":"20177-02-09T03:35:02.055"}`},
		{expr: fs("dateString", nil, "timezone", "America/New_York", "onNull", bson.DateTime(0)), want: isoX("1970-01-01T00:00:00Z")},
		// time zones from the argument
		{expr: fs("dateString", "2017-07-04T11:56.02", "timezone", "Europe/London"), want: isoX("2017-07-04T10:56:02Z")},
		{expr: fs("dateString", "2017-07-04T11:56.02.813", "timezone", "+01:00", "format", "%Y-%m-%dT%H:%M.%S.%L"), want: isoX("2017-07-04T10:56:02.813Z")},
		{expr: fs("dateString", "1960-07-10T12:35:37.513", "timezone", "America/New_York"), want: isoX("1960-07-10T16:35:37.513Z")},
		{expr: fs("dateString", "1960-07-10T12:35:37.513", "timezone", "Europe/London"), want: isoX("1960-07-10T11:35:37.513Z")},
		{expr: fs("dateString", "2017-07-06T12:35:37.513", "timezone", "America/Los_Angeles"), want: isoX("2017-07-06T19:35:37.513Z")},
		{expr: fs("dateString", "2017-07-06T12:35:37", "timezone", "Asia/Tokyo"), want: isoX("2017-07-06T03:35:37Z")},
		{expr: fs("dateString", "2017-07-06T12:35:37.513", "timezone", "GMT"), want: isoX("2017-07-06T12:35:37.513Z")},
		// formats the default reading does not accept
		{expr: fs("dateString", "05 12 1988", "format", "%d %m %Y"), want: isoX("1988-12-05T00:00:00Z")},
		{expr: fs("dateString", "1992 04 26", "format", "%Y %m %d"), want: isoX("1992-04-26T00:00:00Z")},
		{expr: fs("dateString", "05*12*1988", "format", "%d*%m*%Y"), want: isoX("1988-12-05T00:00:00Z")},
		{expr: fs("dateString", "1992/04/26", "format", "%Y/%m/%d"), want: isoX("1992-04-26T00:00:00Z")},
		{expr: fs("dateString", "1992 % 04 % 26", "format", "%Y %% %m %% %d"), want: isoX("1992-04-26T00:00:00Z")},
		{expr: fs("dateString", "Day: 05 Month: 12 Year: 1988", "format", "Day: %d Month: %m Year: %Y"), want: isoX("1988-12-05T00:00:00Z")},
		{expr: fs("dateString", "4/26/1992:+0445", "format", "%m/%d/%Y:%z"), want: isoX("1992-04-25T19:15:00Z")},
		{expr: fs("dateString", "4/26/1992:+285", "format", "%m/%d/%Y:%Z"), want: isoX("1992-04-25T19:15:00Z")},
		{expr: fs("dateString", "Jul 4 2017", "format", "%b %d %Y"), want: isoX("2017-07-04T00:00:00Z")},
		{expr: fs("dateString", "4 September 2017", "format", "%d %B %Y"), want: isoX("2017-09-04T00:00:00Z")},
		{expr: fs("dateString", "2020-060", "format", "%Y-%j"), want: isoX("2020-02-29T00:00:00Z")},
		// ISO week dates
		{expr: fs("dateString", "2017", "format", "%G"), want: isoX("2017-01-02T00:00:00Z")},
		{expr: fs("dateString", "2017, Week 53", "format", "%G, Week %V"), want: isoX("2018-01-01T00:00:00Z")},
		{expr: fs("dateString", "2017, Day 5", "format", "%G, Day %u"), want: isoX("2017-01-06T00:00:00Z")},
		{expr: fs("dateString", "53.7.2017", "format", "%V.%u.%G"), want: isoX("2018-01-07T00:00:00Z")},
		{expr: fs("dateString", "1.1.1", "format", "%V.%u.%G"), want: isoX("0001-01-01T00:00:00Z")},
		// incomplete and broken strings
		{expr: fs("dateString", "July 4th"), code: 241, msg: "an incomplete date/time string has been found"},
		{expr: fs("dateString", "12:50:53"), code: 241, msg: "an incomplete date/time string has been found"},
		{expr: fs("dateString", "2017, 12:50:53"), code: 241, msg: "Error parsing date string"},
		{expr: fs("dateString", "60.Monday1770/06:59"), code: 241, msg: "Error parsing date string"},
		{expr: fs("dateString", "2017-02-30"), code: 241},
		{expr: fs("dateString", "2017-02-08T25:00:00"), code: 241},
		{expr: fs("dateString", ""), code: 241},
		// nulls
		{expr: fs("dateString", "$n"), want: `{"x":null}`},
		{expr: fs("dateString", "2017-07-11T17:05:19Z", "timezone", "$n"), want: `{"x":null}`},
		{expr: fs("dateString", "2017-07-11T17:05:19Z", "format", "$nope"), want: `{"x":null}`},
		{expr: fs("dateString", "2017-07-11T17:05:19Z", "format", nil), want: `{"x":null}`},
		// onNull
		{expr: fs("dateString", nil, "onNull", iso("2017-07-04T11:56:02Z")), want: isoX("2017-07-04T11:56:02Z")},
		{expr: fs("dateString", "$nope", "onNull", 5), want: `{"x":5}`},
		{expr: fs("dateString", "$nope", "onNull", "$nope"), want: `{}`},
		{expr: fs("dateString", "2018-02-06T11:56:02Z", "timezone", nil, "onNull", 5), want: `{"x":null}`},
		{expr: fs("dateString", "2018-02-06T11:56:02Z", "format", "$nope", "onNull", 5), want: `{"x":null}`},
		// onError
		{expr: fs("dateString", "July 4th", "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", "2017", "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", "Not even close", "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", "July 4th, 10000", "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", 5, "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", bson.A{"2018-02-05"}, "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", nil, "onError", "bad"), want: `{"x":null}`},
		{expr: fs("dateString", "2018-02-06", "format", "%Y", "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", "2018-02-06", "format", "%Y-%m-%dT%H", "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", "2018-02-06", "format", "Y-m-d", "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", "2018-02-06T11:56:02Z", "format", nil, "onError", "bad"), want: `{"x":null}`},
		{expr: fs("dateString", "2018-02-06T11:56:02Z", "timezone", "$nope", "onError", "bad"), want: `{"x":null}`},
		{expr: fs("dateString", 5, "format", nil, "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", 5, "timezone", "$nope", "onError", "bad"), want: `{"x":"bad"}`},
		{expr: fs("dateString", "Invalid date string", "format", nil, "onError", "bad"), want: `{"x":null}`},
		{expr: fs("dateString", "invalid", "onError", "$nope"), want: `{}`},
		{expr: fs("dateString", "invalid", "onError", bson.D{}), want: `{"x":{}}`},
		{expr: fs("dateString", "4/26/1992", "format", 5, "onError", "bad"), code: 40684},
		{expr: fs("dateString", "4/26/1992", "format", "%n", "onError", "bad"), code: 18536, msg: "Invalid format character '%n' in format string"},
		{expr: fs("dateString", "2017", "timezone", "Nowhere/Land", "onError", "bad"), code: 40485},
		// errors
		{expr: op("$dateFromString", "no-object"), code: 40540, msg: "$dateFromString only supports an object as an argument"},
		{expr: fs("unknown", "$tz"), code: 40541, msg: "Unrecognized argument"},
		{expr: fs("format", "%Y"), code: 40542},
		{expr: fs("dateString", 5), code: 241, msg: "$dateFromString requires that 'dateString' be a string"},
		{expr: fs("dateString", "2017-07-12T22:23:55 GMT+02:00", "timezone", "Europe/Amsterdam"), code: 241},
		{expr: fs("dateString", "2017-07-12T22:23:55Z", "timezone", "Europe/Amsterdam"), code: 241},
		{expr: fs("dateString", "2017-07-12T22:23:55 America/New_York", "timezone", "Europe/Amsterdam"), code: 241},
		{expr: fs("dateString", "2017-07-12T22:23:55 Europe/Amsterdam"), code: 241},
		{expr: fs("dateString", "2018-01", "format", "%Y-%m-%d"), code: 241, msg: "Data missing"},
		{expr: fs("dateString", "2018-01", "format", "%Y"), code: 241, msg: "Trailing data"},
		{expr: fs("dateString", "1992-26-04", "format", "Y-d-m"), code: 241, msg: "Format literal not found"},
		{expr: fs("dateString", "1992", "format", "%n"), code: 18536, msg: "Invalid format character"},
		{expr: fs("dateString", "1992", "format", "%Y%"), code: 18535},
		{expr: fs("dateString", "4/26/1992:+0445", "format", "%m/%d/%Y:%z", "timezone", "+0500"), code: 241, msg: "you cannot pass in a date/time string with GMT offset together with a timezone argument"},
		{expr: fs("dateString", "4/26/1992", "format", 5), code: 40684, msg: "$dateFromString requires that 'format' be a string"},
		{expr: fs("dateString", "4/26/1992", "format", bson.D{}), code: 40684},
		{expr: fs("dateString", "ISO Day 6", "format", "ISO Day %u"), code: 241, msg: "The parsed date was invalid"},
		{expr: fs("dateString", "ISO Week 52", "format", "ISO Week %V"), code: 241, msg: "The parsed date was invalid"},
		{expr: fs("dateString", "ISO Week 1, 2018", "format", "ISO Week %V, %Y"), code: 241, msg: "Mixing of ISO dates with natural dates is not allowed"},
		{expr: fs("dateString", "12/31/2018", "format", "%m/%d/%G"), code: 241, msg: "Mixing of ISO dates with natural dates is not allowed"},
		{expr: fs("dateString", "12/31\x00/2018", "format", "%m/%d/%Y"), code: 241, msg: "Data missing"},
		{expr: fs("dateString", "12/31/2018", "format", "%m/%d\x00/%Y"), code: 241, msg: "Trailing data"},
		{expr: fs("dateString", "2017-07-04", "timezone", 5), code: 40517},
	}...)
	checkExprs(t, coll, doc, cases)
}
