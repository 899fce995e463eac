package bsonval

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

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
