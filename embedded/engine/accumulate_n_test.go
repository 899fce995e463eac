package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// The object-argument accumulators on the manual's game scores.
func TestObjectAccumulators(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("gamescores")
	var docs []any
	for _, r := range []struct {
		p, g string
		s    int32
	}{{"PlayerA", "G1", 31}, {"PlayerB", "G1", 33}, {"PlayerC", "G1", 99}, {"PlayerD", "G1", 1},
		{"PlayerA", "G2", 10}, {"PlayerB", "G2", 14}, {"PlayerC", "G2", 66}, {"PlayerD", "G2", 80}} {
		docs = append(docs, bson.D{{Key: "playerId", Value: r.p}, {Key: "gameId", Value: r.g}, {Key: "score", Value: r.s}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	pair := bson.A{"$playerId", "$score"}
	bySc := bson.D{{Key: "score", Value: -1}}
	group := bson.D{{Key: "_id", Value: "$gameId"},
		{Key: "topN", Value: bson.D{{Key: "$topN", Value: bson.D{{Key: "output", Value: pair}, {Key: "sortBy", Value: bySc}, {Key: "n", Value: 3}}}}},
		{Key: "bottomN", Value: bson.D{{Key: "$bottomN", Value: bson.D{{Key: "output", Value: pair}, {Key: "sortBy", Value: bySc}, {Key: "n", Value: 3}}}}},
		{Key: "top", Value: bson.D{{Key: "$top", Value: bson.D{{Key: "output", Value: pair}, {Key: "sortBy", Value: bySc}}}}},
		{Key: "bottom", Value: bson.D{{Key: "$bottom", Value: bson.D{{Key: "output", Value: pair}, {Key: "sortBy", Value: bySc}}}}},
		{Key: "firstN", Value: bson.D{{Key: "$firstN", Value: bson.D{{Key: "input", Value: "$score"}, {Key: "n", Value: 2}}}}},
		{Key: "lastN", Value: bson.D{{Key: "$lastN", Value: bson.D{{Key: "input", Value: "$score"}, {Key: "n", Value: 2}}}}},
		{Key: "maxN", Value: bson.D{{Key: "$maxN", Value: bson.D{{Key: "input", Value: "$score"}, {Key: "n", Value: 2}}}}},
		{Key: "minN", Value: bson.D{{Key: "$minN", Value: bson.D{{Key: "input", Value: "$score"}, {Key: "n", Value: 2}}}}},
		{Key: "median", Value: bson.D{{Key: "$median", Value: bson.D{{Key: "input", Value: "$score"}, {Key: "method", Value: "approximate"}}}}},
		{Key: "pcts", Value: bson.D{{Key: "$percentile", Value: bson.D{{Key: "input", Value: "$score"}, {Key: "p", Value: bson.A{0.25, 1}}, {Key: "method", Value: "approximate"}}}}},
	}
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: group}}, {{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var rows []bson.M
	if err := cur.All(ctx, &rows); err != nil || len(rows) != 2 {
		t.Fatalf("%d groups, %v", len(rows), err)
	}
	g1 := rows[0]
	for k, want := range map[string]string{
		"topN":    "[[PlayerC 99] [PlayerB 33] [PlayerA 31]]",
		"bottomN": "[[PlayerB 33] [PlayerA 31] [PlayerD 1]]",
		"top":     "[PlayerC 99]",
		"bottom":  "[PlayerD 1]",
		"firstN":  "[31 33]",
		"lastN":   "[99 1]",
		"maxN":    "[99 33]",
		"minN":    "[1 31]",
		"median":  "31",
		"pcts":    "[1 99]",
	} {
		if got := fmt.Sprint(g1[k]); got != want {
			t.Errorf("G1 %s = %s; want %s", k, got, want)
		}
	}
	if got := fmt.Sprint(rows[1]["topN"]); got != "[[PlayerD 80] [PlayerC 66] [PlayerB 14]]" {
		t.Errorf("G2 topN = %s", got)
	}
	_, err = coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil},
		{Key: "x", Value: bson.D{{Key: "$firstN", Value: bson.D{{Key: "input", Value: "$score"}, {Key: "n", Value: 0}}}}}}}}})
	if err == nil {
		t.Error("$firstN with n 0 was accepted; want an error naming n")
	}
}

// $bucketAuto on the manual's artwork prices: 4 buckets of 2, each max the
// next one's min; equal values stay in one bucket.
func TestBucketAuto(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("artwork")
	var docs []any
	for _, p := range []float64{199.99, 280.00, 76.04, 167.30, 483.00, 385.00, 159.00, 118.42} {
		docs = append(docs, bson.D{{Key: "price", Value: p}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	run := func(spec bson.D) string {
		t.Helper()
		cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$bucketAuto", Value: spec}}})
		if err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			ID struct {
				Min float64 `bson:"min"`
				Max float64 `bson:"max"`
			} `bson:"_id"`
			Count int32 `bson:"count"`
		}
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		s := ""
		for _, r := range rows {
			s += fmt.Sprintf("[%v,%v)%d ", r.ID.Min, r.ID.Max, r.Count)
		}
		return s
	}
	if got := run(bson.D{{Key: "groupBy", Value: "$price"}, {Key: "buckets", Value: 4}}); got != "[76.04,159)2 [159,199.99)2 [199.99,385)2 [385,483)2 " {
		t.Errorf("4 buckets: %s", got)
	}
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "price", Value: 159.00}}, bson.D{{Key: "price", Value: 159.00}}}); err != nil {
		t.Fatal(err)
	}
	if got := run(bson.D{{Key: "groupBy", Value: "$price"}, {Key: "buckets", Value: 4}}); got != "[76.04,167.3)5 [167.3,385)3 [385,483)2 " {
		t.Errorf("4 buckets with 159 thrice: %s", got)
	}
}

// $setWindowFields on the manual's cake sales: a running total per state,
// ranks, and the next sale's quantity.
func TestSetWindowFields(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("cakeSales")
	type sale struct {
		id    int32
		state string
		date  string
		qty   int32
	}
	var docs []any
	for _, s := range []sale{{0, "CA", "2020-05-18", 120}, {1, "WA", "2021-03-20", 140}, {2, "CA", "2021-01-11", 145},
		{3, "WA", "2020-02-08", 104}, {4, "CA", "2019-05-18", 162}, {5, "WA", "2019-01-08", 102}} {
		docs = append(docs, bson.D{{Key: "_id", Value: s.id}, {Key: "state", Value: s.state}, {Key: "orderDate", Value: s.date}, {Key: "quantity", Value: s.qty}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	stage := bson.D{{Key: "$setWindowFields", Value: bson.D{
		{Key: "partitionBy", Value: "$state"}, {Key: "sortBy", Value: bson.D{{Key: "orderDate", Value: 1}}},
		{Key: "output", Value: bson.D{
			{Key: "running", Value: bson.D{{Key: "$sum", Value: "$quantity"}, {Key: "window", Value: bson.D{{Key: "documents", Value: bson.A{"unbounded", "current"}}}}}},
			{Key: "total", Value: bson.D{{Key: "$sum", Value: "$quantity"}}},
			{Key: "n", Value: bson.D{{Key: "$documentNumber", Value: bson.D{}}}},
			{Key: "next", Value: bson.D{{Key: "$shift", Value: bson.D{{Key: "output", Value: "$quantity"}, {Key: "by", Value: 1}, {Key: "default", Value: "none"}}}}},
		}},
	}}}
	rows := aggregateM(t, coll, mongo.Pipeline{stage})
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%v:%v/%v#%v>%v", r["_id"], r["running"], r["total"], r["n"], r["next"]))
	}
	want := "[4:162/427#1>120 0:282/427#2>145 2:427/427#3>none 5:102/346#1>104 3:206/346#2>140 1:346/346#3>none]"
	if fmt.Sprint(got) != want {
		t.Errorf("windows:\n got %v\nwant %s", got, want)
	}
	rank := bson.D{{Key: "$setWindowFields", Value: bson.D{{Key: "sortBy", Value: bson.D{{Key: "state", Value: 1}}},
		{Key: "output", Value: bson.D{{Key: "r", Value: bson.D{{Key: "$rank", Value: bson.D{}}}}, {Key: "d", Value: bson.D{{Key: "$denseRank", Value: bson.D{}}}}}}}}}
	rows = aggregateM(t, coll, mongo.Pipeline{rank})
	got = nil
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%v%v/%v", r["state"], r["r"], r["d"]))
	}
	if fmt.Sprint(got) != "[CA1/1 CA1/1 CA1/1 WA4/2 WA4/2 WA4/2]" {
		t.Errorf("ranks: %v", got)
	}
	_, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$setWindowFields", Value: bson.D{{Key: "output", Value: bson.D{
		{Key: "x", Value: bson.D{{Key: "$sum", Value: 1}, {Key: "window", Value: bson.D{{Key: "range", Value: bson.A{-1, 1}}}}}}}}}}}})
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(5339902) {
		t.Errorf("a range window without sortBy: %v; want 5339902", err)
	}
}

// $redact keeps, prunes or descends into each level by its expression.
func TestRedact(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("r")
	doc := bson.D{{Key: "_id", Value: 1}, {Key: "level", Value: 1},
		{Key: "acct", Value: bson.D{{Key: "level", Value: 5}, {Key: "x", Value: 1}}},
		{Key: "items", Value: bson.A{bson.D{{Key: "level", Value: 1}, {Key: "a", Value: 1}}, bson.D{{Key: "level", Value: 5}, {Key: "b", Value: 2}}, 7}}}
	if _, err := coll.InsertMany(ctx, []any{doc, bson.D{{Key: "_id", Value: 2}, {Key: "level", Value: 9}}}); err != nil {
		t.Fatal(err)
	}
	cond := bson.D{{Key: "$cond", Value: bson.D{{Key: "if", Value: bson.D{{Key: "$lte", Value: bson.A{"$level", 3}}}},
		{Key: "then", Value: "$$DESCEND"}, {Key: "else", Value: "$$PRUNE"}}}}
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$redact", Value: cond}}})
	if err != nil {
		t.Fatal(err)
	}
	var rows []bson.Raw
	if err := cur.All(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	want := `{"_id": {"$numberInt":"1"},"level": {"$numberInt":"1"},"items": [{"level": {"$numberInt":"1"},"a": {"$numberInt":"1"}},{"$numberInt":"7"}]}`
	if len(rows) != 1 || rows[0].String() != want {
		t.Errorf("$redact: %v; want [%s]", rows, want)
	}
	_, err = coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$redact", Value: "$level"}}})
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(17053) {
		t.Errorf("$redact answering a number: %v; want 17053", err)
	}
}

// $fill: a constant, the last value carried forward, and a linear
// interpolation by the sort field, per partition.
func TestFill(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("prices")
	if _, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "s", Value: "a"}, {Key: "t", Value: 4}, {Key: "p", Value: 40}},
		bson.D{{Key: "s", Value: "a"}, {Key: "t", Value: 1}, {Key: "p", Value: 10}},
		bson.D{{Key: "s", Value: "a"}, {Key: "t", Value: 2}, {Key: "p", Value: nil}},
		bson.D{{Key: "s", Value: "a"}, {Key: "t", Value: 3}},
		bson.D{{Key: "s", Value: "b"}, {Key: "t", Value: 1}},
	}); err != nil {
		t.Fatal(err)
	}
	run := func(output bson.D) string {
		t.Helper()
		rows := aggregateM(t, coll, mongo.Pipeline{{{Key: "$fill", Value: bson.D{{Key: "partitionBy", Value: "$s"},
			{Key: "sortBy", Value: bson.D{{Key: "t", Value: 1}}}, {Key: "output", Value: output}}}}})
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%v%v=%v", r["s"], r["t"], r["p"]))
		}
		return fmt.Sprint(got)
	}
	// a value alone is an $addFields: the documents keep their order
	if got := run(bson.D{{Key: "p", Value: bson.D{{Key: "value", Value: 0}}}}); got != "[a4=40 a1=10 a2=0 a3=0 b1=0]" {
		t.Errorf("value: %s", got)
	}
	if got := run(bson.D{{Key: "p", Value: bson.D{{Key: "method", Value: "locf"}}}}); got != "[a1=10 a2=10 a3=10 a4=40 b1=<nil>]" {
		t.Errorf("locf: %s", got)
	}
	if got := run(bson.D{{Key: "p", Value: bson.D{{Key: "method", Value: "linear"}}}}); got != "[a1=10 a2=20 a3=30 a4=40 b1=<nil>]" {
		t.Errorf("linear: %s", got)
	}
}

// $densify fills the gaps of a numeric field, per partition, and of dates
// by a unit; its output is sorted by the partition fields, then the field.
func TestDensify(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("readings")
	if _, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "s", Value: "a"}, {Key: "x", Value: 0}},
		bson.D{{Key: "s", Value: "a"}, {Key: "x", Value: 4}},
		bson.D{{Key: "s", Value: "b"}, {Key: "x", Value: 2}},
		bson.D{{Key: "s", Value: "b"}, {Key: "x", Value: 3}},
		bson.D{{Key: "s", Value: "b"}},
	}); err != nil {
		t.Fatal(err)
	}
	run := func(c *mongo.Collection, spec bson.D, key string) string {
		t.Helper()
		rows := aggregateM(t, c, mongo.Pipeline{{{Key: "$densify", Value: spec}}})
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%v%v", r["s"], r[key]))
		}
		return fmt.Sprint(got)
	}
	rng := func(bounds any) bson.D {
		return bson.D{{Key: "field", Value: "x"}, {Key: "partitionByFields", Value: bson.A{"s"}},
			{Key: "range", Value: bson.D{{Key: "step", Value: 2}, {Key: "bounds", Value: bounds}}}}
	}
	if got := run(coll, rng("partition"), "x"); got != "[a0 a2 a4 b<nil> b2 b3]" {
		t.Errorf("partition: %s", got)
	}
	if got := run(coll, rng("full"), "x"); got != "[a0 a2 a4 b<nil> b0 b2 b3 b4]" {
		t.Errorf("full: %s", got)
	}
	if got := run(coll, rng(bson.A{1, 4}), "x"); got != "[a0 a1 a3 a4 b<nil> b1 b2 b3]" {
		t.Errorf("[1, 4): %s", got)
	}
	days := c.Database("d").Collection("days")
	d0 := time.Date(2024, 1, 30, 0, 0, 0, 0, time.UTC)
	if _, err := days.InsertMany(ctx, []any{bson.D{{Key: "s", Value: "m"}, {Key: "t", Value: d0}}, bson.D{{Key: "s", Value: "m"}, {Key: "t", Value: d0.AddDate(0, 0, 3)}}}); err != nil {
		t.Fatal(err)
	}
	spec := bson.D{{Key: "field", Value: "t"}, {Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "unit", Value: "day"}, {Key: "bounds", Value: "full"}}}}
	cur, err := days.Aggregate(ctx, mongo.Pipeline{{{Key: "$densify", Value: spec}}})
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		T time.Time `bson:"t"`
	}
	if err := cur.All(ctx, &rows); err != nil || len(rows) != 4 || !rows[2].T.Equal(d0.AddDate(0, 0, 2)) {
		t.Errorf("days: %v, %v; want 4 days from %v", rows, err, d0)
	}
}

// aggregateM runs pipeline on coll and returns its documents.
func aggregateM(t *testing.T, coll *mongo.Collection, pipeline mongo.Pipeline) []bson.M {
	t.Helper()
	cur, err := coll.Aggregate(context.Background(), pipeline)
	if err != nil {
		t.Fatal(err)
	}
	var rows []bson.M
	if err := cur.All(context.Background(), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// $bucket by boundaries: numbers of any type fall in [b[i], b[i+1]); a
// value outside, or missing, goes to default; without default it is an
// error (40066).
func TestBucket(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("artists")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "y", Value: 1840}}, bson.D{{Key: "y", Value: int64(1845)}},
		bson.D{{Key: "y", Value: 1865}}, bson.D{{Key: "y", Value: 1875.0}}, bson.D{{Key: "y", Value: 1920}}, bson.D{}}); err != nil {
		t.Fatal(err)
	}
	spec := bson.D{{Key: "groupBy", Value: "$y"}, {Key: "boundaries", Value: bson.A{1840, 1850, 1880}}, {Key: "default", Value: "Other"},
		{Key: "output", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}, {Key: "ys", Value: bson.D{{Key: "$push", Value: "$y"}}}}}}
	var got []string
	for _, r := range aggregateM(t, coll, mongo.Pipeline{{{Key: "$bucket", Value: spec}}}) {
		got = append(got, fmt.Sprintf("%v:%v%v", r["_id"], r["n"], r["ys"]))
	}
	if fmt.Sprint(got) != "[1840:2[1840 1845] 1850:2[1865 1875] Other:2[1920]]" {
		t.Errorf("$bucket: %v", got)
	}
	_, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$bucket", Value: bson.D{{Key: "groupBy", Value: "$y"}, {Key: "boundaries", Value: bson.A{1840, 1850}}}}}})
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(40066) {
		t.Errorf("a value outside the boundaries without default: %v; want 40066", err)
	}
}
