package engine

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// densifyDates runs $densify on coll and prints each document's p and t
// (as a date).
func densifyDates(t *testing.T, coll *mongo.Collection, spec bson.D) string {
	t.Helper()
	var out []string
	for _, r := range aggregateM(t, coll, mongo.Pipeline{{{Key: "$densify", Value: spec}}, {{Key: "$sort", Value: bson.D{{Key: "p", Value: 1}, {Key: "t", Value: 1}}}}}) {
		d, _ := r["t"].(bson.DateTime)
		s := d.Time().UTC().Format("2006-01-02T15")
		if r["p"] != nil {
			s = fmt.Sprint(r["p"], ":", s)
		}
		out = append(out, s)
	}
	return fmt.Sprint(out)
}

// $densify by calendar units: each step added to the value before it as
// $dateAdd adds it, the day kept within the month (January 31, then the
// last day of February, then the 29th of each month).
func TestDensifyCalendarUnits(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("cal")
	at := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	agInsert(t, coll,
		bson.D{{Key: "t", Value: at(2024, 1, 31, 0)}},
		bson.D{{Key: "t", Value: at(2024, 5, 15, 0)}},
		bson.D{{Key: "p", Value: "a"}, {Key: "t", Value: at(2000, 2, 29, 0)}},
		bson.D{{Key: "p", Value: "a"}, {Key: "t", Value: at(2005, 3, 1, 0)}},
	)
	rng := func(step any, unit string, bounds any) bson.D {
		return bson.D{{Key: "step", Value: step}, {Key: "unit", Value: unit}, {Key: "bounds", Value: bounds}}
	}
	for _, tc := range []struct {
		name string
		spec bson.D
		want string
	}{
		{"months", bson.D{{Key: "field", Value: "t"}, {Key: "range", Value: rng(1, "month", bson.A{at(2024, 1, 31, 0), at(2024, 5, 16, 0)})}},
			"[2024-01-31T00 2024-02-29T00 2024-03-29T00 2024-04-29T00 2024-05-15T00 a:2000-02-29T00 a:2005-03-01T00]"},
		{"years by 2, per partition", bson.D{{Key: "field", Value: "t"}, {Key: "partitionByFields", Value: bson.A{"p"}}, {Key: "range", Value: rng(int64(2), "year", "partition")}},
			"[2024-01-31T00 2024-05-15T00 a:2000-02-29T00 a:2002-02-28T00 a:2004-02-28T00 a:2005-03-01T00]"},
		{"quarters within explicit bounds, the upper one excluded", bson.D{{Key: "field", Value: "t"}, {Key: "range", Value: rng(1.0, "quarter", bson.A{at(2023, 10, 1, 0), at(2024, 7, 1, 0)})}},
			"[2023-10-01T00 2024-01-01T00 2024-01-31T00 2024-04-01T00 2024-05-15T00 a:2000-02-29T00 a:2005-03-01T00]"},
		{"hours within explicit bounds", bson.D{{Key: "field", Value: "t"}, {Key: "range", Value: rng(7, "hour", bson.A{at(2024, 1, 30, 20), at(2024, 1, 31, 12)})}},
			"[2024-01-30T20 2024-01-31T00 2024-01-31T03 2024-01-31T10 2024-05-15T00 a:2000-02-29T00 a:2005-03-01T00]"},
	} {
		if got := densifyDates(t, coll, tc.spec); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// $densify of numbers of mixed types by a fractional step, with missing
// and null values left as they are.
func TestDensifyMixedNumbers(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("nums")
	agInsert(t, coll, bson.D{{Key: "x", Value: int32(1)}}, bson.D{{Key: "x", Value: int64(3)}}, bson.D{{Key: "x", Value: nil}}, bson.D{{Key: "y", Value: 1}})
	rows := aggregateM(t, coll, mongo.Pipeline{{{Key: "$densify", Value: bson.D{{Key: "field", Value: "x"}, {Key: "range", Value: bson.D{{Key: "step", Value: 0.5}, {Key: "bounds", Value: "full"}}}}}}})
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%v/%T", r["x"], r["x"]))
	}
	if fmt.Sprint(got) != "[<nil>/<nil> <nil>/<nil> 1/int32 1.5/float64 2/float64 2.5/float64 3/int64]" {
		t.Errorf("mixed numbers: %v", got)
	}
}

// $densify's argument errors, with MongoDB's codes.
func TestDensifyErrors(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("e")
	agInsert(t, coll, bson.D{{Key: "a", Value: 1}})
	d1, d2 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2020, 1, 3, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		spec bson.D
		code int32
	}{
		{"no bounds", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}}}}, 40414},
		{"no field", bson.D{{Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: "full"}}}}, 40414},
		{"no step", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "bounds", Value: "full"}}}}, 40414},
		{"a numeric field name", bson.D{{Key: "field", Value: 1.0}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: "full"}}}}, 14},
		{"a string step", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: "1"}, {Key: "bounds", Value: "full"}}}}, 14},
		{"partitionByFields a string", bson.D{{Key: "field", Value: "a"}, {Key: "partitionByFields", Value: "b"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: "full"}}}}, 14},
		{"a numeric unit", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: bson.A{d1, d2}}, {Key: "unit", Value: 1000}}}}, 14},
		{"one bound", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: bson.A{d1}}, {Key: "unit", Value: "second"}}}}, 5733403},
		{"a negative step", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: -1}, {Key: "bounds", Value: bson.A{0, 1}}}}}, 5733401},
		{"a $ field", bson.D{{Key: "field", Value: "$a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: bson.A{0, 1}}}}}, 16410},
		{"partition without partitionByFields", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: "partition"}}}}, 5733408},
		{"descending bounds", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: bson.A{2, 1}}}}}, 5733402},
		{"a unit with numeric bounds", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: bson.A{1, 2}}, {Key: "unit", Value: "second"}}}}, 5733409},
		{"a number and a date", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: bson.A{1, d1}}}}}, 5733406},
		{"a date and a number", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: bson.A{d1, 1}}, {Key: "unit", Value: "second"}}}}, 5733402},
		{"a fractional step over dates", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1.1}, {Key: "bounds", Value: bson.A{d1, d2}}, {Key: "unit", Value: "second"}}}}, 6586400},
		{"an unknown unit", bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: bson.A{d1, d2}}, {Key: "unit", Value: "fortnight"}}}}, 9},
	} {
		if got := agErrCode(t, coll, mongo.Pipeline{{{Key: "$densify", Value: tc.spec}}}); got != tc.code {
			t.Errorf("%s: code %d; want %d", tc.name, got, tc.code)
		}
	}
}

// Every value of the field must be a number, or a date with a unit
// (6053600), whatever comes first.
func TestDensifyValueTypes(t *testing.T) {
	c, _ := serve(t, "")
	d1 := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		vals []any
		unit string
	}{
		{"numbers with a unit", []any{1, 3, 5}, "day"},
		{"dates without a unit", []any{d1, d1.AddDate(0, 0, 2)}, ""},
		{"a number first, then dates, without a unit", []any{1, d1, d1.AddDate(0, 0, 2)}, ""},
		{"a number first, then dates, with a unit", []any{1, d1, d1.AddDate(0, 0, 2)}, "day"},
		{"a string among numbers", []any{1, "x", 5}, ""},
	} {
		coll := c.Database("d").Collection("v" + fmt.Sprint(len(tc.name)))
		for _, v := range tc.vals {
			agInsert(t, coll, bson.D{{Key: "val", Value: v}})
		}
		rng := bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: "full"}}
		if tc.unit != "" {
			rng = append(rng, bson.E{Key: "unit", Value: tc.unit})
		}
		if got := agErrCode(t, coll, mongo.Pipeline{{{Key: "$densify", Value: bson.D{{Key: "field", Value: "val"}, {Key: "range", Value: rng}}}}}); got != 6053600 {
			t.Errorf("%s: code %d; want 6053600", tc.name, got)
		}
	}
}

// Partitions as MongoDB's own tests hold them: "full" densifies every
// partition over the range of all of them, on the grid from the lowest
// value; explicit bounds reach partitions with no value inside them.
func TestDensifyPartitions(t *testing.T) {
	c, _ := serve(t, "")
	show := func(coll *mongo.Collection, spec bson.D) string {
		rows := aggregateM(t, coll, mongo.Pipeline{{{Key: "$densify", Value: spec}}, {{Key: "$sort", Value: bson.D{{Key: "val", Value: 1}, {Key: "part", Value: 1}}}}})
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprint(r["part"], ":", r["val"]))
		}
		return fmt.Sprint(out)
	}
	full := c.Database("d").Collection("full")
	agInsert(t, full, bson.D{{Key: "val", Value: 0}, {Key: "part", Value: 0}}, bson.D{{Key: "val", Value: 4}, {Key: "part", Value: 0}},
		bson.D{{Key: "val", Value: 0}, {Key: "part", Value: 1}}, bson.D{{Key: "val", Value: 5}, {Key: "part", Value: 1}}, bson.D{{Key: "val", Value: 10}, {Key: "part", Value: 2}})
	spec := bson.D{{Key: "field", Value: "val"}, {Key: "partitionByFields", Value: bson.A{"part"}}, {Key: "range", Value: bson.D{{Key: "step", Value: 2}, {Key: "bounds", Value: "full"}}}}
	if got := show(full, spec); got != "[0:0 1:0 2:0 0:2 1:2 2:2 0:4 1:4 2:4 1:5 0:6 1:6 2:6 0:8 1:8 2:8 0:10 1:10 2:10]" {
		t.Errorf("full: %s", got)
	}
	rng := c.Database("d").Collection("rng")
	agInsert(t, rng, bson.D{{Key: "val", Value: 0}, {Key: "part", Value: 0}}, bson.D{{Key: "val", Value: 10}, {Key: "part", Value: 1}})
	spec = bson.D{{Key: "field", Value: "val"}, {Key: "partitionByFields", Value: bson.A{"part"}}, {Key: "range", Value: bson.D{{Key: "step", Value: 2}, {Key: "bounds", Value: bson.A{2, 5}}}}}
	if got := show(rng, spec); got != "[0:0 0:2 1:2 0:4 1:4 1:10]" {
		t.Errorf("explicit bounds off the step: %s", got)
	}
}
