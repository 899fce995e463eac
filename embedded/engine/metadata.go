package engine

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// What the aggregate command answers from a collection's metadata rather
// than from its documents.

// countAllGroup is the $group stage of the driver's CountDocuments.
var countAllGroup = bsoncore.NewDocumentBuilder().AppendDocument("$group", bsoncore.NewDocumentBuilder().
	AppendInt32("_id", 1).AppendDocument("n", bsoncore.NewDocumentBuilder().AppendInt32("$sum", 1).Build()).Build()).Build()

// emptyMatch is {$match: {}}.
var emptyMatch = bsoncore.NewDocumentBuilder().AppendDocument("$match", bsoncore.NewDocumentBuilder().Build()).Build()

// countAllPipeline reports whether stages count every document of col
// (CountDocuments with an empty filter), and the count, from metadata.
func countAllPipeline(stages []bsoncore.Value, col *collection) (int, bool) {
	if len(stages) != 2 || stages[0].Type != bsoncore.TypeEmbeddedDocument || stages[1].Type != bsoncore.TypeEmbeddedDocument ||
		!bytes.Equal(stages[0].Data, emptyMatch) || !bytes.Equal(stages[1].Data, countAllGroup) {
		return 0, false
	}
	if col == nil {
		return 0, true
	}
	return col.docs.Len(), true
}

// indexStats is what $indexStats shows of each index of col: name, key,
// host, the spec, and accesses (not counted here: ops 0 since the start).
func indexStats(col *collection, c *call) []bsoncore.Document {
	if col == nil {
		return nil
	}
	host := ""
	if c.conn != nil && c.conn.c != nil {
		host = c.conn.c.LocalAddr().String()
	}
	specs := []bsoncore.Document{bsoncore.NewDocumentBuilder().AppendInt32("v", 2).AppendDocument("key", idKey).AppendString("name", "_id_").Build()}
	for _, ix := range col.indexes {
		specs = append(specs, ix.spec)
	}
	out := make([]bsoncore.Document, 0, len(specs))
	for _, sp := range specs {
		name, _ := sp.LookupErr("name")
		key, _ := sp.LookupErr("key")
		acc := bsoncore.NewDocumentBuilder().AppendInt64("ops", 0).AppendDateTime("since", c.srv.started.UnixMilli()).Build()
		out = append(out, bsoncore.NewDocumentBuilder().AppendValue("name", name).AppendValue("key", key).
			AppendString("host", host).AppendDocument("accesses", acc).AppendDocument("spec", sp).Build())
	}
	return out
}
