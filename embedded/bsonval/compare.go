package bsonval

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Missing is the value of a path that leads nowhere.
var Missing = bsoncore.Value{}

// TypeOrder is MongoDB's canonical order of type classes ("Comparison/Sort
// Order" in the manual): numbers compare with each other, strings with
// symbols; a missing value sorts as null.
func TypeOrder(t bsoncore.Type) int {
	switch t {
	case bsoncore.TypeMinKey:
		return 1
	case 0, bsoncore.TypeNull, bsoncore.TypeUndefined:
		return 2
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		return 3
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		return 4
	case bsoncore.TypeEmbeddedDocument:
		return 5
	case bsoncore.TypeArray:
		return 6
	case bsoncore.TypeBinary:
		return 7
	case bsoncore.TypeObjectID:
		return 8
	case bsoncore.TypeBoolean:
		return 9
	case bsoncore.TypeDateTime:
		return 10
	case bsoncore.TypeTimestamp:
		return 11
	case bsoncore.TypeRegex:
		return 12
	case bsoncore.TypeDBPointer:
		return 13
	case bsoncore.TypeJavaScript:
		return 14
	case bsoncore.TypeCodeWithScope:
		return 15
	case bsoncore.TypeMaxKey:
		return 100
	}
	return 50
}

// IsNumber reports whether v is an int32, int64, double or Decimal128.
func IsNumber(v bsoncore.Value) bool { return TypeOrder(v.Type) == 3 }

// Compare orders a and b as MongoDB does.
func Compare(a, b bsoncore.Value) int {
	// The same type, of the kinds indexes and sorts meet most: what the
	// general path below gives, without its dispatch.
	if a.Type == b.Type && len(a.Data) == len(b.Data) {
		switch a.Type {
		case bsoncore.TypeObjectID:
			return bytes.Compare(a.Data, b.Data)
		case bsoncore.TypeInt32:
			if len(a.Data) == 4 {
				return cmp.Compare(int64(int32(le32(a.Data))), int64(int32(le32(b.Data))))
			}
		case bsoncore.TypeInt64, bsoncore.TypeDateTime:
			if len(a.Data) == 8 {
				return cmp.Compare(int64(le64(a.Data)), int64(le64(b.Data)))
			}
		}
	}
	if a.Type == bsoncore.TypeString && b.Type == bsoncore.TypeString {
		return bytes.Compare(stringBytes(a), stringBytes(b))
	}
	ta, tb := TypeOrder(a.Type), TypeOrder(b.Type)
	if ta != tb {
		return cmp.Compare(ta, tb)
	}
	switch ta {
	case 1, 2, 100:
		return 0
	case 3:
		return compareNumbers(a, b)
	case 4:
		return bytes.Compare(stringBytes(a), stringBytes(b))
	case 5, 6:
		return CompareDocs(bsoncore.Document(a.Data), bsoncore.Document(b.Data), ta == 6)
	case 7:
		sa, ba, _ := a.BinaryOK()
		sb, bb, _ := b.BinaryOK()
		if len(ba) != len(bb) {
			return cmp.Compare(len(ba), len(bb))
		}
		if sa != sb {
			return cmp.Compare(int(sa), int(sb))
		}
		return bytes.Compare(ba, bb)
	case 8:
		return bytes.Compare(a.Data, b.Data)
	case 9:
		x, y := a.Boolean(), b.Boolean()
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case 10:
		return cmp.Compare(a.DateTime(), b.DateTime())
	case 11:
		t1, i1 := a.Timestamp()
		t2, i2 := b.Timestamp()
		if t1 != t2 {
			return cmp.Compare(int64(t1), int64(t2))
		}
		return cmp.Compare(int64(i1), int64(i2))
	case 12:
		p1, o1 := a.Regex()
		p2, o2 := b.Regex()
		if c := strings.Compare(p1, p2); c != 0 {
			return c
		}
		return strings.Compare(o1, o2)
	}
	return bytes.Compare(a.Data, b.Data)
}

// stringBytes is the text of a string or symbol without copying it: an
// index build or a sort compares values millions of times.
func stringBytes(v bsoncore.Value) []byte {
	if len(v.Data) >= 5 {
		n := int(int32(le32(v.Data)))
		if n >= 1 && n <= len(v.Data)-4 {
			return v.Data[4 : 4+n-1]
		}
	}
	return []byte(stringOf(v))
}

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

func stringOf(v bsoncore.Value) string {
	if v.Type == bsoncore.TypeSymbol {
		return v.Symbol()
	}
	return v.StringValue()
}

// CompareDocs compares field by field: the type class of the value, the
// field name, then the value; arrays ignore names.
func CompareDocs(a, b bsoncore.Document, array bool) int {
	ea, _ := a.Elements()
	eb, _ := b.Elements()
	for i := 0; i < len(ea) && i < len(eb); i++ {
		va, vb := ea[i].Value(), eb[i].Value()
		if c := cmp.Compare(TypeOrder(va.Type), TypeOrder(vb.Type)); c != 0 {
			return c
		}
		if !array {
			if c := strings.Compare(ea[i].Key(), eb[i].Key()); c != 0 {
				return c
			}
		}
		if c := Compare(va, vb); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ea), len(eb))
}

// compareNumbers compares numbers of any type by value; NaN is below every
// other number and equal to itself.
func compareNumbers(a, b bsoncore.Value) int {
	if a.Type == bsoncore.TypeDecimal128 || b.Type == bsoncore.TypeDecimal128 {
		return compareBig(a, b)
	}
	ai, aInt := IntOf(a)
	bi, bInt := IntOf(b)
	if aInt && bInt {
		return cmp.Compare(ai, bi)
	}
	if aInt {
		return -compareIntFloat(bi0(b), ai)
	}
	if bInt {
		return compareIntFloat(a.Double(), bi)
	}
	return compareFloats(a.Double(), b.Double())
}

func bi0(v bsoncore.Value) float64 { return v.Double() }

// IntOf is the value of an int32 or int64; false for every other type
// (doubles and decimals too, even integral ones).
func IntOf(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32:
		return int64(v.Int32()), true
	case bsoncore.TypeInt64:
		return v.Int64(), true
	}
	return 0, false
}

func compareFloats(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return -1
	case yn:
		return 1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// compareIntFloat compares a double with an int64 exactly.
func compareIntFloat(f float64, i int64) int {
	if math.IsNaN(f) {
		return -1
	}
	if f < -9.3e18 {
		return -1
	}
	if f > 9.3e18 {
		return 1
	}
	bf := new(big.Float).SetFloat64(f)
	return bf.Cmp(new(big.Float).SetInt64(i))
}

// BigOf is a number as an exact rational; NaN and infinities are reported.
func BigOf(v bsoncore.Value) (r *big.Rat, special float64) {
	switch v.Type {
	case bsoncore.TypeInt32:
		return new(big.Rat).SetInt64(int64(v.Int32())), 0
	case bsoncore.TypeInt64:
		return new(big.Rat).SetInt64(v.Int64()), 0
	case bsoncore.TypeDouble:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, f
		}
		return new(big.Rat).SetFloat64(f), 0
	case bsoncore.TypeDecimal128:
		h, l := v.Decimal128()
		d := bson.NewDecimal128(h, l)
		s := d.String()
		switch s {
		case "NaN", "-NaN":
			return nil, math.NaN()
		case "Infinity":
			return nil, math.Inf(1)
		case "-Infinity":
			return nil, math.Inf(-1)
		}
		bi, exp, err := d.BigInt()
		if err != nil {
			return nil, math.NaN()
		}
		r := new(big.Rat).SetInt(bi)
		if exp > 0 {
			r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil)))
		} else if exp < 0 {
			r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-exp)), nil)))
		}
		return r, 0
	}
	return new(big.Rat), 0
}

func compareBig(a, b bsoncore.Value) int {
	ra, sa := BigOf(a)
	rb, sb := BigOf(b)
	if ra != nil && rb != nil {
		return ra.Cmp(rb)
	}
	fa, fb := sa, sb
	if ra != nil {
		fa, _ = ra.Float64()
	}
	if rb != nil {
		fb, _ = rb.Float64()
	}
	return compareFloats(fa, fb)
}

// Equal reports whether a and b are equal in BSON order and of one type
// class: numbers of every type are equal by value.
func Equal(a, b bsoncore.Value) bool {
	if TypeOrder(a.Type) != TypeOrder(b.Type) {
		return false
	}
	return Compare(a, b) == 0
}

// NumberFloat is a number as a float64.
func NumberFloat(v bsoncore.Value) float64 {
	switch v.Type {
	case bsoncore.TypeInt32:
		return float64(v.Int32())
	case bsoncore.TypeInt64:
		return float64(v.Int64())
	case bsoncore.TypeDouble:
		return v.Double()
	case bsoncore.TypeDecimal128:
		r, s := BigOf(v)
		if r == nil {
			return s
		}
		f, _ := r.Float64()
		return f
	}
	return 0
}
