package bsonval

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// TypeNames is the $type alias of each BSON type ("double", "objectId",
// "long"…).
var TypeNames = map[bsoncore.Type]string{
	bsoncore.TypeDouble: "double", bsoncore.TypeString: "string", bsoncore.TypeEmbeddedDocument: "object",
	bsoncore.TypeArray: "array", bsoncore.TypeBinary: "binData", bsoncore.TypeUndefined: "undefined",
	bsoncore.TypeObjectID: "objectId", bsoncore.TypeBoolean: "bool", bsoncore.TypeDateTime: "date",
	bsoncore.TypeNull: "null", bsoncore.TypeRegex: "regex", bsoncore.TypeDBPointer: "dbPointer",
	bsoncore.TypeJavaScript: "javascript", bsoncore.TypeSymbol: "symbol", bsoncore.TypeCodeWithScope: "javascriptWithScope",
	bsoncore.TypeInt32: "int", bsoncore.TypeTimestamp: "timestamp", bsoncore.TypeInt64: "long",
	bsoncore.TypeDecimal128: "decimal", bsoncore.TypeMinKey: "minKey", bsoncore.TypeMaxKey: "maxKey",
}

// TypeName is the alias of t, "missing" for the value of a path that
// leads nowhere.
func TypeName(t bsoncore.Type) string {
	if t == 0 {
		return "missing"
	}
	return TypeNames[t]
}
