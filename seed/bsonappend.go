package seed

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// appendD appends d as a BSON document: the bytes bson.Marshal gives for the
// value types documents are built from, without the driver's reflection.
// It reports false, with dst to be discarded, on any other type or on
// something the driver would refuse; the caller then marshals with the
// driver, which has the last word.
func appendD(dst []byte, d bson.D) ([]byte, bool) {
	at, dst := bsoncore.AppendDocumentStart(dst)
	return appendFields(dst, at, d)
}

// appendFields appends the elements of d and ends the document started at
// index at.
func appendFields(dst []byte, at int32, d bson.D) ([]byte, bool) {
	for _, e := range d {
		var ok bool
		if dst, ok = appendValue(dst, e.Key, e.Value); !ok {
			return dst, false
		}
	}
	dst, err := bsoncore.AppendDocumentEnd(dst, at)
	return dst, err == nil
}

func appendValue(dst []byte, key string, v any) ([]byte, bool) {
	if strings.IndexByte(key, 0) >= 0 {
		return dst, false
	}
	switch v := v.(type) {
	case string:
		return bsoncore.AppendStringElement(dst, key, v), true
	case int32:
		return bsoncore.AppendInt32Element(dst, key, v), true
	case int64:
		return bsoncore.AppendInt64Element(dst, key, v), true
	case float64:
		return bsoncore.AppendDoubleElement(dst, key, v), true
	case bool:
		return bsoncore.AppendBooleanElement(dst, key, v), true
	case nil:
		return bsoncore.AppendNullElement(dst, key), true
	case bson.DateTime:
		return bsoncore.AppendDateTimeElement(dst, key, int64(v)), true
	case bson.ObjectID:
		return bsoncore.AppendObjectIDElement(dst, key, v), true
	case bson.Binary:
		return bsoncore.AppendBinaryElement(dst, key, v.Subtype, v.Data), true
	case bson.RawValue: // a stored _id
		if v.Type == 0 {
			return dst, false
		}
		return bsoncore.AppendValueElement(dst, key, bsoncore.Value{Type: bsoncore.Type(v.Type), Data: v.Value}), true
	case bson.D:
		if v == nil {
			return dst, false
		}
		at, dst := bsoncore.AppendDocumentElementStart(dst, key)
		return appendFields(dst, at, v)
	case bson.A:
		if v == nil {
			return dst, false
		}
		at, dst := bsoncore.AppendArrayElementStart(dst, key)
		for n, x := range v {
			var ok bool
			if dst, ok = appendValue(dst, indexKey(n), x); !ok {
				return dst, false
			}
		}
		dst, err := bsoncore.AppendArrayEnd(dst, at)
		return dst, err == nil
	}
	return dst, false
}

// indexKeys are the keys of the first array elements, which are all that
// generated arrays have.
var indexKeys = func() (keys [64]string) {
	for n := range keys {
		keys[n] = strconv.Itoa(n)
	}
	return keys
}()

func indexKey(n int) string {
	if n < len(indexKeys) {
		return indexKeys[n]
	}
	return strconv.Itoa(n)
}
