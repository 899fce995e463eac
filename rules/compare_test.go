package rules

import (
	"cmp"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// rv marshals v, or is null where MarshalValue cannot (nil).
func rv(v any) bson.RawValue {
	t, b, err := bson.MarshalValue(v)
	if err != nil {
		return bson.RawValue{Type: bson.TypeNull}
	}
	return bson.RawValue{Type: t, Value: b}
}

// sortOrder lists _id values in MongoDB's ascending sort order (the BSON
// comparison order of the MongoDB manual: MinKey, Null, Numbers,
// Symbol/String, Object, Array, BinData, ObjectId, Boolean, Date,
// Timestamp, Regular Expression, MaxKey; undefined before null, as the
// server's canonicalizeBSONType has it). Values in one inner slice are
// equal.
func sortOrder() [][]bson.RawValue {
	oid := func(b byte) bson.ObjectID {
		var o bson.ObjectID
		o[11] = b
		return o
	}
	return [][]bson.RawValue{
		{rv(bson.MinKey{})},
		{rv(bson.Undefined{})},
		{rv(nil)},
		{rv(math.NaN()), rv(-math.NaN())},
		{rv(math.Inf(-1))},
		{rv(int64(math.MinInt64)), rv(float64(math.MinInt64))},
		{rv(int64(-1 << 53)), rv(float64(-1 << 53))},
		{rv(-2.5)},
		{rv(int32(-2)), rv(int64(-2)), rv(-2.0)},
		{rv(int32(0)), rv(int64(0)), rv(0.0), rv(math.Copysign(0, -1))},
		{rv(0.5)},
		{rv(int32(1)), rv(int64(1)), rv(1.0)},
		{rv(int32(math.MaxInt32)), rv(int64(math.MaxInt32))},
		// 2^53 as a double, then 2^53+1, which no double holds: equal as
		// doubles, ordered exactly.
		{rv(int64(1 << 53)), rv(float64(1 << 53))},
		{rv(int64(1<<53 + 1))},
		{rv(float64(1<<53 + 2)), rv(int64(1<<53 + 2))},
		{rv(int64(math.MaxInt64))},
		{rv(float64(math.MaxInt64))}, // 2^63, above every int64
		{rv(math.Inf(1))},
		{rv(""), rv(bson.Symbol(""))},
		{rv("\x00")},
		{rv("A")},
		{rv("a"), rv(bson.Symbol("a"))},
		{rv("a\x00")},
		{rv("ab")},
		{rv("b")},
		{rv("é")},
		{rv(bson.D{})},
		{rv(bson.D{{Key: "a", Value: nil}})},
		{rv(bson.D{{Key: "a", Value: int32(1)}}), rv(bson.D{{Key: "a", Value: 1.0}})},
		{rv(bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int32(0)}})},
		// Element by element: type rank before field name.
		{rv(bson.D{{Key: "b", Value: int32(0)}})},
		{rv(bson.D{{Key: "a", Value: "x"}})},
		{rv(bson.A{})},
		{rv(bson.A{int32(1)})},
		{rv(bson.A{int32(1), int32(2)})},
		{rv(bson.A{int32(2)})},
		// Binary: length first, then subtype, then bytes.
		{rv(bson.Binary{Subtype: 0x80, Data: nil})},
		{rv(bson.Binary{Subtype: 0, Data: []byte{0xff}})},
		{rv(bson.Binary{Subtype: 0, Data: []byte{0, 0}})},
		{rv(bson.Binary{Subtype: 0, Data: []byte{0, 1}})},
		{rv(bson.Binary{Subtype: 4, Data: []byte{0, 0}})},
		{rv(bson.Binary{Subtype: 0, Data: []byte{0, 0, 0}})},
		{rv(oid(0))},
		{rv(oid(1))},
		{rv(bson.ObjectID{0xff})},
		{rv(false)},
		{rv(true)},
		{rv(bson.DateTime(math.MinInt64))},
		{rv(bson.DateTime(-1))},
		{rv(bson.DateTime(0))},
		{rv(bson.DateTime(1))},
		{rv(bson.Timestamp{T: 0, I: 0})},
		{rv(bson.Timestamp{T: 0, I: math.MaxUint32})},
		{rv(bson.Timestamp{T: 1, I: 0})},
		{rv(bson.Timestamp{T: math.MaxUint32, I: 0})},
		{rv(bson.Regex{Pattern: "a", Options: ""})},
		{rv(bson.Regex{Pattern: "a", Options: "i"})},
		{rv(bson.Regex{Pattern: "b", Options: ""})},
		{rv(bson.DBPointer{DB: "a", Pointer: oid(1)})},
		{rv(bson.DBPointer{DB: "b", Pointer: oid(0)})},
		{rv(bson.DBPointer{DB: "aa", Pointer: oid(0)})},
		{rv(bson.JavaScript("a"))},
		{rv(bson.JavaScript("b"))},
		{rv(bson.CodeWithScope{Code: "a", Scope: bson.D{{Key: "x", Value: int32(2)}}})},
		{rv(bson.CodeWithScope{Code: "b", Scope: bson.D{{Key: "x", Value: int32(1)}}})},
		{rv(bson.MaxKey{})},
	}
}

// CompareIDs agrees with the table on every pair: equal within a group,
// ordered as the groups are.
func TestCompareIDsOrder(t *testing.T) {
	groups := sortOrder()
	for gi, ga := range groups {
		for gj, gb := range groups {
			want := cmp.Compare(gi, gj)
			for _, a := range ga {
				for _, b := range gb {
					c, ok := CompareIDs(a, b)
					if !ok || c != want {
						t.Errorf("CompareIDs(%s %s, %s %s) = %d, %v; expected %d", a.Type, a, b.Type, b, c, ok, want)
					}
				}
			}
		}
	}
}

// CompareIDs cannot tell a decimal128, nor malformed or unknown values, and
// says so rather than guess.
func TestCompareIDsCannotTell(t *testing.T) {
	dec, err := bson.ParseDecimal128("1.5")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ a, b bson.RawValue }{
		{rv(dec), rv(int32(1))},
		{rv(dec), rv(dec)},
		{bson.RawValue{Type: bson.TypeInt64, Value: []byte{1, 2}}, rv(int64(1))},
		{bson.RawValue{Type: bson.TypeString, Value: []byte{9, 0, 0, 0, 'a'}}, rv("a")},
		{bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: []byte{7, 0, 0, 0, 0}}, rv(bson.D{})},
		{bson.RawValue{Type: 0x42, Value: nil}, rv(int32(1))},
		{bson.RawValue{Type: bson.TypeObjectID, Value: []byte{1}}, rv(bson.ObjectID{})},
	} {
		if got, ok := CompareIDs(c.a, c.b); ok {
			t.Errorf("CompareIDs(%v, %v) = %d, true; expected ok false", c.a, c.b, got)
		}
	}
}

// fuzzValue builds a value of one of the _id types CompareIDs orders from
// fuzzed parts.
func fuzzValue(kind byte, i int64, f float64, s []byte) bson.RawValue {
	var o bson.ObjectID
	copy(o[:], s)
	switch kind % 16 {
	case 0:
		return rv(int32(i))
	case 1:
		return rv(i)
	case 2:
		return rv(f)
	case 3:
		return rv(float64(i))
	case 4:
		return rv(string(s))
	case 5:
		return rv(bson.Binary{Subtype: byte(i), Data: s})
	case 6:
		return rv(o)
	case 7:
		return rv(i&1 == 1)
	case 8:
		return rv(bson.DateTime(i))
	case 9:
		return rv(bson.Timestamp{T: uint32(i >> 32), I: uint32(i)})
	case 10:
		return rv(bson.D{{Key: string(s[:min(len(s), 2)]), Value: i}})
	case 11:
		return rv(bson.A{f, string(s)})
	case 12:
		return rv(bson.Symbol(s))
	case 13:
		return rv(nil)
	case 14:
		return rv(bson.MinKey{})
	}
	return rv(bson.MaxKey{})
}

// CompareIDs is a strict weak order: irreflexive, antisymmetric, and
// transitive in both its order and its equivalence, so that strict increase
// on consecutive pairs is strict increase on every subsequence.
func FuzzCompareIDsStrictWeakOrder(f *testing.F) {
	f.Add(byte(1), byte(2), byte(3), int64(1<<53+1), int64(2), int64(-3), float64(1<<53), 0.5, math.NaN(), []byte("a"), []byte("ab"), []byte{0xff})
	f.Add(byte(0), byte(3), byte(2), int64(-1), int64(7), int64(7), -1.0, 7.0, math.Inf(1), []byte{}, []byte{0}, []byte("é"))
	f.Fuzz(func(t *testing.T, ka, kb, kc byte, ia, ib, ic int64, fa, fb, fc float64, sa, sb, sc []byte) {
		vs := []bson.RawValue{fuzzValue(ka, ia, fa, sa), fuzzValue(kb, ib, fb, sb), fuzzValue(kc, ic, fc, sc)}
		cmp := func(x, y int) int {
			c, ok := CompareIDs(vs[x], vs[y])
			if !ok {
				t.Fatalf("CompareIDs(%v, %v): cannot tell", vs[x], vs[y])
			}
			return c
		}
		for x := range vs {
			if c := cmp(x, x); c != 0 {
				t.Fatalf("CompareIDs(%v, itself) = %d", vs[x], c)
			}
			for y := range vs {
				if cmp(x, y) != -cmp(y, x) {
					t.Fatalf("CompareIDs(%v, %v) = %d but reversed %d", vs[x], vs[y], cmp(x, y), cmp(y, x))
				}
				for z := range vs {
					xy, yz, xz := cmp(x, y), cmp(y, z), cmp(x, z)
					if xy <= 0 && yz <= 0 && xz != min(xy, yz) {
						t.Fatalf("not transitive: %v %d %v, %v %d %v, but %v %d %v", vs[x], xy, vs[y], vs[y], yz, vs[z], vs[x], xz, vs[z])
					}
				}
			}
		}
	})
}

// Nothing panics on any bytes, and what CompareIDs tells is antisymmetric.
func FuzzCompareIDsBytes(f *testing.F) {
	f.Add(byte(bson.TypeEmbeddedDocument), []byte{5, 0, 0, 0, 0}, byte(bson.TypeCodeWithScope), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, ta byte, va []byte, tb byte, vb []byte) {
		a, b := bson.RawValue{Type: bson.Type(ta), Value: va}, bson.RawValue{Type: bson.Type(tb), Value: vb}
		c, ok := CompareIDs(a, b)
		d, dok := CompareIDs(b, a)
		if ok && dok && c != -d {
			t.Fatalf("CompareIDs(%v, %v) = %d, reversed %d", a, b, c, d)
		}
	})
}

// KeyOf and CompareIDs are one fact, how the server equates _id values:
// values with equal keys compare equal, and numbers that compare equal
// (whatever their types) share a key.
func FuzzKeyOfAgreesWithCompareIDs(f *testing.F) {
	f.Add(byte(0), byte(2), int64(5), int64(5), 5.0, -0.0, []byte("a"), []byte("a"))
	f.Add(byte(2), byte(2), int64(0), int64(0), math.NaN(), math.NaN(), []byte{}, []byte{})
	f.Add(byte(4), byte(4), int64(0), int64(0), 0.0, 0.0, []byte("a long string of many bytes"), []byte("a long string of many bytes"))
	f.Fuzz(func(t *testing.T, ka, kb byte, ia, ib int64, fa, fb float64, sa, sb []byte) {
		a, b := fuzzValue(ka, ia, fa, sa), fuzzValue(kb, ib, fb, sb)
		c, ok := CompareIDs(a, b)
		if !ok {
			t.Fatalf("CompareIDs(%v, %v): cannot tell", a, b)
		}
		if KeyOf(a) == KeyOf(b) && c != 0 {
			t.Fatalf("%v and %v share a key but compare %d", a, b, c)
		}
		_, _, aNum := number(a)
		_, _, bNum := number(b)
		if aNum && bNum && c == 0 && KeyOf(a) != KeyOf(b) {
			t.Fatalf("numbers %v and %v compare equal but have different keys", a, b)
		}
	})
}
