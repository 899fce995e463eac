package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// agInsert fills coll with docs.
func agInsert(t *testing.T, coll *mongo.Collection, docs ...any) {
	t.Helper()
	if _, err := coll.InsertMany(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
}

// agErrCode is the code of the error running pipeline gives; 0 when it
// succeeds.
func agErrCode(t *testing.T, coll *mongo.Collection, pipeline mongo.Pipeline) int32 {
	t.Helper()
	cur, err := coll.Aggregate(context.Background(), pipeline)
	if err == nil {
		var rows []bson.M
		err = cur.All(context.Background(), &rows)
	}
	if err == nil {
		return 0
	}
	var se mongo.ServerError
	if !errors.As(err, &se) {
		t.Fatalf("not a server error: %v", err)
	}
	for _, c := range []int32{2, 9, 14, 16556, 5339900, 5339901, 5339902, 8947401, 5429413, 5429414, 5429513,
		5371602, 605001, 6050106, 6050200, 6050201, 6050202, 6050203, 6050204, 5490710, 5624900, 5624901, 5624902, 5624903, 5423900, 5423901, 5423902,
		40257, 40258, 40259, 40260, 40241, 40243, 40245, 40239, 40244, 40202, 40196, 40414, 40415, 5733401, 5733402, 5733403, 5733406, 5733408, 5733409, 16410, 6586400, 6053600, 7750301, 7750302, 7750303, 5787801, 7429703, 7436100} {
		if se.HasErrorCode(int(c)) {
			return c
		}
	}
	t.Fatalf("an error with an unexpected code: %v", err)
	return -1
}

// swf is a $setWindowFields stage.
func swf(partitionBy any, sortBy bson.D, output bson.D) bson.D {
	spec := bson.D{}
	if partitionBy != nil {
		spec = append(spec, bson.E{Key: "partitionBy", Value: partitionBy})
	}
	if sortBy != nil {
		spec = append(spec, bson.E{Key: "sortBy", Value: sortBy})
	}
	return bson.D{{Key: "$setWindowFields", Value: append(spec, bson.E{Key: "output", Value: output})}}
}

// fn is an output field: a window function with its argument and an
// optional window.
func fn(op string, arg any, window bson.D) bson.D {
	d := bson.D{{Key: op, Value: arg}}
	if window != nil {
		d = append(d, bson.E{Key: "window", Value: window})
	}
	return d
}

// column is the value of field in each row, printed.
func column(rows []bson.M, field string) string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r[field]))
	}
	return fmt.Sprint(out)
}

// Numeric range windows: bounds added to the current sortBy value, with
// numbers of every type in sortBy, "current" and "unbounded".
func TestWindowRangeNumeric(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("r")
	agInsert(t, coll,
		bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: int32(1)}, {Key: "v", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: int64(2)}, {Key: "v", Value: 2}},
		bson.D{{Key: "_id", Value: 3}, {Key: "x", Value: 2.5}, {Key: "v", Value: 4}},
		bson.D{{Key: "_id", Value: 4}, {Key: "x", Value: mustDecimal(t, "4")}, {Key: "v", Value: 8}},
		bson.D{{Key: "_id", Value: 5}, {Key: "x", Value: 7}, {Key: "v", Value: 16}},
		bson.D{{Key: "_id", Value: 6}, {Key: "x", Value: 7}, {Key: "v", Value: 32}},
	)
	byX := bson.D{{Key: "x", Value: 1}}
	rng := func(lo, hi any) bson.D { return bson.D{{Key: "range", Value: bson.A{lo, hi}}} }
	for _, tc := range []struct {
		name   string
		window bson.D
		want   string
	}{
		{"[-1, 1]", rng(-1, 1), "[3 7 6 8 48 48]"},
		{"[-1.5, 0]", rng(-1.5, 0), "[1 3 7 12 48 48]"},
		{"[0, 0] takes equal values", rng(0, 0), "[1 2 4 8 48 48]"},
		{"[unbounded, current]", rng("unbounded", "current"), "[1 3 7 15 31 63]"},
		{"[current, unbounded]", rng("current", "unbounded"), "[63 62 60 56 48 32]"},
		{"[-10, -3]: before the partition", rng(-10, -3), "[0 0 0 1 15 15]"},
		{"[3, 10]: after the partition", rng(3, 10), "[56 48 48 48 0 0]"},
		{"[unbounded, unbounded]", rng("unbounded", "unbounded"), "[63 63 63 63 63 63]"},
		{"bounds from constant expressions", rng(bson.D{{Key: "$literal", Value: -1}}, bson.D{{Key: "$add", Value: bson.A{0.5, 0.5}}}), "[3 7 6 8 48 48]"},
	} {
		rows := aggregateM(t, coll, mongo.Pipeline{swf(nil, byX, bson.D{{Key: "s", Value: fn("$sum", "$v", tc.window)}})})
		if got := column(rows, "s"); got != tc.want {
			t.Errorf("%s: $sum = %s; want %s", tc.name, got, tc.want)
		}
	}
	// $push over an empty window is [], $avg null, $count 0
	rows := aggregateM(t, coll, mongo.Pipeline{swf(nil, byX, bson.D{
		{Key: "p", Value: fn("$push", "$v", rng(100, 200))},
		{Key: "a", Value: fn("$avg", "$v", rng(100, 200))},
		{Key: "n", Value: fn("$count", bson.D{}, rng(-1, 0))},
	})})
	if got := column(rows, "p") + column(rows, "a") + column(rows, "n"); got != "[[] [] [] [] [] []][<nil> <nil> <nil> <nil> <nil> <nil>][1 2 2 1 2 2]" {
		t.Errorf("empty windows and $count: %s", got)
	}
}

func mustDecimal(t *testing.T, s string) bson.Decimal128 {
	t.Helper()
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Time range windows: the bounds in a unit added as $dateAdd does, month
// arithmetic keeping the day within the month.
func TestWindowRangeTime(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("t")
	day := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	dates := []time.Time{day(2024, 1, 31, 0), day(2024, 2, 29, 0), day(2024, 3, 1, 0), day(2024, 3, 1, 12), day(2024, 4, 30, 0), day(2025, 2, 28, 0)}
	for i, d := range dates {
		agInsert(t, coll, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: "a"}, {Key: "t", Value: d}, {Key: "v", Value: 1 << i}})
	}
	byT := bson.D{{Key: "t", Value: 1}}
	win := func(unit string, lo, hi any) bson.D {
		return bson.D{{Key: "range", Value: bson.A{lo, hi}}, {Key: "unit", Value: unit}}
	}
	for _, tc := range []struct {
		name   string
		window bson.D
		want   string
	}{
		// January 31 plus a month is February 29, not March 2
		{"month [0, 1]", win("month", 0, 1), "[3 14 12 8 16 32]"},
		{"day [-1, 0]", win("day", -1, 0), "[1 2 6 12 16 32]"},
		{"hour [0, 12]", win("hour", 0, 12), "[1 2 12 8 16 32]"},
		{"week [-5, current]", win("week", -5, "current"), "[1 3 7 15 16 32]"},
		{"quarter [unbounded, -1]", win("quarter", "unbounded", -1), "[0 0 0 0 0 31]"},
		// February 29 2024 plus a year is February 28 2025
		{"year [current, 1]", win("year", "current", 1), "[31 62 60 56 48 32]"},
		{"minute [-1440, 0]", win("minute", -1440, 0), "[1 2 6 12 16 32]"},
		{"second, millisecond [0, 0]", win("millisecond", 0, 0), "[1 2 4 8 16 32]"},
	} {
		rows := aggregateM(t, coll, mongo.Pipeline{swf("$s", byT, bson.D{{Key: "s", Value: fn("$sum", "$v", tc.window)}})})
		if got := column(rows, "s"); got != tc.want {
			t.Errorf("%s: $sum = %s; want %s", tc.name, got, tc.want)
		}
	}
}

// The manual's rules for windows, each refused with MongoDB's code.
func TestWindowErrors(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("e")
	agInsert(t, coll,
		bson.D{{Key: "x", Value: 1}, {Key: "t", Value: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}, {Key: "s", Value: "a"}, {Key: "arr", Value: bson.A{1}}},
		bson.D{{Key: "x", Value: 2}, {Key: "t", Value: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)}, {Key: "s", Value: "b"}, {Key: "arr", Value: bson.A{2}}},
	)
	byX := bson.D{{Key: "x", Value: 1}}
	rng := bson.D{{Key: "range", Value: bson.A{-1, 1}}}
	sum := func(w bson.D) bson.D { return bson.D{{Key: "o", Value: fn("$sum", "$x", w)}} }
	for _, tc := range []struct {
		name  string
		stage bson.D
		code  int32
	}{
		{"range without sortBy", swf(nil, nil, sum(rng)), 5339902},
		{"range with a compound sortBy", swf(nil, bson.D{{Key: "x", Value: 1}, {Key: "s", Value: 1}}, sum(rng)), 5339902},
		{"range with a descending sortBy", swf(nil, bson.D{{Key: "x", Value: -1}}, sum(rng)), 8947401},
		{"range over strings", swf(nil, bson.D{{Key: "s", Value: 1}}, sum(rng)), 5429414},
		{"range over a missing field", swf(nil, bson.D{{Key: "nope", Value: 1}}, sum(rng)), 5429414},
		{"range over dates without unit", swf(nil, bson.D{{Key: "t", Value: 1}}, sum(rng)), 5429413},
		{"range with unit over numbers", swf(nil, byX, sum(bson.D{{Key: "range", Value: bson.A{-1, 1}}, {Key: "unit", Value: "day"}})), 5429513},
		{"lower above upper", swf(nil, byX, sum(bson.D{{Key: "range", Value: bson.A{2, 1}}})), 5339900},
		{"lower above current", swf(nil, byX, sum(bson.D{{Key: "documents", Value: bson.A{1, "current"}}})), 5339900},
		{"unknown unit", swf(nil, byX, sum(bson.D{{Key: "range", Value: bson.A{-1, 1}}, {Key: "unit", Value: "fortnight"}})), 9},
		{"fractional bound with unit", swf(nil, byX, sum(bson.D{{Key: "range", Value: bson.A{-1.5, 1}}, {Key: "unit", Value: "day"}})), 9},
		{"string bound", swf(nil, byX, sum(bson.D{{Key: "range", Value: bson.A{"soon", 1}}})), 9},
		{"a bound from a field", swf(nil, byX, sum(bson.D{{Key: "range", Value: bson.A{bson.D{{Key: "$add", Value: bson.A{"$x", 1}}}, 1}}})), 9},
		{"three bounds", swf(nil, byX, sum(bson.D{{Key: "range", Value: bson.A{1, 2, 3}}})), 9},
		{"documents and range", swf(nil, byX, sum(bson.D{{Key: "range", Value: bson.A{1, 2}}, {Key: "documents", Value: bson.A{1, 2}}})), 9},
		{"unit without range", swf(nil, byX, sum(bson.D{{Key: "documents", Value: bson.A{1, 2}}, {Key: "unit", Value: "day"}})), 9},
		{"fractional document bound", swf(nil, byX, sum(bson.D{{Key: "documents", Value: bson.A{-1.5, 0}}})), 9},
		{"document bounds without sortBy", swf(nil, nil, sum(bson.D{{Key: "documents", Value: bson.A{-1, 0}}})), 5339901},
		{"unknown function", swf(nil, byX, bson.D{{Key: "o", Value: bson.D{{Key: "$summ", Value: "$x"}}}}), 9},
		{"two functions", swf(nil, byX, bson.D{{Key: "o", Value: bson.D{{Key: "$sum", Value: "$x"}, {Key: "$avg", Value: "$x"}}}}), 9},
		{"an unknown argument", swf(nil, byX, bson.D{{Key: "o", Value: bson.D{{Key: "$sum", Value: "$x"}, {Key: "windoww", Value: bson.D{}}}}}), 9},
		{"$rank with a window", swf(nil, byX, bson.D{{Key: "o", Value: fn("$rank", bson.D{}, bson.D{{Key: "documents", Value: bson.A{-1, 0}}})}}), 9},
		{"$rank without sortBy", swf(nil, nil, bson.D{{Key: "o", Value: fn("$rank", bson.D{}, nil)}}), 5371602},
		{"$derivative without a window", swf(nil, byX, bson.D{{Key: "o", Value: fn("$derivative", bson.D{{Key: "input", Value: "$x"}}, nil)}}), 9},
		{"$derivative by month", swf(nil, bson.D{{Key: "t", Value: 1}}, bson.D{{Key: "o", Value: fn("$derivative", bson.D{{Key: "input", Value: "$x"}, {Key: "unit", Value: "month"}}, rng)}}), 5490710},
		{"$integral without sortBy", swf(nil, nil, bson.D{{Key: "o", Value: fn("$integral", bson.D{{Key: "input", Value: "$x"}}, nil)}}), 9},
		{"$integral with unit over numbers", swf(nil, byX, bson.D{{Key: "o", Value: fn("$integral", bson.D{{Key: "input", Value: "$x"}, {Key: "unit", Value: "hour"}}, nil)}}), 5423901},
		{"$derivative with unit over numbers", swf(nil, byX, bson.D{{Key: "o", Value: fn("$derivative", bson.D{{Key: "input", Value: "$x"}, {Key: "unit", Value: "hour"}}, bson.D{{Key: "documents", Value: bson.A{-1, 0}}})}}), 5624900},
		{"$derivative over dates without unit", swf(nil, bson.D{{Key: "t", Value: 1}}, bson.D{{Key: "o", Value: fn("$derivative", bson.D{{Key: "input", Value: "$x"}}, bson.D{{Key: "documents", Value: bson.A{-1, 0}}})}}), 5624901},
		{"$derivative of a missing input", swf(nil, byX, bson.D{{Key: "o", Value: fn("$derivative", bson.D{{Key: "input", Value: "$nope"}}, bson.D{{Key: "documents", Value: bson.A{-1, 0}}})}}), 5624903},
		{"$expMovingAvg without sortBy", swf(nil, nil, bson.D{{Key: "o", Value: fn("$expMovingAvg", bson.D{{Key: "input", Value: "$x"}, {Key: "N", Value: 2}}, nil)}}), 9},
		{"$expMovingAvg with N and alpha", swf(nil, byX, bson.D{{Key: "o", Value: fn("$expMovingAvg", bson.D{{Key: "input", Value: "$x"}, {Key: "N", Value: 2}, {Key: "alpha", Value: 0.5}}, nil)}}), 9},
		{"$expMovingAvg with N 0", swf(nil, byX, bson.D{{Key: "o", Value: fn("$expMovingAvg", bson.D{{Key: "input", Value: "$x"}, {Key: "N", Value: 0}}, nil)}}), 9},
		{"$expMovingAvg with N 1.5", swf(nil, byX, bson.D{{Key: "o", Value: fn("$expMovingAvg", bson.D{{Key: "input", Value: "$x"}, {Key: "N", Value: 1.5}}, nil)}}), 9},
		{"$expMovingAvg with alpha 1", swf(nil, byX, bson.D{{Key: "o", Value: fn("$expMovingAvg", bson.D{{Key: "input", Value: "$x"}, {Key: "alpha", Value: 1}}, nil)}}), 9},
		{"$expMovingAvg with a window", swf(nil, byX, bson.D{{Key: "o", Value: fn("$expMovingAvg", bson.D{{Key: "input", Value: "$x"}, {Key: "N", Value: 2}}, rng)}}), 9},
		{"$linearFill with a compound sortBy", swf(nil, bson.D{{Key: "x", Value: 1}, {Key: "s", Value: 1}}, bson.D{{Key: "o", Value: fn("$linearFill", "$x", nil)}}), 605001},
		{"$locf with a window", swf(nil, byX, bson.D{{Key: "o", Value: fn("$locf", "$x", rng)}}), 9},
		{"partitionBy an array", swf("$arr", byX, sum(nil)), 14},
		{"no output", bson.D{{Key: "$setWindowFields", Value: bson.D{{Key: "sortBy", Value: byX}}}}, 40414},
		{"output not an object", bson.D{{Key: "$setWindowFields", Value: bson.D{{Key: "output", Value: 1}}}}, 14},
		{"an unknown field", bson.D{{Key: "$setWindowFields", Value: bson.D{{Key: "window", Value: 1}, {Key: "output", Value: bson.D{}}}}}, 40415},
	} {
		if got := agErrCode(t, coll, mongo.Pipeline{tc.stage}); got != tc.code {
			t.Errorf("%s: code %d; want %d", tc.name, got, tc.code)
		}
	}
}

// $expMovingAvg on the manual's stock prices, by N and by alpha; a
// missing price leaves the average as it was.
func TestWindowExpMovingAvg(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("stockPrices")
	day := func(d int) time.Time { return time.Date(2020, 5, d, 20, 0, 0, 0, time.UTC) }
	for i, p := range []float64{13, 15.4, 12, 11.7} {
		agInsert(t, coll, bson.D{{Key: "stock", Value: "MDB"}, {Key: "date", Value: day(18 + i)}, {Key: "price", Value: p}})
	}
	for i, p := range []any{82, 94, 112, 97.3} {
		agInsert(t, coll, bson.D{{Key: "stock", Value: "MSFT"}, {Key: "date", Value: day(18 + i)}, {Key: "price", Value: p}})
	}
	agInsert(t, coll, bson.D{{Key: "stock", Value: "MSFT"}, {Key: "date", Value: day(25)}})
	byDate := bson.D{{Key: "date", Value: 1}}
	run := func(arg bson.D) string {
		rows := aggregateM(t, coll, mongo.Pipeline{swf("$stock", byDate, bson.D{{Key: "ema", Value: fn("$expMovingAvg", arg, nil)}})})
		return column(rows, "ema")
	}
	if got := run(bson.D{{Key: "input", Value: "$price"}, {Key: "N", Value: 2}}); got != "[13 14.6 12.866666666666667 12.088888888888889 82 90 104.66666666666667 99.75555555555556 99.75555555555556]" {
		t.Errorf("N 2: %s", got)
	}
	if got := run(bson.D{{Key: "input", Value: "$price"}, {Key: "alpha", Value: 0.75}}); got != "[13 14.8 12.7 11.95 82 91 106.75 99.6625 99.6625]" {
		t.Errorf("alpha 0.75: %s", got)
	}
	// a decimal input makes the average a decimal from there on
	dec := c.Database("d").Collection("dec")
	agInsert(t, dec, bson.D{{Key: "i", Value: 1}, {Key: "v", Value: 10}}, bson.D{{Key: "i", Value: 2}, {Key: "v", Value: mustDecimal(t, "20")}},
		bson.D{{Key: "i", Value: 3}, {Key: "v", Value: 25}})
	rows := aggregateM(t, dec, mongo.Pipeline{swf(nil, bson.D{{Key: "i", Value: 1}},
		bson.D{{Key: "e", Value: fn("$expMovingAvg", bson.D{{Key: "input", Value: "$v"}, {Key: "N", Value: 3}}, nil)}})})
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%T:%v", r["e"], r["e"]))
	}
	if fmt.Sprint(got) != "[float64:10 bson.Decimal128:15 bson.Decimal128:20]" {
		t.Errorf("decimals: %v", got)
	}
}

// $derivative and $integral on the manual's delivery fleet and power
// meters: per hour, over time ranges, and over documents.
func TestWindowDerivativeIntegral(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("fleet")
	at := func(m, s int) time.Time { return time.Date(2020, 5, 18, 14, m, s, 0, time.UTC) }
	miles := map[string][]float64{"1": {1295.1, 1295.63, 1296.17, 1296.84}, "2": {10234.1, 10234.33, 10234.73, 10235.13}}
	for _, truck := range []string{"1", "2"} {
		for i, m := range miles[truck] {
			agInsert(t, coll, bson.D{{Key: "truckID", Value: truck}, {Key: "timeStamp", Value: at(10+(30+30*i)/60, (30+30*i)%60)}, {Key: "miles", Value: m}})
		}
	}
	byTime := bson.D{{Key: "timeStamp", Value: 1}}
	rows := aggregateM(t, coll, mongo.Pipeline{swf("$truckID", byTime, bson.D{
		{Key: "speed", Value: fn("$derivative", bson.D{{Key: "input", Value: "$miles"}, {Key: "unit", Value: "hour"}},
			bson.D{{Key: "range", Value: bson.A{-30, 0}}, {Key: "unit", Value: "second"}})},
		{Key: "area", Value: fn("$integral", bson.D{{Key: "input", Value: "$miles"}, {Key: "unit", Value: "hour"}},
			bson.D{{Key: "range", Value: bson.A{"unbounded", "current"}}, {Key: "unit", Value: "hour"}})},
	})})
	if len(rows) != 8 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		truck, k := r["truckID"].(string), i%4
		m := miles[truck]
		if k == 0 {
			if r["speed"] != nil || r["area"] != 0.0 {
				t.Errorf("first reading of truck %s: speed %v, area %v; want null and 0", truck, r["speed"], r["area"])
			}
			continue
		}
		if want := (m[k] - m[k-1]) / 30000 * 3600000; r["speed"] != want {
			t.Errorf("truck %s reading %d: speed %v; want %v", truck, k, r["speed"], want)
		}
		area := 0.0
		for j := 1; j <= k; j++ {
			area += (m[j-1] + m[j]) * 30000 / 2
		}
		if got, ok := r["area"].(float64); !ok || math.Abs(got-area/3600000) > 1e-9 {
			t.Errorf("truck %s reading %d: area %v; want %v", truck, k, r["area"], area/3600000)
		}
	}
	// without a unit, over numbers and a document window
	nums := c.Database("d").Collection("nums")
	for i, y := range []int{0, 42, 67, 99, 20} {
		agInsert(t, nums, bson.D{{Key: "time", Value: []int{0, 1, 3, 7, 10}[i]}, {Key: "y", Value: y}})
	}
	rows = aggregateM(t, nums, mongo.Pipeline{swf(nil, bson.D{{Key: "time", Value: 1}}, bson.D{
		{Key: "dy", Value: fn("$derivative", bson.D{{Key: "input", Value: "$y"}}, bson.D{{Key: "documents", Value: bson.A{-1, 0}}})},
		{Key: "area", Value: fn("$integral", bson.D{{Key: "input", Value: "$y"}}, bson.D{{Key: "documents", Value: bson.A{-1, 0}}})},
	})})
	if got := column(rows, "dy") + column(rows, "area"); got != "[<nil> 42 12.5 8 -26.333333333333332][0 21 109 332 178.5]" {
		t.Errorf("derivative and integral over numbers: %s", got)
	}
}

// $covariancePop and $covarianceSamp, $locf, $linearFill, and the
// accumulators $stdDevPop, $stdDevSamp, $push, $addToSet, $minN,
// $median over windows, with nulls, missing values and mixed types.
func TestWindowFunctions(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("f")
	agInsert(t, coll,
		bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 1}, {Key: "y", Value: int64(2)}},
		bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 2}, {Key: "y", Value: nil}},
		bson.D{{Key: "_id", Value: 3}, {Key: "x", Value: 3}},
		bson.D{{Key: "_id", Value: 4}, {Key: "x", Value: 4}, {Key: "y", Value: 8.0}},
		bson.D{{Key: "_id", Value: 5}, {Key: "x", Value: 5}, {Key: "y", Value: "text"}},
		bson.D{{Key: "_id", Value: 6}, {Key: "x", Value: 6}, {Key: "y", Value: mustDecimal(t, "2")}},
	)
	byX := bson.D{{Key: "x", Value: 1}}
	all := bson.D{{Key: "documents", Value: bson.A{"unbounded", "unbounded"}}}
	prefix := bson.D{{Key: "documents", Value: bson.A{"unbounded", "current"}}}
	rows := aggregateM(t, coll, mongo.Pipeline{swf(nil, byX, bson.D{
		{Key: "covPop", Value: fn("$covariancePop", bson.A{"$x", "$y"}, all)},
		{Key: "covSamp", Value: fn("$covarianceSamp", bson.A{"$x", "$y"}, prefix)},
		{Key: "locf", Value: fn("$locf", "$y", nil)},
		{Key: "sdPop", Value: fn("$stdDevPop", "$y", prefix)},
		{Key: "sdSamp", Value: fn("$stdDevSamp", "$y", all)},
		{Key: "push", Value: fn("$push", "$y", bson.D{{Key: "documents", Value: bson.A{-1, 0}}})},
		{Key: "set", Value: fn("$addToSet", "$y", bson.D{{Key: "range", Value: bson.A{0, 5}}})},
		{Key: "minN", Value: fn("$minN", bson.D{{Key: "input", Value: "$y"}, {Key: "n", Value: 2}}, prefix)},
		{Key: "median", Value: fn("$median", bson.D{{Key: "input", Value: "$x"}, {Key: "method", Value: "approximate"}}, bson.D{{Key: "documents", Value: bson.A{-1, 1}}})},
	})})
	for _, tc := range []struct{ field, want string }{
		{"locf", "[2 2 2 8 text 2]"},
		{"push", "[[2] [2 <nil>] [<nil>] [8] [8 text] [text 2]]"},
		{"set", "[[2 <nil> 8 text] [<nil> 8 text 2] [8 text 2] [8 text 2] [text 2] [2]]"},
		{"minN", "[[2] [2] [2] [2 8] [2 8] [2 2]]"},
		{"median", "[1 2 3 4 5 5]"},
	} {
		if got := column(rows, tc.field); got != tc.want {
			t.Errorf("%s = %s; want %s", tc.field, got, tc.want)
		}
	}
	// pairs (1,2), (4,8), (6,2); null where a value is not a number
	for _, tc := range []struct {
		field string
		want  []float64
	}{
		{"covPop", []float64{2.0 / 3, 2.0 / 3, 2.0 / 3, 2.0 / 3, 2.0 / 3, 2.0 / 3}},
		{"covSamp", []float64{math.NaN(), math.NaN(), math.NaN(), 9, 9, 1}},
		{"sdPop", []float64{0, 0, 0, 3, 3, math.Sqrt(8)}},
		{"sdSamp", []float64{math.Sqrt(12), math.Sqrt(12), math.Sqrt(12), math.Sqrt(12), math.Sqrt(12), math.Sqrt(12)}},
	} {
		for i, r := range rows {
			got, ok := r[tc.field].(float64)
			if math.IsNaN(tc.want[i]) {
				ok = r[tc.field] == nil
			} else {
				ok = ok && math.Abs(got-tc.want[i]) < 1e-12
			}
			if !ok {
				t.Errorf("%s of document %d = %v; want %v", tc.field, i+1, r[tc.field], tc.want[i])
			}
		}
	}
	// $linearFill between numbers by a numeric sortBy and by dates; the
	// ends stay null
	lf := c.Database("d").Collection("lf")
	t0 := time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)
	for i, y := range []any{nil, 10, nil, nil, 40, nil, int64(100), nil} {
		doc := bson.D{{Key: "x", Value: []int{0, 1, 2, 3, 4, 7, 10, 11}[i]}, {Key: "t", Value: t0.Add(time.Duration([]int{0, 1, 2, 3, 4, 7, 10, 11}[i]) * time.Hour)}}
		if y != nil {
			doc = append(doc, bson.E{Key: "y", Value: y})
		}
		agInsert(t, lf, doc)
	}
	for _, by := range []string{"x", "t"} {
		rows = aggregateM(t, lf, mongo.Pipeline{swf(nil, bson.D{{Key: by, Value: 1}}, bson.D{{Key: "f", Value: fn("$linearFill", "$y", nil)}})})
		if got := column(rows, "f"); got != "[<nil> 10 20 30 40 70 100 <nil>]" {
			t.Errorf("$linearFill by %s: %s", by, got)
		}
	}
}

// $linearFill on the cases MongoDB's own tests hold it to: fractional
// sortBy values, dates across years, and the values it refuses.
func TestWindowLinearFill(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("lf")
	agInsert(t, coll,
		bson.D{{Key: "_id", Value: 0.5}, {Key: "val", Value: 0}},
		bson.D{{Key: "_id", Value: 1}, {Key: "val", Value: nil}},
		bson.D{{Key: "_id", Value: 4.384}, {Key: "val", Value: nil}},
		bson.D{{Key: "_id", Value: 9}},
		bson.D{{Key: "_id", Value: 10.09283}, {Key: "val", Value: 11.28374}},
	)
	fill := swf(nil, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "val", Value: fn("$linearFill", "$val", nil)}})
	if got := column(aggregateM(t, coll, mongo.Pipeline{fill}), "val"); got != "[0 0.5881340542884634 4.5686253337127845 9.998278922903879 11.28374]" {
		t.Errorf("fractional sortBy: %s", got)
	}
	dates := c.Database("d").Collection("dates")
	year := func(y int) time.Time { return time.Date(y, 12, 28, 0, 0, 0, 0, time.UTC) }
	agInsert(t, dates,
		bson.D{{Key: "b", Value: "Manhattan"}, {Key: "y", Value: -1}, {Key: "date", Value: year(2000)}},
		bson.D{{Key: "b", Value: "Manhattan"}, {Key: "y", Value: nil}, {Key: "date", Value: year(2001)}},
		bson.D{{Key: "b", Value: "Bronx"}, {Key: "y", Value: -10}, {Key: "date", Value: year(2002)}},
		bson.D{{Key: "b", Value: "Bronx"}, {Key: "y", Value: nil}, {Key: "date", Value: year(2003)}},
		bson.D{{Key: "b", Value: "Bronx"}, {Key: "y", Value: nil}, {Key: "date", Value: year(2004)}},
		bson.D{{Key: "b", Value: "Bronx"}, {Key: "y", Value: 200}, {Key: "date", Value: year(2005)}},
		bson.D{{Key: "b", Value: "Manhattan"}, {Key: "y", Value: -10}, {Key: "date", Value: year(2006)}},
		bson.D{{Key: "b", Value: "Queens"}, {Key: "y", Value: -2}, {Key: "date", Value: year(2007)}},
		bson.D{{Key: "b", Value: "Queens"}, {Key: "y", Value: -20}, {Key: "date", Value: year(2008)}},
		bson.D{{Key: "b", Value: "Queens"}, {Key: "y", Value: nil}, {Key: "date", Value: year(2009)}},
	)
	byDate := swf("$b", bson.D{{Key: "date", Value: 1}}, bson.D{{Key: "y", Value: fn("$linearFill", "$y", nil)}})
	if got := column(aggregateM(t, dates, mongo.Pipeline{byDate}), "y"); got != "[-10 59.93613138686132 130.06386861313868 200 -1 -2.499315381104519 -10 -2 -20 <nil>]" {
		t.Errorf("dates by partition: %s", got)
	}
	for _, tc := range []struct {
		name string
		docs []any
		code int32
	}{
		{"a repeated sortBy value", []any{bson.D{{Key: "x", Value: 0}, {Key: "v", Value: 0}}, bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "x", Value: 1.0}, {Key: "v", Value: 1}}}, 6050106},
		{"a null sortBy value", []any{bson.D{{Key: "x", Value: nil}, {Key: "v", Value: 0}}, bson.D{{Key: "x", Value: 1}}}, 14},
		{"a string to fill between", []any{bson.D{{Key: "x", Value: 0}, {Key: "v", Value: "s"}}, bson.D{{Key: "x", Value: 1}}}, 14},
		{"numbers and dates in sortBy", []any{bson.D{{Key: "x", Value: 1}, {Key: "v", Value: 10}}, bson.D{{Key: "x", Value: 2}}, bson.D{{Key: "x", Value: time.Now()}, {Key: "v", Value: 20}}}, 14},
	} {
		bad := c.Database("d").Collection("bad" + fmt.Sprint(len(tc.name)))
		agInsert(t, bad, tc.docs...)
		stage := swf(nil, bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "v", Value: fn("$linearFill", "$v", nil)}})
		if got := agErrCode(t, bad, mongo.Pipeline{stage}); got != tc.code {
			t.Errorf("%s: code %d; want %d", tc.name, got, tc.code)
		}
	}
}

// $integral as MongoDB's own tests hold it: per partition over a
// document window, scaled by a unit over dates, over time ranges
// (an empty window null, one document 0), and refusing mixed sortBy
// values.
func TestWindowIntegralCases(t *testing.T) {
	c, _ := serve(t, "")
	db := c.Database("d")
	parts := db.Collection("parts")
	for i, y := range []int{1, 2, 1, 4, 100, 105, 107, -100} {
		agInsert(t, parts, bson.D{{Key: "p", Value: 1 + i/4}, {Key: "x", Value: []int{0, 1, 2, 3, 0, 2, 4, 6}[i]}, {Key: "y", Value: y}})
	}
	rows := aggregateM(t, parts, mongo.Pipeline{swf("$p", bson.D{{Key: "x", Value: 1}},
		bson.D{{Key: "i", Value: fn("$integral", bson.D{{Key: "input", Value: "$y"}}, bson.D{{Key: "documents", Value: bson.A{-1, 0}}})}})})
	if got := column(rows, "i"); got != "[0 1.5 1.5 2.5 0 205 212 7]" {
		t.Errorf("per partition: %s", got)
	}
	ms := db.Collection("ms")
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 4 {
		agInsert(t, ms, bson.D{{Key: "x", Value: t0.Add(time.Duration(2*i) * time.Millisecond)}, {Key: "y", Value: 2 * i}})
	}
	withUnit := swf(nil, bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "i", Value: fn("$integral", bson.D{{Key: "input", Value: "$y"}, {Key: "unit", Value: "second"}},
		bson.D{{Key: "documents", Value: bson.A{-1, 1}}})}})
	if got := column(aggregateM(t, ms, mongo.Pipeline{withUnit}), "i"); got != "[0.002 0.008 0.016 0.01]" {
		t.Errorf("by second over dates: %s", got)
	}
	secs := db.Collection("secs")
	for i, y := range []float64{0.0, 2.4, 5.6, 6.8} {
		agInsert(t, secs, bson.D{{Key: "time", Value: t0.Add(time.Duration([]int{0, 4, 10, 18}[i]) * time.Second)}, {Key: "y", Value: y}})
	}
	for _, tc := range []struct {
		bounds bson.A
		want   string
	}{
		{bson.A{-1, -1}, "[<nil> <nil> <nil> <nil>]"},
		{bson.A{-2, 0}, "[0 0 0 0]"},
		{bson.A{-6, 6}, "[4.8 28.8 24 0]"},
	} {
		stage := swf(nil, bson.D{{Key: "time", Value: 1}}, bson.D{{Key: "i", Value: fn("$integral", bson.D{{Key: "input", Value: "$y"}, {Key: "unit", Value: "second"}},
			bson.D{{Key: "range", Value: tc.bounds}, {Key: "unit", Value: "second"}})}})
		if got := column(aggregateM(t, secs, mongo.Pipeline{stage}), "i"); got != tc.want {
			t.Errorf("range %v: %s; want %s", tc.bounds, got, tc.want)
		}
	}
	mixed := db.Collection("mixed")
	agInsert(t, mixed, bson.D{{Key: "x", Value: 0}, {Key: "y", Value: 100}}, bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 100}},
		bson.D{{Key: "x", Value: t0}, {Key: "y", Value: 5}}, bson.D{{Key: "x", Value: t0.Add(time.Millisecond)}, {Key: "y", Value: 4}})
	noUnit := swf(nil, bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "i", Value: fn("$integral", bson.D{{Key: "input", Value: "$y"}}, bson.D{{Key: "documents", Value: bson.A{-1, 1}}})}})
	if got := agErrCode(t, mixed, mongo.Pipeline{withUnit}); got != 5423901 {
		t.Errorf("unit over numbers then dates: code %d; want 5423901", got)
	}
	if got := agErrCode(t, mixed, mongo.Pipeline{noUnit}); got != 5423902 {
		t.Errorf("no unit over numbers then dates: code %d; want 5423902", got)
	}
}

// Range windows over unevenly spaced values with ties, as MongoDB's own
// tests hold them: 0 takes the values tying with the current one,
// "current" only the current document, windows may be empty or exclude
// the current document, and a non-numeric sortBy value is an error even
// for a window that would be empty.
func TestWindowRangeTies(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("ties")
	for _, x := range []float64{0, 1, 1.5, 2, 3, 100, 100, 101} {
		agInsert(t, coll, bson.D{{Key: "x", Value: x}})
	}
	push := func(lo, hi any) string {
		rows := aggregateM(t, coll, mongo.Pipeline{swf(nil, bson.D{{Key: "x", Value: 1}},
			bson.D{{Key: "y", Value: fn("$push", "$x", bson.D{{Key: "range", Value: bson.A{lo, hi}}})}})})
		return column(rows, "y")
	}
	for _, tc := range []struct {
		lo, hi any
		want   string
	}{
		{-1, 0, "[[0] [0 1] [1 1.5] [1 1.5 2] [2 3] [100 100] [100 100] [100 100 101]]"},
		{"unbounded", 0, "[[0] [0 1] [0 1 1.5] [0 1 1.5 2] [0 1 1.5 2 3] [0 1 1.5 2 3 100 100] [0 1 1.5 2 3 100 100] [0 1 1.5 2 3 100 100 101]]"},
		{0, "unbounded", "[[0 1 1.5 2 3 100 100 101] [1 1.5 2 3 100 100 101] [1.5 2 3 100 100 101] [2 3 100 100 101] [3 100 100 101] [100 100 101] [100 100 101] [101]]"},
		{"current", "current", "[[0] [1] [1.5] [2] [3] [100] [100] [101]]"},
		{"current", 1, "[[0 1] [1 1.5 2] [1.5 2] [2 3] [3] [100 100 101] [100 101] [101]]"},
		{-97, "current", "[[0] [0 1] [0 1 1.5] [0 1 1.5 2] [0 1 1.5 2 3] [3 100] [3 100 100] [100 100 101]]"},
		{-1, -1, "[[] [0] [] [1] [2] [] [] [100 100]]"},
		{1, 1, "[[1] [2] [] [3] [] [101] [101] []]"},
		{"unbounded", -99, "[[] [] [] [] [] [0 1] [0 1] [0 1 1.5 2]]"},
		{99, "unbounded", "[[100 100 101] [100 100 101] [101] [101] [] [] [] []]"},
		{999, 999, "[[] [] [] [] [] [] [] []]"},
	} {
		if got := push(tc.lo, tc.hi); got != tc.want {
			t.Errorf("range [%v, %v]: %s; want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
	agInsert(t, coll, bson.D{}, bson.D{{Key: "x", Value: nil}}, bson.D{{Key: "x", Value: ""}}, bson.D{{Key: "x", Value: bson.D{}}})
	for _, b := range []bson.A{{999, 999}, {-999, 999}, {"unbounded", "unbounded"}} {
		stage := swf(nil, bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "y", Value: fn("$push", "$x", bson.D{{Key: "range", Value: b}})}})
		if got := agErrCode(t, coll, mongo.Pipeline{stage}); got != 5429414 {
			t.Errorf("range %v over non-numbers: code %d; want 5429414", b, got)
		}
	}
}

// $percentile and $median over windows: a window of two gives the larger
// for p 0.9 and the smaller as the median; non-numbers give nulls.
func TestWindowPercentile(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("prices")
	for i, p := range []any{5, 3.5, int64(8), 8, mustDecimal(t, "1")} {
		agInsert(t, coll, bson.D{{Key: "_id", Value: i}, {Key: "price", Value: p}, {Key: "str", Value: "hiya"}})
	}
	pair := bson.D{{Key: "documents", Value: bson.A{-1, 0}}}
	rows := aggregateM(t, coll, mongo.Pipeline{swf(nil, bson.D{{Key: "_id", Value: 1}}, bson.D{
		{Key: "p", Value: fn("$percentile", bson.D{{Key: "p", Value: bson.A{0.9}}, {Key: "input", Value: "$price"}, {Key: "method", Value: "approximate"}}, pair)},
		{Key: "m", Value: fn("$median", bson.D{{Key: "input", Value: "$price"}, {Key: "method", Value: "approximate"}}, pair)},
		{Key: "none", Value: fn("$percentile", bson.D{{Key: "p", Value: bson.A{0.1, 0.6}}, {Key: "input", Value: "$str"}, {Key: "method", Value: "approximate"}}, nil)},
	})})
	if got := column(rows, "p") + column(rows, "m") + column(rows, "none"); got != "[[5] [5] [8] [8] [8]][5 3.5 3.5 8 1][[<nil> <nil>] [<nil> <nil>] [<nil> <nil>] [<nil> <nil>] [<nil> <nil>]]" {
		t.Errorf("windowed percentiles: %s", got)
	}
	for _, tc := range []struct {
		name string
		out  bson.D
		code int32
	}{
		{"a window not an object", fn("$median", bson.D{{Key: "input", Value: "$price"}, {Key: "method", Value: "approximate"}}, bson.D{{Key: "documents", Value: bson.A{}}}), 9},
		{"an extra argument", bson.D{{Key: "$median", Value: bson.D{{Key: "input", Value: "$price"}, {Key: "method", Value: "approximate"}}}, {Key: "extra", Value: 1}}, 9},
		{"$percentile not an object", fn("$percentile", "x", nil), 7429703},
		{"$median not an object", fn("$median", "x", nil), 7436100},
		{"a method not a string", fn("$median", bson.D{{Key: "input", Value: "$price"}, {Key: "method", Value: false}}, nil), 14},
	} {
		if got := agErrCode(t, coll, mongo.Pipeline{swf(nil, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "o", Value: tc.out}})}); got != tc.code {
			t.Errorf("%s: code %d; want %d", tc.name, got, tc.code)
		}
	}
}
