package expr

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
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
