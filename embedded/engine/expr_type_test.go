package engine

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// $convert with its named arguments, as the manual describes them, and the
// refusals of missing or unknown ones when the pipeline is compiled.
func TestConvertExpr(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("conv")
	doc := bson.D{{Key: "s", Value: "5"}, {Key: "bad", Value: "abc"}, {Key: "n", Value: 5}, {Key: "z", Value: nil}}
	conv := func(args ...bson.E) bson.D { return bson.D{{Key: "$convert", Value: bson.D(args)}} }
	checkExprs(t, coll, doc, []exprCase{
		{expr: conv(bson.E{Key: "input", Value: "$s"}, bson.E{Key: "to", Value: "int"}), want: `{"x":5}`},
		{expr: conv(bson.E{Key: "input", Value: "$n"}, bson.E{Key: "to", Value: "double"}), want: `{"x":5.0}`},
		{expr: conv(bson.E{Key: "input", Value: "$s"}, bson.E{Key: "to", Value: 16}), want: `{"x":5}`},
		{expr: conv(bson.E{Key: "input", Value: "$bad"}, bson.E{Key: "to", Value: "int"}, bson.E{Key: "onError", Value: "not a number"}), want: `{"x":"not a number"}`},
		{expr: conv(bson.E{Key: "input", Value: "$nope"}, bson.E{Key: "to", Value: "int"}, bson.E{Key: "onNull", Value: "none"}), want: `{"x":"none"}`},
		{expr: conv(bson.E{Key: "input", Value: "$z"}, bson.E{Key: "to", Value: "int"}), want: `{"x":null}`},
		{expr: conv(bson.E{Key: "input", Value: "$bad"}, bson.E{Key: "to", Value: "int"}), code: 241},
		{expr: conv(bson.E{Key: "to", Value: "int"}), code: 9, msg: "Missing 'input' parameter to $convert"},
		{expr: conv(bson.E{Key: "input", Value: "$s"}), code: 9, msg: "Missing 'to' parameter to $convert"},
		{expr: conv(bson.E{Key: "input", Value: "$s"}, bson.E{Key: "to", Value: "int"}, bson.E{Key: "format", Value: "hex"}), code: 9, msg: "$convert found an unknown argument: format"},
		{expr: conv(bson.E{Key: "input", Value: "$s"}, bson.E{Key: "to", Value: "int"}, bson.E{Key: "onError", Value: "$$nope"}), code: 17276, msg: "Use of undefined variable: nope"},
		{expr: bson.D{{Key: "$convert", Value: "int"}}, code: 9},
	})
}

// $round and $trunc with a negative place round integers to tens,
// hundreds...; $objectToArray refuses what is not a document.
func TestRoundIntegersAndObjectToArray(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("round")
	doc := bson.D{{Key: "i", Value: 1234}, {Key: "l", Value: int64(-1250)}, {Key: "h", Value: 1350}, {Key: "s", Value: "x"}}
	checkExprs(t, coll, doc, []exprCase{
		{expr: op("$round", bson.A{"$i", -2}), want: `{"x":1200}`},
		{expr: op("$round", bson.A{"$i", -1}), want: `{"x":1230}`},
		{expr: op("$round", bson.A{"$l", -2}), want: `{"x":-1200}`},
		{expr: op("$round", bson.A{"$h", -2}), want: `{"x":1400}`},
		{expr: op("$round", bson.A{"$i", -20}), want: `{"x":0}`},
		{expr: op("$trunc", bson.A{"$i", -2}), want: `{"x":1200}`},
		{expr: op("$trunc", bson.A{"$l", -3}), want: `{"x":-1000}`},
		{expr: op("$round", bson.A{"$i", 2}), want: `{"x":1234}`},
		{expr: op("$objectToArray", "$s"), code: 40390, msg: "$objectToArray requires a document input, found: string"},
		{expr: op("$objectToArray", bson.D{{Key: "a", Value: 1}}), want: `{"x":[{"k":"a","v":1}]}`},
	})
}

// $limit takes a positive integer and $skip a non-negative one, whole
// doubles included; anything else is refused when the pipeline is compiled.
func TestLimitSkipArguments(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("ls")
	ctx := t.Context()
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stage bson.D
		n     int
		code  int
	}{
		{bson.D{{Key: "$limit", Value: 2}}, 2, 0},
		{bson.D{{Key: "$limit", Value: 2.0}}, 2, 0},
		{bson.D{{Key: "$skip", Value: 0}}, 3, 0},
		{bson.D{{Key: "$skip", Value: int64(2)}}, 1, 0},
		{bson.D{{Key: "$limit", Value: 0}}, 0, 15958},
		{bson.D{{Key: "$limit", Value: -1}}, 0, 5107201},
		{bson.D{{Key: "$limit", Value: 1.5}}, 0, 5107201},
		{bson.D{{Key: "$limit", Value: "2"}}, 0, 5107201},
		{bson.D{{Key: "$skip", Value: -1}}, 0, 5107200},
		{bson.D{{Key: "$skip", Value: 0.5}}, 0, 5107200},
	} {
		cur, err := coll.Aggregate(ctx, bson.A{c.stage})
		var rows []bson.Raw
		if err == nil {
			err = cur.All(ctx, &rows)
		}
		if c.code != 0 {
			var se mongo.ServerError
			if !errors.As(err, &se) || !se.HasErrorCode(c.code) {
				t.Errorf("%v: %v; want error %d", c.stage, err, c.code)
			}
			continue
		}
		if err != nil || len(rows) != c.n {
			t.Errorf("%v: %d documents, %v; want %d", c.stage, len(rows), err, c.n)
		}
	}
}

// An expression's error in findAndModify's projection fails the command,
// and the update or delete it would have answered is not made.
func TestFindAndModifyProjectionError(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("fam")
	ctx := t.Context()
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "z", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	bad := bson.D{{Key: "x", Value: op("$divide", bson.A{1, "$z"})}}
	err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}},
		options.FindOneAndUpdate().SetProjection(bad)).Err()
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(2) {
		t.Fatalf("update with a failing projection: %v; want error 2", err)
	}
	err = coll.FindOneAndDelete(ctx, bson.D{{Key: "_id", Value: 1}}, options.FindOneAndDelete().SetProjection(bad)).Err()
	if !errors.As(err, &se) || !se.HasErrorCode(2) {
		t.Fatalf("delete with a failing projection: %v; want error 2", err)
	}
	var got bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil || got["u"] != nil {
		t.Fatalf("after the failed commands: %v, %v; want the document untouched", got, err)
	}
	ok := bson.D{{Key: "x", Value: op("$add", bson.A{"$z", 1})}}
	var out bson.M
	if err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}},
		options.FindOneAndUpdate().SetProjection(ok)).Decode(&out); err != nil || out["x"] != int32(1) {
		t.Fatalf("update with a projection: %v, %v; want x 1", out, err)
	}
}
