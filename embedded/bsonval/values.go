package bsonval

import (
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Int32 is an int32 value.
func Int32(i int32) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, i)}
}

// Int64 is an int64 value.
func Int64(i int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, i)}
}

// Double is a double value.
func Double(f float64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, f)}
}

// String is a string value.
func String(s string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, s)}
}

// Bool is a boolean value.
func Bool(b bool) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeBoolean, Data: bsoncore.AppendBoolean(nil, b)}
}

// Null is the null value.
func Null() bsoncore.Value { return bsoncore.Value{Type: bsoncore.TypeNull} }

// DateTime is a date value, ms milliseconds since the Unix epoch.
func DateTime(ms int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDateTime, Data: bsoncore.AppendDateTime(nil, ms)}
}

// Doc is an embedded document value holding d (not copied).
func Doc(d bsoncore.Document) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}
}

// Array is an array value of vals, indexed from 0.
func Array(vals []bsoncore.Value) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeArray, Data: bsoncore.BuildArray(nil, vals...)}
}

// Int is i as an int32 when it fits, else an int64.
func Int(i int64) bsoncore.Value {
	if i >= math.MinInt32 && i <= math.MaxInt32 {
		return Int32(int32(i))
	}
	return Int64(i)
}

// ArrayValues is the elements of an array value.
func ArrayValues(v bsoncore.Value) []bsoncore.Value {
	vals, _ := bsoncore.Document(v.Data).Values()
	return vals
}

// Elements is the elements of a document; malformed documents have none.
func Elements(d bsoncore.Document) []bsoncore.Element {
	els, err := d.Elements()
	if err != nil {
		return nil
	}
	return els
}

// wider is the numeric type of a result of a and b: decimal, then double,
// then int64, then int32.
func wider(a, b bsoncore.Type) bsoncore.Type {
	rank := func(t bsoncore.Type) int {
		switch t {
		case bsoncore.TypeDecimal128:
			return 4
		case bsoncore.TypeDouble:
			return 3
		case bsoncore.TypeInt64:
			return 2
		}
		return 1
	}
	if rank(a) >= rank(b) {
		return a
	}
	return b
}

// Arith adds (op '+') or multiplies (op '*') two numbers with MongoDB's
// promotion: int32 overflow gives int64, int64 overflow double, decimals
// stay decimal.
func Arith(op byte, a, b bsoncore.Value) bsoncore.Value {
	t := wider(a.Type, b.Type)
	switch t {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		x, _ := IntOf(a)
		y, _ := IntOf(b)
		var r int64
		overflow := false
		if op == '+' {
			r = x + y
			overflow = (x > 0 && y > 0 && r < 0) || (x < 0 && y < 0 && r >= 0)
		} else {
			r = x * y
			overflow = x != 0 && (r/x != y || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64))
		}
		if overflow {
			if op == '+' {
				return Double(float64(x) + float64(y))
			}
			return Double(float64(x) * float64(y))
		}
		if t == bsoncore.TypeInt32 && r >= math.MinInt32 && r <= math.MaxInt32 {
			return Int32(int32(r))
		}
		return Int64(r)
	case bsoncore.TypeDouble:
		if op == '+' {
			return Double(NumberFloat(a) + NumberFloat(b))
		}
		return Double(NumberFloat(a) * NumberFloat(b))
	}
	ra, _ := BigOf(a)
	rb, _ := BigOf(b)
	if ra == nil || rb == nil {
		return Decimal(bson.NewDecimal128(0x7c00000000000000, 0)) // NaN
	}
	if op == '+' {
		ra.Add(ra, rb)
	} else {
		ra.Mul(ra, rb)
	}
	d, err := bson.ParseDecimal128(ra.FloatString(20))
	if err != nil {
		f, _ := ra.Float64()
		d, _ = bson.ParseDecimal128(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return Decimal(TrimDecimal(d))
}

// TrimDecimal drops the trailing zeros of a decimal's fraction (1.50 is
// 1.5, 2.0 is 2); a number in exponent form is left as it is.
func TrimDecimal(d bson.Decimal128) bson.Decimal128 {
	s := d.String()
	if strings.Contains(s, ".") && !strings.ContainsAny(s, "Ee") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		if nd, err := bson.ParseDecimal128(s); err == nil {
			return nd
		}
	}
	return d
}

// Decimal is a Decimal128 value.
func Decimal(d bson.Decimal128) bsoncore.Value {
	h, l := d.GetBytes()
	return bsoncore.Value{Type: bsoncore.TypeDecimal128, Data: bsoncore.AppendDecimal128(nil, h, l)}
}

// Shell renders a value as the shell prints it in error messages:
// { email: "a@b.c" }.
func Shell(v bsoncore.Value) string {
	switch v.Type {
	case 0:
		return "null"
	case bsoncore.TypeNull:
		return "null"
	case bsoncore.TypeString:
		return strconv.Quote(v.StringValue())
	case bsoncore.TypeInt32:
		return strconv.Itoa(int(v.Int32()))
	case bsoncore.TypeInt64:
		return strconv.FormatInt(v.Int64(), 10)
	case bsoncore.TypeDouble:
		f := v.Double()
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return strconv.FormatFloat(f, 'f', 1, 64)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case bsoncore.TypeObjectID:
		return "ObjectId('" + bson.ObjectID(v.ObjectID()).Hex() + "')"
	case bsoncore.TypeBoolean:
		return strconv.FormatBool(v.Boolean())
	case bsoncore.TypeEmbeddedDocument:
		return shellDoc(bsoncore.Document(v.Data), false)
	case bsoncore.TypeArray:
		return shellDoc(bsoncore.Document(v.Data), true)
	case bsoncore.TypeDecimal128:
		h, l := v.Decimal128()
		return "NumberDecimal(\"" + bson.NewDecimal128(h, l).String() + "\")"
	case bsoncore.TypeDateTime:
		return "new Date(" + strconv.FormatInt(v.DateTime(), 10) + ")"
	}
	return v.String()
}

func shellDoc(d bsoncore.Document, array bool) string {
	switch {
	case len(Elements(d)) > 0:
	case array:
		return "[]"
	default:
		return "{}"
	}
	var b strings.Builder
	if array {
		b.WriteString("[ ")
	} else {
		b.WriteString("{ ")
	}
	for i, e := range Elements(d) {
		if i > 0 {
			b.WriteString(", ")
		}
		if !array {
			b.WriteString(e.Key())
			b.WriteString(": ")
		}
		b.WriteString(Shell(e.Value()))
	}
	if array {
		b.WriteString(" ]")
	} else {
		b.WriteString(" }")
	}
	return b.String()
}
