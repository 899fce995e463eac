package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// FuzzAnalyticStages: any $setWindowFields, $bucketAuto, $densify,
// $graphLookup or $group specification sent to the server over the driver,
// run over documents of every kind, answers documents or is refused with
// an error, never the InternalError of a command that panicked.
func FuzzAnalyticStages(f *testing.F) {
	for _, seed := range []bson.D{
		{{Key: "$setWindowFields", Value: bson.D{{Key: "partitionBy", Value: "$p"}, {Key: "sortBy", Value: bson.D{{Key: "x", Value: 1}}},
			{Key: "output", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$sum", Value: "$y"}, {Key: "window", Value: bson.D{{Key: "range", Value: bson.A{-1, 1}}}}}}}}}}},
		{{Key: "$setWindowFields", Value: bson.D{{Key: "sortBy", Value: bson.D{{Key: "t", Value: 1}}},
			{Key: "output", Value: bson.D{{Key: "d", Value: bson.D{{Key: "$derivative", Value: bson.D{{Key: "input", Value: "$y"}, {Key: "unit", Value: "hour"}}},
				{Key: "window", Value: bson.D{{Key: "range", Value: bson.A{-2, 0}}, {Key: "unit", Value: "month"}}}}}}}}}},
		{{Key: "$setWindowFields", Value: bson.D{{Key: "sortBy", Value: bson.D{{Key: "x", Value: 1}}},
			{Key: "output", Value: bson.D{{Key: "e", Value: bson.D{{Key: "$expMovingAvg", Value: bson.D{{Key: "input", Value: "$y"}, {Key: "alpha", Value: 0.3}}}}},
				{Key: "i", Value: bson.D{{Key: "$integral", Value: bson.D{{Key: "input", Value: "$y"}}}}},
				{Key: "l", Value: bson.D{{Key: "$linearFill", Value: "$y"}}},
				{Key: "m", Value: bson.D{{Key: "$minN", Value: bson.D{{Key: "input", Value: "$y"}, {Key: "n", Value: 2}}}, {Key: "window", Value: bson.D{{Key: "documents", Value: bson.A{-1, 1}}}}}},
				{Key: "c", Value: bson.D{{Key: "$covarianceSamp", Value: bson.A{"$x", "$y"}}}}}}}}},
		{{Key: "$bucketAuto", Value: bson.D{{Key: "groupBy", Value: "$x"}, {Key: "buckets", Value: 3}, {Key: "granularity", Value: "E12"}}}},
		{{Key: "$bucketAuto", Value: bson.D{{Key: "groupBy", Value: "$y"}, {Key: "buckets", Value: 2}, {Key: "granularity", Value: "POWERSOF2"}}}},
		{{Key: "$densify", Value: bson.D{{Key: "field", Value: "t"}, {Key: "partitionByFields", Value: bson.A{"p"}},
			{Key: "range", Value: bson.D{{Key: "step", Value: 1}, {Key: "unit", Value: "quarter"}, {Key: "bounds", Value: "partition"}}}}}},
		{{Key: "$densify", Value: bson.D{{Key: "field", Value: "x"}, {Key: "range", Value: bson.D{{Key: "step", Value: 0.5}, {Key: "bounds", Value: bson.A{0, 3}}}}}}},
		{{Key: "$graphLookup", Value: bson.D{{Key: "from", Value: "c"}, {Key: "startWith", Value: "$y"}, {Key: "connectFromField", Value: "y"},
			{Key: "connectToField", Value: "x"}, {Key: "maxDepth", Value: 3}, {Key: "as", Value: "g"}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$p"}, {Key: "q", Value: bson.D{{Key: "$percentile", Value: bson.D{
			{Key: "p", Value: bson.A{0.1, 0.5}}, {Key: "input", Value: "$y"}, {Key: "method", Value: "continuous"}}}}}}}},
	} {
		b, err := bson.Marshal(seed)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	t0 := time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)
	c, _ := serve(f, "")
	db := c.Database("fz")
	ctx := context.Background()
	if _, err := db.Collection("c").InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 0}, {Key: "p", Value: "a"}, {Key: "x", Value: 1}, {Key: "y", Value: 2.5}, {Key: "t", Value: t0}},
		bson.D{{Key: "_id", Value: 1}, {Key: "p", Value: "a"}, {Key: "x", Value: int64(3)}, {Key: "y", Value: nil}, {Key: "t", Value: t0.AddDate(0, 1, 0)}},
		bson.D{{Key: "_id", Value: 2}, {Key: "p", Value: "b"}, {Key: "x", Value: "s"}, {Key: "y", Value: bson.A{1, 2}}},
		bson.D{{Key: "_id", Value: 3}, {Key: "x", Value: mustDecimalF(f, "1e6000")}, {Key: "y", Value: -1}, {Key: "t", Value: time.UnixMilli(1 << 60)}},
		bson.D{{Key: "_id", Value: 4}, {Key: "p", Value: bson.D{{Key: "k", Value: 1}}}, {Key: "x", Value: 1e308}, {Key: "y", Value: int32(-2147483648)}},
	}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, spec []byte) {
		if bsoncore.Document(spec).Validate() != nil {
			return
		}
		cmd := bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.Raw(spec)}}, {Key: "cursor", Value: bson.D{}}}
		reply, err := db.RunCommand(ctx, cmd).Raw()
		var se mongo.ServerError
		switch {
		case errors.As(err, &se) && se.HasErrorCode(1):
			t.Fatalf("%v: %v", bson.Raw(spec), err)
		case err == nil:
			if _, err := reply.LookupErr("cursor", "firstBatch"); err != nil {
				t.Fatalf("%v answered %v", bson.Raw(spec), reply)
			}
		}
	})
}
func mustDecimalF(f *testing.F, s string) bson.Decimal128 {
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		f.Fatal(err)
	}
	return d
}
