// Package testbson turns Extended JSON written in a test into the BSON the
// server's packages take, failing the test on a typo: one helper for the
// conformance tables of embedded/query, update, pipeline and engine.
package testbson

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Doc is the document the Extended JSON s spells (canonical or relaxed),
// its keys in the order written.
func Doc(t testing.TB, s string) bsoncore.Document {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
