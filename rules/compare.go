package rules

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// typeRank is where a BSON type falls in MongoDB's sort order
// (canonicalizeBSONType in the server): MinKey, then undefined, null,
// numbers of every width together, string and symbol together, embedded
// document, array, binary, ObjectID, boolean, date, timestamp, regular
// expression, DBPointer, JavaScript code, code with scope, MaxKey. ok is
// false for a byte that is no BSON type.
func typeRank(t bson.Type) (rank int, ok bool) {
	switch t {
	case bson.TypeMinKey:
		return -1, true
	case bson.TypeUndefined:
		return 0, true
	case bson.TypeNull:
		return 5, true
	case bson.TypeDouble, bson.TypeInt32, bson.TypeInt64, bson.TypeDecimal128:
		return 10, true
	case bson.TypeString, bson.TypeSymbol:
		return 15, true
	case bson.TypeEmbeddedDocument:
		return 20, true
	case bson.TypeArray:
		return 25, true
	case bson.TypeBinary:
		return 30, true
	case bson.TypeObjectID:
		return 35, true
	case bson.TypeBoolean:
		return 40, true
	case bson.TypeDateTime:
		return 45, true
	case bson.TypeTimestamp:
		return 47, true
	case bson.TypeRegex:
		return 50, true
	case bson.TypeDBPointer:
		return 55, true
	case bson.TypeJavaScript:
		return 60, true
	case bson.TypeCodeWithScope:
		return 65, true
	case bson.TypeMaxKey:
		return 127, true
	}
	return 0, false
}

// CompareIDs orders two _id values as MongoDB sorts them with the default
// (binary) collation (compareElementValues in the server): by typeRank,
// then within a rank ObjectIDs bytewise, numbers by value across int32,
// int64 and double (exactly: an int64 beyond 2^53 against a double too; NaN
// below every number), strings and symbols and code by their bytes, the
// shorter first on a common prefix, binary by length, then subtype, then
// bytes, booleans false first, dates signed, timestamps unsigned, regular
// expressions by pattern then options, documents and arrays element by
// element (type rank, then field name, then value; the shorter first), code
// with scope by code then scope, DBPointers by length then bytes. ok is
// false when it cannot tell: a decimal128 (not modelled), an unknown type
// or malformed bytes. It is a strict weak order on the values it can tell.
func CompareIDs(a, b bson.RawValue) (c int, ok bool) { return compareElems("", a, "", b) }

// compareElems orders two elements of documents as the server does: by
// type rank, then field name, then value.
func compareElems(ka string, a bson.RawValue, kb string, b bson.RawValue) (c int, ok bool) {
	ra, aok := typeRank(a.Type)
	rb, bok := typeRank(b.Type)
	if !aok || !bok {
		return 0, false
	}
	if ra != rb {
		return cmp.Compare(ra, rb), true
	}
	if c := cmp.Compare(ka, kb); c != 0 {
		return c, true
	}
	return compareValues(ra, a, b)
}

// compareValues orders two values of the same type rank r.
func compareValues(r int, a, b bson.RawValue) (c int, ok bool) {
	switch r {
	case -1, 0, 5, 127:
		return 0, true
	case 10:
		return compareNumbers(a, b)
	case 15, 60:
		sa, aok := stringOf(a)
		sb, bok := stringOf(b)
		return cmp.Compare(sa, sb), aok && bok
	case 20, 25:
		return compareDocs(a.Value, b.Value)
	case 30:
		return compareBinaries(a, b)
	case 35:
		x, aok := a.ObjectIDOK()
		y, bok := b.ObjectIDOK()
		return bytes.Compare(x[:], y[:]), aok && bok
	case 40:
		x, aok := a.BooleanOK()
		y, bok := b.BooleanOK()
		return cmp.Compare(b2i(x), b2i(y)), aok && bok
	case 45:
		x, aok := a.DateTimeOK()
		y, bok := b.DateTimeOK()
		return cmp.Compare(x, y), aok && bok
	case 47:
		// Stored as one little-endian uint64 (increment low, seconds high):
		// unsigned order of it is order by seconds, then increment.
		if len(a.Value) != 8 || len(b.Value) != 8 {
			return 0, false
		}
		return cmp.Compare(binary.LittleEndian.Uint64(a.Value), binary.LittleEndian.Uint64(b.Value)), true
	case 50:
		pa, oa, aok := a.RegexOK()
		pb, ob, bok := b.RegexOK()
		if c := cmp.Compare(pa, pb); c != 0 {
			return c, aok && bok
		}
		return cmp.Compare(oa, ob), aok && bok
	case 55:
		return compareDBPointers(a, b)
	case 65:
		return compareCodeWithScope(a, b)
	}
	return 0, false
}

// compareBinaries orders binaries by length, then subtype, then bytes.
func compareBinaries(a, b bson.RawValue) (c int, ok bool) {
	sta, da, aok := a.BinaryOK()
	stb, db, bok := b.BinaryOK()
	if !aok || !bok {
		return 0, false
	}
	if len(da) != len(db) {
		return cmp.Compare(len(da), len(db)), true
	}
	if sta != stb {
		return cmp.Compare(sta, stb), true
	}
	return bytes.Compare(da, db), true
}

// compareDBPointers orders DBPointers by length, then bytes.
func compareDBPointers(a, b bson.RawValue) (c int, ok bool) {
	if _, _, aok := a.DBPointerOK(); !aok {
		return 0, false
	}
	if _, _, bok := b.DBPointerOK(); !bok {
		return 0, false
	}
	if len(a.Value) != len(b.Value) {
		return cmp.Compare(len(a.Value), len(b.Value)), true
	}
	return bytes.Compare(a.Value, b.Value), true
}

// compareCodeWithScope orders code with scope by code, then scope.
func compareCodeWithScope(a, b bson.RawValue) (c int, ok bool) {
	ca, sa, aok := a.CodeWithScopeOK()
	cb, sb, bok := b.CodeWithScopeOK()
	if !aok || !bok {
		return 0, false
	}
	if c := cmp.Compare(ca, cb); c != 0 {
		return c, true
	}
	return compareDocs(sa, sb)
}

// stringOf is the bytes of a string, symbol or JavaScript code value.
func stringOf(v bson.RawValue) (string, bool) {
	switch v.Type {
	case bson.TypeSymbol:
		return v.SymbolOK()
	case bson.TypeJavaScript:
		return v.JavaScriptOK()
	}
	return v.StringValueOK()
}

// compareDocs orders two documents (or arrays) element by element: type
// rank, field name, then value; a document that is a prefix of the other
// sorts first.
func compareDocs(a, b []byte) (int, bool) {
	ea, err := bson.Raw(a).Elements()
	if err != nil {
		return 0, false
	}
	eb, err := bson.Raw(b).Elements()
	if err != nil {
		return 0, false
	}
	for k := range min(len(ea), len(eb)) {
		if c, ok := compareElems(ea[k].Key(), ea[k].Value(), eb[k].Key(), eb[k].Value()); !ok || c != 0 {
			return c, ok
		}
	}
	return cmp.Compare(len(ea), len(eb)), true
}

// compareNumbers orders two numbers by value. int32 and int64 compare as
// integers, doubles as doubles (NaN equal to NaN, below every number), and
// an integer against a double exactly, without rounding the integer.
func compareNumbers(a, b bson.RawValue) (int, bool) {
	ia, aInt, aok := number(a)
	ib, bInt, bok := number(b)
	if !aok || !bok {
		return 0, false
	}
	switch {
	case aInt && bInt:
		return cmp.Compare(ia.i, ib.i), true
	case !aInt && !bInt:
		return cmp.Compare(ia.f, ib.f), true // NaN equal to NaN, below every number
	case aInt:
		return compareIntDouble(ia.i, ib.f), true
	}
	return -compareIntDouble(ib.i, ia.f), true
}

// num is an integer or a double.
type num struct {
	i int64
	f float64
}

// number reads a numeric value: isInt for int32 and int64; ok is false for
// a decimal128 or malformed bytes.
func number(v bson.RawValue) (n num, isInt, ok bool) {
	switch v.Type {
	case bson.TypeInt32:
		i, ok := v.Int32OK()
		return num{i: int64(i)}, true, ok
	case bson.TypeInt64:
		i, ok := v.Int64OK()
		return num{i: i}, true, ok
	case bson.TypeDouble:
		f, ok := v.DoubleOK()
		return num{f: f}, false, ok
	}
	return num{}, false, false
}

// compareIntDouble orders an int64 against a double exactly: the double is
// compared with the integer's range first, then by its whole part and its
// fraction, so that 2^53+1 sorts after 2^53 as a double.
func compareIntDouble(i int64, f float64) int {
	switch {
	case math.IsNaN(f):
		return 1
	case f >= 1<<63:
		return -1
	case f < -(1 << 63):
		return 1
	}
	t := math.Trunc(f)
	if c := cmp.Compare(i, int64(t)); c != 0 {
		return c
	}
	return cmp.Compare(0, f-t)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
