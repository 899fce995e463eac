package engine

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// $bsonSize, $binarySize, $tsSecond and $tsIncrement on the manual's
// examples and their edge cases.
func TestMiscExprs(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("misc")
	lit := func(v any) bson.D { return op("$literal", v) }
	doc := bson.D{
		{Key: "obj", Value: bson.D{{Key: "a", Value: int32(1)}}},
		{Key: "emp", Value: bson.D{{Key: "name", Value: "x"}}},
		{Key: "bin", Value: bson.Binary{Subtype: 0, Data: []byte("8BS~`\xfc\xb7\x0c\xda\x8f\xf2\xcf(\xb2\x15\x90")}},
		{Key: "uuid", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}},
		{Key: "empty", Value: bson.Binary{Subtype: 0, Data: []byte{}}},
		{Key: "ts", Value: bson.Timestamp{T: 1622731060, I: 1}},
		{Key: "ts2", Value: bson.Timestamp{T: math.MaxUint32, I: math.MaxUint32}},
		{Key: "s", Value: "abc"},
		{Key: "n", Value: nil},
		{Key: "arr", Value: bson.A{1, 2}},
		{Key: "date", Value: bson.DateTime(1622731060000)},
		{Key: "i", Value: int32(7)},
	}
	checkExprs(t, coll, doc, []exprCase{
		// $bsonSize
		{expr: op("$bsonSize", "$obj"), want: `{"x":12}`},
		{expr: op("$bsonSize", "$emp"), want: `{"x":17}`},
		{expr: op("$bsonSize", bson.D{}), want: `{"x":5}`},
		{expr: op("$bsonSize", lit(bson.D{{Key: "k", Value: bson.A{"ab"}}})), want: `{"x":23}`},
		{expr: op("$bsonSize", bson.D{{Key: "s", Value: "$s"}}), want: `{"x":16}`},
		{expr: op("$type", op("$bsonSize", "$obj")), want: `{"x":"int"}`},
		{expr: op("$bsonSize", "$n"), want: `{"x":null}`},
		{expr: op("$bsonSize", "$nope"), want: `{"x":null}`},
		{expr: op("$bsonSize", bson.A{"$obj"}), want: `{"x":12}`},
		{expr: op("$bsonSize", "$arr"), code: 31393, msg: "$bsonSize requires a document input, found: array"},
		{expr: op("$bsonSize", "$s"), code: 31393, msg: "found: string"},
		{expr: op("$bsonSize", "$i"), code: 31393},
		{expr: op("$bsonSize", bson.A{"$obj", "$obj"}), code: 16020},
		// $binarySize: the manual's strings, then its binary data
		{expr: op("$binarySize", "abcde"), want: `{"x":5}`},
		{expr: op("$binarySize", "Hello World!"), want: `{"x":12}`},
		{expr: op("$binarySize", "cafeteria"), want: `{"x":9}`},
		{expr: op("$binarySize", "cafétéria"), want: `{"x":11}`},
		{expr: op("$binarySize", ""), want: `{"x":0}`},
		{expr: op("$binarySize", lit("$€λG")), want: `{"x":7}`},
		{expr: op("$binarySize", "寿司"), want: `{"x":6}`},
		{expr: op("$binarySize", "$bin"), want: `{"x":16}`},
		{expr: op("$binarySize", "$uuid"), want: `{"x":16}`},
		{expr: op("$binarySize", "$empty"), want: `{"x":0}`},
		{expr: op("$type", op("$binarySize", "$s")), want: `{"x":"int"}`},
		{expr: op("$binarySize", "$n"), want: `{"x":null}`},
		{expr: op("$binarySize", "$nope"), want: `{"x":null}`},
		{expr: op("$binarySize", "$i"), code: 51276, msg: "$binarySize requires a string or BinData argument, found: int"},
		{expr: op("$binarySize", "$obj"), code: 51276, msg: "found: object"},
		{expr: op("$binarySize", "$arr"), code: 51276},
		// $tsSecond, $tsIncrement
		{expr: op("$tsSecond", "$ts"), want: `{"x":1622731060}`},
		{expr: op("$tsIncrement", "$ts"), want: `{"x":1}`},
		{expr: op("$type", op("$tsSecond", "$ts")), want: `{"x":"long"}`},
		{expr: op("$type", op("$tsIncrement", "$ts")), want: `{"x":"long"}`},
		{expr: op("$tsSecond", "$ts2"), want: `{"x":4294967295}`},
		{expr: op("$tsIncrement", "$ts2"), want: `{"x":4294967295}`},
		{expr: op("$tsSecond", lit(bson.Timestamp{T: 0, I: 0})), want: `{"x":0}`},
		{expr: op("$tsSecond", "$n"), want: `{"x":null}`},
		{expr: op("$tsIncrement", "$nope"), want: `{"x":null}`},
		{expr: op("$tsSecond", "$date"), code: 5687301},
		{expr: op("$tsSecond", "$i"), code: 5687301},
		{expr: op("$tsIncrement", "$s"), code: 5687302},
		{expr: op("$tsIncrement", bson.A{"$ts", "$ts"}), code: 16020},
	})
}
