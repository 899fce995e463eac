package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The set operators on the manual's flowers and their edge cases: numbers
// equal by value, duplicates dropped, null and missing.
func TestSetExprs(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("sets")
	doc := bson.D{
		{Key: "A", Value: bson.A{"red", "blue"}},
		{Key: "B", Value: bson.A{"red", "blue", "green"}},
		{Key: "C", Value: bson.A{"blue", "red", "blue"}},
		{Key: "N", Value: bson.A{1, int64(2), 3.0}},
		{Key: "E", Value: bson.A{}},
		{Key: "n", Value: nil},
		{Key: "s", Value: "red"},
	}
	dec3, _ := bson.ParseDecimal128("3")
	checkExprs(t, coll, doc, []exprCase{
		// $setUnion
		{expr: op("$setUnion", bson.A{"$A", "$B"}), want: `{"x":["blue","green","red"]}`},
		{expr: op("$setUnion", bson.A{"$C"}), want: `{"x":["blue","red"]}`},
		{expr: op("$setUnion", bson.A{"$N", bson.A{1.0, 2, dec3, 4}}), want: `{"x":[1,2,3.0,4]}`},
		{expr: op("$setUnion", bson.A{"$E", "$E"}), want: `{"x":[]}`},
		{expr: op("$setUnion", bson.A{}), want: `{"x":[]}`},
		{expr: op("$setUnion", bson.A{"$A", "$n"}), want: `{"x":null}`},
		{expr: op("$setUnion", bson.A{"$A", "$nope"}), want: `{"x":null}`},
		{expr: op("$setUnion", bson.A{"$A", "$s"}), code: 17043},
		{expr: op("$setUnion", bson.A{bson.A{bson.A{1, 2}, bson.A{1, 2}, bson.A{2, 1}}}), want: `{"x":[[1,2],[2,1]]}`},
		// $setIntersection
		{expr: op("$setIntersection", bson.A{"$A", "$B"}), want: `{"x":["blue","red"]}`},
		{expr: op("$setIntersection", bson.A{"$B", bson.A{"green", "green", "x"}}), want: `{"x":["green"]}`},
		{expr: op("$setIntersection", bson.A{"$N", bson.A{2.0, int64(3)}}), want: `{"x":[2,3.0]}`},
		{expr: op("$setIntersection", bson.A{"$A", "$E"}), want: `{"x":[]}`},
		{expr: op("$setIntersection", bson.A{}), want: `{"x":[]}`},
		{expr: op("$setIntersection", bson.A{"$n", "$A"}), want: `{"x":null}`},
		{expr: op("$setIntersection", bson.A{"$A", "$s"}), code: 17047},
		// $setDifference
		{expr: op("$setDifference", bson.A{"$B", "$A"}), want: `{"x":["green"]}`},
		{expr: op("$setDifference", bson.A{"$A", "$B"}), want: `{"x":[]}`},
		{expr: op("$setDifference", bson.A{"$N", bson.A{2.0}}), want: `{"x":[1,3.0]}`},
		{expr: op("$setDifference", bson.A{bson.A{"b", "a", "b"}, "$E"}), want: `{"x":["a","b"]}`},
		{expr: op("$setDifference", bson.A{"$A", "$n"}), want: `{"x":null}`},
		{expr: op("$setDifference", bson.A{"$nope", "$A"}), want: `{"x":null}`},
		{expr: op("$setDifference", bson.A{"$s", "$A"}), code: 17048},
		{expr: op("$setDifference", bson.A{"$A", 1}), code: 17049},
		{expr: op("$setDifference", bson.A{"$A"}), code: 16020},
		// $setEquals
		{expr: op("$setEquals", bson.A{"$A", "$C"}), want: `{"x":true}`},
		{expr: op("$setEquals", bson.A{"$A", "$B"}), want: `{"x":false}`},
		{expr: op("$setEquals", bson.A{"$A", "$C", bson.A{"red", "blue", "red"}}), want: `{"x":true}`},
		{expr: op("$setEquals", bson.A{"$A", "$C", "$B"}), want: `{"x":false}`},
		{expr: op("$setEquals", bson.A{"$N", bson.A{3, 2.0, int64(1), 1}}), want: `{"x":true}`},
		{expr: op("$setEquals", bson.A{"$E", bson.A{}}), want: `{"x":true}`},
		{expr: op("$setEquals", bson.A{"$A", "$n"}), code: 5887502, msg: "All operands of $setEquals must be arrays. 2-th argument is of type: null"},
		{expr: op("$setEquals", bson.A{"$A"}), code: 17045},
		// $setIsSubset
		{expr: op("$setIsSubset", bson.A{"$A", "$B"}), want: `{"x":true}`},
		{expr: op("$setIsSubset", bson.A{"$B", "$A"}), want: `{"x":false}`},
		{expr: op("$setIsSubset", bson.A{"$C", "$A"}), want: `{"x":true}`},
		{expr: op("$setIsSubset", bson.A{"$E", "$A"}), want: `{"x":true}`},
		{expr: op("$setIsSubset", bson.A{bson.A{2.0, int64(1)}, "$N"}), want: `{"x":true}`},
		{expr: op("$setIsSubset", bson.A{"$n", "$A"}), code: 17046},
		{expr: op("$setIsSubset", bson.A{"$A", "$nope"}), code: 17042},
		{expr: op("$setIsSubset", bson.A{"$A"}), code: 16020},
	})
}
