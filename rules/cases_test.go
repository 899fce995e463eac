package rules

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// docCase is one document of the differential test.
type docCase struct {
	name string
	doc  bson.Raw
}

// withID builds a document whose first field is _id (an int, unique per case)
// followed by elems.
func withID(id int32, elems ...[]byte) bson.Raw {
	b := bsoncore.NewDocumentBuilder().AppendInt32("_id", id)
	d := b.Build()
	// Insert the extra elements before the document's terminating zero.
	body := append([]byte{}, d[4:len(d)-1]...)
	for _, e := range elems {
		body = append(body, e...)
	}
	return bson.Raw(bsoncore.BuildDocument(nil, body))
}

func elem(key string, v bsoncore.Value) []byte {
	return bsoncore.AppendValueElement(nil, key, v)
}

func val(v any) bsoncore.Value {
	t, data, err := bson.MarshalValue(v)
	if err != nil {
		panic(err)
	}
	return bsoncore.Value{Type: bsoncore.Type(t), Data: data}
}

func subdoc(elems ...[]byte) bsoncore.Value {
	body := []byte{}
	for _, e := range elems {
		body = append(body, e...)
	}
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: bsoncore.BuildDocument(nil, body)}
}

func array(vals ...bsoncore.Value) bsoncore.Value {
	b := bsoncore.NewArrayBuilder()
	for _, v := range vals {
		b.AppendValue(v)
	}
	return bsoncore.Value{Type: bsoncore.TypeArray, Data: b.Build()}
}

// nested is a value nested depth levels deep: documents {"a": {...}} around 1.
func nested(depth int) bsoncore.Value {
	v := val(int32(1))
	for range depth {
		v = subdoc(elem("a", v))
	}
	return v
}

func raw(t bsoncore.Type, data []byte) bsoncore.Value { return bsoncore.Value{Type: t, Data: data} }

// cases are the documents every profile is checked on: every BSON type, the
// key rules at the top level and nested, and the limits.
func cases() []docCase {
	var cs []docCase
	add := func(name string, elems ...[]byte) {
		cs = append(cs, docCase{name, withID(int32(len(cs)+1), elems...)})
	}
	// Every type, as a plain field value.
	add("double", elem("v", val(1.5)))
	add("string", elem("v", val("s")))
	add("document", elem("v", subdoc(elem("x", val(int32(1))))))
	add("array", elem("v", array(val(int32(1)), val("x"))))
	add("binary", elem("v", val(bson.Binary{Subtype: 0, Data: []byte{1, 2}})))
	add("binary uuid", elem("v", val(bson.Binary{Subtype: 4, Data: make([]byte, 16)})))
	add("undefined", elem("v", raw(bsoncore.TypeUndefined, nil)))
	add("objectid", elem("v", val(bson.NewObjectIDFromTimestamp(bson.NewObjectID().Timestamp()))))
	add("bool", elem("v", val(true)))
	add("datetime", elem("v", val(bson.DateTime(1700000000000))))
	add("null", elem("v", raw(bsoncore.TypeNull, nil)))
	add("regex", elem("v", val(bson.Regex{Pattern: "a.c", Options: "i"})))
	add("dbpointer", elem("v", val(bson.DBPointer{DB: "db.c", Pointer: bson.NewObjectID()})))
	add("javascript", elem("v", val(bson.JavaScript("function(){}"))))
	add("symbol", elem("v", val(bson.Symbol("sym"))))
	add("code with scope", elem("v", val(bson.CodeWithScope{Code: "x", Scope: bson.D{{Key: "x", Value: 1}}})))
	add("int32", elem("v", val(int32(7))))
	add("timestamp", elem("v", val(bson.Timestamp{T: 5, I: 1})))
	add("int64", elem("v", val(int64(7))))
	add("decimal128", elem("v", val(bson.NewDecimal128(0, 1))))
	add("minkey", elem("v", raw(bsoncore.TypeMinKey, nil)))
	add("maxkey", elem("v", raw(bsoncore.TypeMaxKey, nil)))
	// Doubles the wire carries but a store may not.
	add("nan", elem("v", val(math.NaN())))
	add("+inf", elem("v", val(math.Inf(1))))
	add("-inf", elem("v", val(math.Inf(-1))))
	add("-0.0", elem("v", val(math.Copysign(0, -1))))
	add("nested nan", elem("v", subdoc(elem("x", val(math.NaN())))))
	add("-0.0 in array", elem("v", array(val(math.Copysign(0, -1)))))
	add("nested decimal128", elem("v", array(val(bson.NewDecimal128(0, 1)))))
	// Keys.
	add("empty key", elem("", val(int32(1))))
	add("nested empty key", elem("v", subdoc(elem("", val(int32(1))))))
	add("dotted key", elem("a.b", val(int32(1))))
	add("nested dotted key", elem("v", subdoc(elem("a.b", val(int32(1))))))
	add("dollar key", elem("$a", val(int32(1))))
	add("nested dollar key", elem("v", subdoc(elem("$a", val(int32(1))))))
	add("dollar inside key", elem("a$", val(int32(1))))
	add("dbref keys", elem("v", subdoc(elem("$ref", val("c")), elem("$id", val(int32(1))))))
	add("duplicate key", elem("v", val(int32(1))), elem("v", val(int32(2))))
	add("nested duplicate key", elem("v", subdoc(elem("x", val(int32(1))), elem("x", val(int32(2))))))
	add("invalid utf8 key", elem("a\xff", val(int32(1))))
	add("invalid utf8 string", elem("v", raw(bsoncore.TypeString, bsoncore.AppendString(nil, "a\xff"))))
	add("unicode key", elem("ключ", val(int32(1))))
	// Arrays.
	add("array in array", elem("v", array(array(val(int32(1))))))
	add("doc with array in array", elem("v", array(subdoc(elem("x", array(val(int32(1))))))))
	add("empty array in array", elem("v", array(array())))
	// Depth: the field holds a value nested so that the whole document
	// reaches the depth in its name (the top-level document is depth 1).
	add("depth 99", elem("v", nested(98)))
	add("depth 100", elem("v", nested(99)))
	add("depth 101", elem("v", nested(100)))
	add("depth 101 arrays", elem("v", nestedArrays(100)))
	// Size.
	add("1 MiB string", elem("v", val(strings.Repeat("x", 1<<20))))
	return cs
}

// nestedArrays is like nested with one document holding arrays of arrays
// alternated with documents so that no array sits directly in an array.
func nestedArrays(depth int) bsoncore.Value {
	v := val(int32(1))
	for i := range depth {
		if i%2 == 0 {
			v = array(v)
		} else {
			v = subdoc(elem("a", v))
		}
	}
	return v
}

// idCases put a value of each kind in _id.
func idCases() []docCase {
	var cs []docCase
	add := func(name string, v bsoncore.Value) {
		cs = append(cs, docCase{"_id " + name, bson.Raw(bsoncore.BuildDocument(nil, elem("_id", v)))})
	}
	add("array", array(val(int32(1))))
	add("regex", val(bson.Regex{Pattern: "x"}))
	add("undefined", raw(bsoncore.TypeUndefined, nil))
	add("document", subdoc(elem("x", val(int32(1)))))
	add("document with dollar key", subdoc(elem("$x", val(int32(1)))))
	add("null", raw(bsoncore.TypeNull, nil))
	add("string", val("s"))
	add("double", val(2.5))
	add("binary", val(bson.Binary{Data: []byte{1}}))
	return cs
}
