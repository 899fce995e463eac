package bsonval

import (
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Truthy is MongoDB's boolean conversion.
func Truthy(v bsoncore.Value) bool {
	switch v.Type {
	case 0, bsoncore.TypeNull, bsoncore.TypeUndefined:
		return false
	case bsoncore.TypeBoolean:
		return v.Boolean()
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		return NumberFloat(v) != 0
	}
	return true
}

// Text is a value as text, as the server names things with it: a
// string's or symbol's text, an ObjectId in hex, a date in ISO 8601 (UTC,
// milliseconds), numbers and booleans as written, "" for null or a missing
// value, anything else as the shell prints it.
func Text(v bsoncore.Value) string {
	switch v.Type {
	case bsoncore.TypeString:
		return v.StringValue()
	case bsoncore.TypeSymbol:
		return v.Symbol()
	case bsoncore.TypeObjectID:
		return bson.ObjectID(v.ObjectID()).Hex()
	case bsoncore.TypeDateTime:
		return time.UnixMilli(v.DateTime()).UTC().Format("2006-01-02T15:04:05.000Z")
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		i, _ := IntOf(v)
		return strconv.FormatInt(i, 10)
	case bsoncore.TypeDouble:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case bsoncore.TypeBoolean:
		return strconv.FormatBool(v.Boolean())
	case bsoncore.TypeDecimal128:
		h, l := v.Decimal128()
		return bson.NewDecimal128(h, l).String()
	case 0, bsoncore.TypeNull:
		return ""
	}
	return Shell(v)
}
