package engine

import (
	"math"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// MongoDB's hash-stability vectors (jstests hash.js, _hashBSONElement with
// seed 1): strings, doubles at and past the int64 range, the infinities,
// NaN, documents.
func TestHashedIndexKeyVectors(t *testing.T) {
	const maxL, minL, zero = int64(1136124329541638701), int64(5744114172487291558), int64(5574369198691456941)
	for _, c := range []struct {
		v    any
		want int64
	}{
		{"hashthis", 6271151123721111923},
		{math.Pow(2, 63), minL},
		{math.Pow(2, 63) + math.Pow(2, 11), maxL},
		{math.Pow(2, 500), maxL},
		{math.Inf(1), maxL},
		{math.Pow(2, 63) - math.Pow(2, 10), -3954856262017896439},
		{-math.Pow(2, 63), minL},
		{-(math.Pow(2, 63) - math.Pow(2, 10)), -1762411739488908479},
		{-(math.Pow(2, 63) + math.Pow(2, 11)), minL},
		{math.Inf(-1), minL},
		{0.0, zero},
		{int64(0), zero},
		{int32(0), zero},
		{math.NaN(), zero},
		{bson.D{{Key: "a", Value: 1.0}, {Key: "b", Value: 2.0}}, -7076810813311352857},
		{bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int64(2)}}, -7076810813311352857},
		{bson.D{{Key: "a", Value: math.Pow(2, 63)}, {Key: "b", Value: math.NaN()}}, 1223292051903137684},
	} {
		typ, data, err := bson.MarshalValue(c.v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := hashedIndexKey(bsoncore.Value{Type: bsoncore.Type(typ), Data: data}, 1)
		if err != nil || got != c.want {
			t.Errorf("hash of %v: %d, %v; want %d", c.v, got, err, c.want)
		}
	}
}

// $toHashedIndexKey on the manual's example, and what it refuses rather
// than guess.
func TestToHashedIndexKeyExpr(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("hashkey")
	doc := bson.D{{Key: "val", Value: "string to hash"}, {Key: "n", Value: nil}, {Key: "d", Value: 2.9}, {Key: "i", Value: int32(2)}}
	nullHash, _ := hashedIndexKey(bsonval.Null(), 0)
	twoHash, _ := hashedIndexKey(bsonval.Int32(2), 0)
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
