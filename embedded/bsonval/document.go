package bsonval

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// MaxDocSize is the largest document MongoDB stores (16 MiB), and the
// maxBsonObjectSize the server announces.
const MaxDocSize = 16 * 1024 * 1024

// IDFirst is d with its _id, if any, moved to the front.
func IDFirst(d bsoncore.Document) bsoncore.Document {
	id, err := d.LookupErr("_id")
	if err != nil {
		return d
	}
	b := bsoncore.NewDocumentBuilder().AppendValue("_id", id)
	for _, e := range Elements(d) {
		if e.Key() != "_id" {
			b.AppendValue(e.Key(), e.Value())
		}
	}
	return b.Build()
}

// AppendDocArray appends to dst an array element key of the documents
// docs, without building each as a value first.
func AppendDocArray(dst []byte, key string, docs []bsoncore.Document) []byte {
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeArray, key)
	ai, dst := bsoncore.ReserveLength(dst)
	var k [20]byte
	for i, d := range docs {
		dst = bsoncore.AppendDocumentElement(dst, string(strconv.AppendInt(k[:0], int64(i), 10)), d)
	}
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, ai, int32(len(dst[ai:])))
}
