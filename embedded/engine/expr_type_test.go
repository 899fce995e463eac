package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
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
