package expr

import (
	"crypto/md5"
	"encoding/binary"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// $toHashedIndexKey: the 64-bit value a hashed index keeps for a value.
// It is the first 8 bytes (little-endian) of the MD5 digest of the seed 0
// (an int32) and the value: its canonical type (an int32, one number for
// all numbers, one for strings and symbols, as BSON comparison ranks
// types), then a number as the int64 it truncates to, a document or an
// array as each of its elements (canonical type, field name with its NUL,
// value) and a terminating canonical type 0, any other value as its BSON
// bytes. It reproduces the manual's example and MongoDB's hash-stability
// vectors (NaN as 0, doubles past 2^63 clamped, except 2^63 itself,
// hashed as -2^63). Null and missing hash alike, as a hashed index keys
// a missing field as null. Two inputs are refused rather than guessed:
// a Decimal128 that is not an integer (how MongoDB's hash rounds it is
// not documented) and JavaScript code with scope.

func compileToHashedIndexKey(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		n, err := hashedIndexKey(x[0], 0)
		if err != nil {
			return bsonval.Missing, err
		}
		return bsonval.Int64(n), nil
	})
}

// hashedIndexKey is the hash of v with seed (0 for hashed indexes).
func hashedIndexKey(v bsoncore.Value, seed int32) (int64, error) {
	buf, err := appendHashed(binary.LittleEndian.AppendUint32(nil, uint32(seed)), nil, v)
	if err != nil {
		return 0, err
	}
	sum := md5.Sum(buf)
	return int64(binary.LittleEndian.Uint64(sum[:8])), nil
}

// canonicalType is the number by which a hashed value's type is hashed.
func canonicalType(t bsoncore.Type) int32 {
	switch t {
	case 0, bsoncore.TypeUndefined:
		return 0
	case bsoncore.TypeMinKey:
		return -1
	case bsoncore.TypeMaxKey:
		return 127
	case bsoncore.TypeNull:
		return 5
	case bsoncore.TypeDouble, bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDecimal128:
		return 10
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		return 15
	}
	return map[bsoncore.Type]int32{bsoncore.TypeEmbeddedDocument: 20, bsoncore.TypeArray: 25, bsoncore.TypeBinary: 30,
		bsoncore.TypeObjectID: 35, bsoncore.TypeBoolean: 40, bsoncore.TypeDateTime: 45, bsoncore.TypeTimestamp: 47,
		bsoncore.TypeRegex: 50, bsoncore.TypeDBPointer: 55, bsoncore.TypeJavaScript: 60, bsoncore.TypeCodeWithScope: 65}[t]
}

// appendHashed appends the bytes hashed for v (missing as null), named
// name when it is an element of a document or an array.
func appendHashed(buf []byte, name *string, v bsoncore.Value) ([]byte, error) {
	if v.Type == 0 {
		v = bsonval.Null()
	}
	buf = binary.LittleEndian.AppendUint32(buf, uint32(canonicalType(v.Type)))
	if name != nil {
		buf = append(append(buf, *name...), 0)
	}
	switch {
	case bsonval.IsNumber(v):
		n, err := hashedLong(v)
		return binary.LittleEndian.AppendUint64(buf, uint64(n)), err
	case v.Type == bsoncore.TypeCodeWithScope:
		return nil, mongoerr.New(mongoerr.NotImplemented, "$toHashedIndexKey of JavaScript code with scope is not supported by oidkit's server")
	case v.Type != bsoncore.TypeEmbeddedDocument && v.Type != bsoncore.TypeArray:
		return append(buf, v.Data...), nil
	}
	for _, e := range bsonval.Elements(bsoncore.Document(v.Data)) {
		k := e.Key()
		var err error
		if buf, err = appendHashed(buf, &k, e.Value()); err != nil {
			return nil, err
		}
	}
	return binary.LittleEndian.AppendUint32(buf, 0), nil // the end of the document
}

// hashedLong is the int64 a number is hashed as: a double truncated
// toward zero, NaN as 0, a value past the int64 range clamped to it (but
// a double of exactly 2^63 is -2^63, as MongoDB has always hashed it).
func hashedLong(v bsoncore.Value) (int64, error) {
	if i, ok := bsonval.IntOf(v); ok {
		return i, nil
	}
	r, special := bsonval.BigOf(v)
	if v.Type == bsoncore.TypeDouble || r == nil {
		f := special
		if r != nil {
			f = v.Double()
		}
		switch {
		case math.IsNaN(f):
			return 0, nil
		case f == 0x1p63 && v.Type == bsoncore.TypeDouble:
			return math.MinInt64, nil
		case f >= 0x1p63:
			return math.MaxInt64, nil
		case f <= -0x1p63:
			return math.MinInt64, nil
		}
		return int64(f), nil
	}
	if !r.IsInt() {
		return 0, mongoerr.New(mongoerr.NotImplemented, "$toHashedIndexKey of a Decimal128 that is not an integer (%s) is not supported by oidkit's server", bsonval.Shell(v))
	}
	n := r.Num()
	switch {
	case n.IsInt64():
		return n.Int64(), nil
	case n.Sign() > 0:
		return math.MaxInt64, nil
	}
	return math.MinInt64, nil
}
