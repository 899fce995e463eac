package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/fixtures"
)

// idKey identifies an _id value the way a unique index compares it (see
// fixtures.KeyOf): numbers MongoDB considers equal share a key, so an _id
// stored with another numeric type is found, and then reported as a
// different document.
type idKey = fixtures.IDKey

func keyOf(v bson.RawValue) idKey { return fixtures.KeyOf(v) }

// digest is a 128-bit hash of a document's bytes.
type digest [16]byte

func digestOf(b []byte) digest {
	s := sha256.Sum256(b)
	var d digest
	copy(d[:], s[:])
	return d
}

// content returns the elements of doc after its leading _id: what two
// documents that differ only by _id have in common.
func content(doc bson.Raw) []byte {
	if len(doc) < 5 {
		return nil
	}
	body := doc[4 : len(doc)-1]
	if len(body) > 4 && body[0] != 0 && bytes.HasPrefix(body[1:], []byte("_id\x00")) {
		if v, err := doc.LookupErr("_id"); err == nil {
			return body[1+4+len(v.Value):]
		}
	}
	return body
}

// idFirst returns doc with its _id element moved to the front, as MongoDB
// stores it. A document whose _id is already first is returned unchanged.
func idFirst(doc bson.Raw) (bson.Raw, error) {
	elems, err := doc.Elements()
	if err != nil {
		return nil, err
	}
	at := -1
	for k, e := range elems {
		if e.Key() == "_id" {
			at = k
			break
		}
	}
	if at <= 0 {
		return doc, nil
	}
	out := make([]byte, 4, len(doc))
	out = append(out, elems[at]...)
	for k, e := range elems {
		if k != at {
			out = append(out, e...)
		}
	}
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out, nil
}

// typeNames are mongosh's names of the BSON types.
var typeNames = map[bson.Type]string{
	bson.TypeDouble: "double", bson.TypeString: "string", bson.TypeEmbeddedDocument: "object", bson.TypeArray: "array",
	bson.TypeBinary: "binary", bson.TypeUndefined: "undefined", bson.TypeObjectID: "ObjectID", bson.TypeBoolean: "bool",
	bson.TypeDateTime: "date", bson.TypeNull: "null", bson.TypeRegex: "regex", bson.TypeInt32: "int32",
	bson.TypeTimestamp: "timestamp", bson.TypeInt64: "int64", bson.TypeDecimal128: "decimal128",
	bson.TypeMinKey: "minKey", bson.TypeMaxKey: "maxKey",
}

// typeName is the mongosh name of a BSON type.
func typeName(t bson.Type) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("type 0x%02x", byte(t))
}

// show renders a value for a message, in mongosh's spelling where it has
// one, cut to a readable length.
func show(v bson.RawValue) string {
	var s string
	switch v.Type {
	case bson.TypeObjectID:
		if id, ok := v.ObjectIDOK(); ok {
			s = "ObjectId('" + hex.EncodeToString(id[:]) + "')"
		}
	case bson.TypeString:
		if str, ok := v.StringValueOK(); ok {
			s = strconv.Quote(str)
		}
	case bson.TypeInt32:
		if i, ok := v.Int32OK(); ok {
			s = strconv.FormatInt(int64(i), 10)
		}
	case bson.TypeInt64:
		if i, ok := v.Int64OK(); ok {
			s = "Long(" + strconv.FormatInt(i, 10) + ")"
		}
	case bson.TypeDouble:
		if f, ok := v.DoubleOK(); ok {
			s = strconv.FormatFloat(f, 'g', -1, 64)
			if f == math.Trunc(f) && !math.IsInf(f, 0) && math.Abs(f) < 1e15 {
				s += ".0"
			}
		}
	case bson.TypeBoolean:
		if b, ok := v.BooleanOK(); ok {
			s = strconv.FormatBool(b)
		}
	case bson.TypeNull:
		s = "null"
	case bson.TypeDateTime:
		if ms, ok := v.DateTimeOK(); ok {
			s = "ISODate('" + time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") + "')"
		}
	case bson.TypeBinary:
		if st, data, ok := v.BinaryOK(); ok {
			if st == bson.TypeBinaryUUID && len(data) == 16 {
				h := hex.EncodeToString(data)
				s = "UUID('" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:] + "')"
			} else {
				s = fmt.Sprintf("Binary(subtype %d, %s)", st, hex.EncodeToString(data))
			}
		}
	}
	if s == "" {
		s = v.String()
	}
	const limit = 120
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return s
}

// showTyped is show with the type name, for messages about types.
func showTyped(v bson.RawValue) string { return show(v) + " (" + typeName(v.Type) + ")" }

// rawValueOf marshals a Go value the way it sits in a document.
func rawValueOf(v any) bson.RawValue {
	t, data, err := bson.MarshalValue(v)
	if err != nil {
		return bson.RawValue{Type: bson.TypeNull}
	}
	return bson.RawValue{Type: t, Value: data}
}
