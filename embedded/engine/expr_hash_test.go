package engine

import (
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// $toHashedIndexKey on the manual's example, and what it refuses rather
// than guess.
func TestToHashedIndexKeyExpr(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("hashkey")
	doc := bson.D{{Key: "val", Value: "string to hash"}, {Key: "n", Value: nil}, {Key: "d", Value: 2.9}, {Key: "i", Value: int32(2)}}
	// hashes with seed 0, as hashed indexes use: of null and of 2
	const nullHash, twoHash = 2338878944348059895, 848411777775835583
	long := func(n int64) string { return `{"x":` + strconv.FormatInt(n, 10) + `}` }
	checkExprs(t, coll, doc, []exprCase{
		{expr: op("$toHashedIndexKey", "$val"), want: `{"x":763543691661428748}`},
		{expr: op("$type", op("$toHashedIndexKey", "$val")), want: `{"x":"long"}`},
		{expr: op("$toHashedIndexKey", "$n"), want: long(nullHash)},
		{expr: op("$toHashedIndexKey", "$nope"), want: long(nullHash)},
		{expr: op("$toHashedIndexKey", "$d"), want: long(twoHash)},
		{expr: op("$toHashedIndexKey", "$i"), want: long(twoHash)},
		{expr: op("$toHashedIndexKey", decimal("2")), want: long(twoHash)},
		{expr: op("$toHashedIndexKey", decimal("2.5")), code: 238},
		{expr: op("$toHashedIndexKey", bson.CodeWithScope{Code: "x", Scope: bson.D{}}), code: 238},
	})
}
