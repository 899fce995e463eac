package engine

import (
	"context"
	"errors"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// projCase is a projection run by find and, when agg is set, by a
// $project stage: the documents it gives as relaxed extended JSON, one
// after another, or the error code it must fail with.
type projCase struct {
	proj bson.D
	agg  bool
	want string
	code int
}

func checkProjections(t *testing.T, coll *mongo.Collection, cases []projCase) {
	t.Helper()
	ctx := context.Background()
	for _, c := range cases {
		spec, _ := bson.MarshalExtJSON(c.proj, false, false)
		runs := map[string]func() (*mongo.Cursor, error){
			"find": func() (*mongo.Cursor, error) {
				return coll.Find(ctx, bson.D{}, options.Find().SetProjection(c.proj).SetSort(bson.D{{Key: "_id", Value: 1}}))
			},
		}
		if c.agg {
			runs["$project"] = func() (*mongo.Cursor, error) {
				return coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}, {{Key: "$project", Value: c.proj}}})
			}
		}
		for how, run := range runs {
			cur, err := run()
			got := ""
			if err == nil {
				var rows []bson.Raw
				if err = cur.All(ctx, &rows); err == nil {
					for _, r := range rows {
						b, _ := bson.MarshalExtJSON(r, false, false)
						got += string(b)
					}
				}
			}
			if c.code != 0 {
				var se mongo.ServerError
				if !errors.As(err, &se) || !se.HasErrorCode(c.code) {
					t.Errorf("%s %s: got %s, %v; want error %d", how, spec, got, err, c.code)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %s: %v", how, spec, err)
				continue
			}
			if got != c.want {
				t.Errorf("%s %s = %s; want %s", how, spec, got, c.want)
			}
		}
	}
}

// An expression's error in a find projection or a $project stage fails
// the command with the expression's code.
func TestProjectionExprErrors(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("projerr")
	ctx := context.Background()
	if _, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "z", Value: 2}, {Key: "s", Value: "abc"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "z", Value: 0}, {Key: "s", Value: "abc"}},
	}); err != nil {
		t.Fatal(err)
	}
	x := func(e any) bson.D { return bson.D{{Key: "_id", Value: 0}, {Key: "x", Value: e}} }
	checkProjections(t, coll, []projCase{
		{proj: x(op("$divide", bson.A{1, 0})), agg: true, code: 2},
		{proj: x(op("$divide", bson.A{1, "$z"})), agg: true, code: 2},
		{proj: bson.D{{Key: "a.b", Value: op("$divide", bson.A{1, 0})}}, agg: true, code: 2},
		{proj: x(op("$mod", bson.A{1, "$z"})), agg: true, code: 16610},
		{proj: x(op("$add", bson.A{1, "$s"})), agg: true, code: 14},
		{proj: x(op("$sin", math.Inf(1))), agg: true, code: 50989},
		{proj: x(op("$bitNot", 1.5)), agg: true, code: 14},
		{proj: x(op("$slice", bson.A{"$s", 1})), agg: true, code: 28724},
		// no error: the documents come back
		{proj: x(op("$divide", bson.A{"$z", 2})), agg: true, want: `{"x":1.0}{"x":0.0}`},
		{proj: x(op("$cond", bson.A{op("$eq", bson.A{"$z", 0}), nil, op("$divide", bson.A{1, "$z"})})), agg: true, want: `{"x":0.5}{"x":null}`},
	})
}

// $slice in a projection: with an array expression as its first argument
// it is the $slice expression; {$slice: n} and {$slice: [skip, n]} keep
// the find projection's meaning.
func TestProjectionSlice(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("projslice")
	ctx := context.Background()
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "arr", Value: bson.A{1, 2, 3, 4}}, {Key: "k", Value: "v"}}); err != nil {
		t.Fatal(err)
	}
	x := func(e any) bson.D { return bson.D{{Key: "_id", Value: 0}, {Key: "x", Value: e}} }
	slice := func(v any) bson.D { return op("$slice", v) }
	checkProjections(t, coll, []projCase{
		// the expression
		{proj: x(slice(bson.A{"$arr", 2})), agg: true, want: `{"x":[1,2]}`},
		{proj: x(slice(bson.A{"$arr", 1, 2})), agg: true, want: `{"x":[2,3]}`},
		{proj: x(slice(bson.A{"$arr", -1})), agg: true, want: `{"x":[4]}`},
		{proj: x(slice(bson.A{"$arr", -3, 2})), agg: true, want: `{"x":[2,3]}`},
		{proj: x(slice(bson.A{bson.A{7, 8, 9}, 1})), agg: true, want: `{"x":[7]}`},
		{proj: bson.D{{Key: "arr", Value: slice(bson.A{"$arr", 1, 2})}}, agg: true, want: `{"_id":1,"arr":[2,3]}`},
		{proj: x(slice(bson.A{"$nope", 2})), agg: true, want: `{"x":null}`},
		{proj: x(slice(bson.A{"$k", 2})), agg: true, code: 28724},
		{proj: x(slice(bson.A{"$arr", 1, 0})), agg: true, code: 28729},
		{proj: x(slice(bson.A{"$arr"})), agg: true, code: 28667},
		{proj: x(slice("$arr")), agg: true, code: 28667},
		// the find projection: other fields stay
		{proj: bson.D{{Key: "arr", Value: slice(2)}}, want: `{"_id":1,"arr":[1,2],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(-1)}}, want: `{"_id":1,"arr":[4],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(bson.A{1, 2})}}, want: `{"_id":1,"arr":[2,3],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(bson.A{-2, 5})}}, want: `{"_id":1,"arr":[3,4],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(bson.A{int64(1), 2.0})}}, want: `{"_id":1,"arr":[2,3],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(2)}, {Key: "k", Value: 0}}, want: `{"_id":1,"arr":[1,2]}`},
		{proj: bson.D{{Key: "arr", Value: slice(1)}, {Key: "k", Value: 1}}, want: `{"_id":1,"arr":[1],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(bson.A{1, 0})}}, code: 28724},
		// counts beyond an int, NaN and infinities neither panic nor fail
		{proj: bson.D{{Key: "arr", Value: slice(1e300)}}, want: `{"_id":1,"arr":[1,2,3,4],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(math.Inf(-1))}}, want: `{"_id":1,"arr":[1,2,3,4],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(int64(math.MinInt64))}}, want: `{"_id":1,"arr":[1,2,3,4],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(math.NaN())}}, want: `{"_id":1,"arr":[],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(bson.A{-1e300, int64(math.MaxInt64)})}}, want: `{"_id":1,"arr":[1,2,3,4],"k":"v"}`},
		{proj: bson.D{{Key: "arr", Value: slice(bson.A{1, math.NaN()})}}, code: 28724},
	})
}

// A projection of _id alone is an inclusion, as the manual's "Return the
// Specified Fields and the _id Field Only" has it: {_id: 1} (or true)
// returns the _id and no other field, in find and in $project; {_id: 0}
// alone excludes the _id and keeps every other field.
func TestProjectionIDAlone(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("projid")
	if _, err := coll.InsertMany(context.Background(), []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "k", Value: "v"}, {Key: "n", Value: 3}},
		bson.D{{Key: "_id", Value: 2}, {Key: "n", Value: 4}},
	}); err != nil {
		t.Fatal(err)
	}
	checkProjections(t, coll, []projCase{
		{proj: bson.D{{Key: "_id", Value: 1}}, agg: true, want: `{"_id":1}{"_id":2}`},
		{proj: bson.D{{Key: "_id", Value: true}}, agg: true, want: `{"_id":1}{"_id":2}`},
		{proj: bson.D{{Key: "_id", Value: 0}}, agg: true, want: `{"k":"v","n":3}{"n":4}`},
		{proj: bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 1}}, agg: true, want: `{"_id":1,"n":3}{"_id":2,"n":4}`},
		{proj: bson.D{{Key: "_id", Value: 1}, {Key: "k", Value: 0}}, agg: true, want: `{"_id":1,"n":3}{"_id":2,"n":4}`},
	})
}
