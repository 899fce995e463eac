package testbson

// Documents of every BSON type, for the tests of the Extended JSON encoder
// (ejson) and of the fixture files written with it (fixtures).

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestOID is an ObjectID the documents below use.
var TestOID = bson.ObjectID{0x65, 0x92, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x00, 0x00, 0x2a}

// SeedLikeDoc holds every type seed documents use.
func SeedLikeDoc(i int) bson.D {
	id := TestOID
	id[11] = byte(i)
	return bson.D{
		{Key: "_id", Value: id},
		{Key: "i32", Value: int32(-42 - i)},
		{Key: "i64big", Value: int64(1) << 40},
		{Key: "i64small", Value: int64(7)},
		{Key: "dbl", Value: 19.99},
		{Key: "dblInt", Value: 3.0},
		{Key: "str", Value: "Smith \"quoted\" \\ tab\t nl\n é 日本 \u2028 <&>"},
		{Key: "yes", Value: true},
		{Key: "no", Value: false},
		{Key: "at", Value: bson.DateTime(1704067200123)},
		{Key: "before1970", Value: bson.DateTime(-86400000)},
		{Key: "uuid", Value: bson.Binary{Subtype: 4, Data: []byte{0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}}},
		// No nested arrays: seed does not make them (EveryType has one).
		{Key: "tags", Value: bson.A{"a", int32(1), bson.D{{Key: "x", Value: int64(-5)}}}},
		{Key: "address", Value: bson.D{{Key: "city", Value: "Lyon"}, {Key: "geo", Value: bson.D{{Key: "lat", Value: 45.76}, {Key: "lng", Value: 4.84}}}}},
		{Key: "empty", Value: bson.D{}},
		{Key: "nothing", Value: nil},
	}
}

// EveryType adds the BSON types seed does not use.
func EveryType() bson.D {
	d := SeedLikeDoc(0)
	dec, _ := bson.ParseDecimal128("1.5E-10")
	return append(d,
		// -0.0, whose sign MongoDB keeps.
		bson.E{Key: "negZero", Value: math.Copysign(0, -1)},
		bson.E{Key: "nested", Value: bson.A{bson.A{int32(1)}, bson.A{}}},
		bson.E{Key: "bin0", Value: bson.Binary{Subtype: 0, Data: []byte("hello")}},
		bson.E{Key: "binOld", Value: bson.Binary{Subtype: 2, Data: []byte("old")}},
		bson.E{Key: "undef", Value: bson.Undefined{}},
		bson.E{Key: "re", Value: bson.Regex{Pattern: `^a"b\d`, Options: "mi"}},
		bson.E{Key: "ptr", Value: bson.DBPointer{DB: "db.coll", Pointer: TestOID}},
		bson.E{Key: "js", Value: bson.JavaScript("function(){return 1}")},
		bson.E{Key: "sym", Value: bson.Symbol("sym")},
		bson.E{Key: "cws", Value: bson.CodeWithScope{Code: "x", Scope: bson.D{{Key: "x", Value: int32(1)}}}},
		bson.E{Key: "ts", Value: bson.Timestamp{T: 1700000000, I: 7}},
		bson.E{Key: "dec", Value: dec},
		bson.E{Key: "min", Value: bson.MinKey{}},
		bson.E{Key: "max", Value: bson.MaxKey{}},
		bson.E{Key: "inf", Value: math.Inf(1)},
		bson.E{Key: "ninf", Value: math.Inf(-1)},
		bson.E{Key: "nan", Value: math.NaN()},
		bson.E{Key: "big", Value: 1e300},
		bson.E{Key: "tiny", Value: 5e-324},
		bson.E{Key: "far", Value: bson.DateTime(300000000000000)},
		bson.E{Key: "ctl", Value: "\x00\x01\x1f\x7f"},
	)
}

// MustRaw is bson.Marshal of v, failing the test on an error.
func MustRaw(t testing.TB, v any) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// EveryServerType holds the types the embedded server refuses, and keys with
// dots and dollars, which MongoDB stores.
func EveryServerType() bson.D {
	dec := func(s string) bson.Decimal128 {
		d, err := bson.ParseDecimal128(s)
		if err != nil {
			panic(err)
		}
		return d
	}
	return bson.D{
		{Key: "_id", Value: "every-type"},
		{Key: "negZero", Value: math.Copysign(0, -1)},
		{Key: "nan", Value: math.NaN()},
		{Key: "inf", Value: math.Inf(1)},
		{Key: "ninf", Value: math.Inf(-1)},
		{Key: "dec", Value: bson.A{dec("0"), dec("-0"), dec("1.5E-10"), dec("-123.456"), dec("9.999999999999999999999999999999999E+6144"), dec("1E-6176"), dec("NaN"), dec("Infinity"), dec("-Infinity")}},
		{Key: "min", Value: bson.MinKey{}},
		{Key: "max", Value: bson.MaxKey{}},
		{Key: "js", Value: bson.JavaScript("function(){return 1}")},
		{Key: "cws", Value: bson.CodeWithScope{Code: "x", Scope: bson.D{{Key: "x", Value: int32(1)}}}},
		{Key: "sym", Value: bson.Symbol("sym")},
		{Key: "undef", Value: bson.Undefined{}},
		{Key: "ptr", Value: bson.DBPointer{DB: "db.coll", Pointer: TestOID}},
		{Key: "nestedArrays", Value: bson.A{bson.A{int32(1), bson.A{}}, bson.A{}}},
		{Key: "a.b", Value: "dotted key"},
		{Key: "sub", Value: bson.D{{Key: "$dollar", Value: int32(1)}, {Key: "x.y", Value: int32(2)}, {Key: "$ref", Value: "c"}, {Key: "$id", Value: int32(3)}}},
		{Key: "date", Value: bson.A{bson.DateTime(math.MinInt64), bson.DateTime(math.MaxInt64), bson.DateTime(-1)}},
		{Key: "all", Value: bson.D{{Key: "i32", Value: int32(1)}, {Key: "i64", Value: int64(1)}, {Key: "d", Value: 1.0}, {Key: "ts", Value: bson.Timestamp{T: 1, I: 2}}}},
	}
}
