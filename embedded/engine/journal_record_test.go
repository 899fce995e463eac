package engine

import (
	"bytes"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// A journal record is {ops: [op, ...]}, the bytes the driver's builder
// makes of the same array, for 0 to 1,200 operations (keys of 1 to 4
// digits).
func TestJournalRecordIsTheOpsArray(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 11, 101, 1200} {
		ops := make([]bsoncore.Document, n)
		vals := make([]bsoncore.Value, n)
		for i := range ops {
			ops[i] = bsoncore.NewDocumentBuilder().AppendString("o", "i").AppendString("s", fmt.Sprint(i*i)).Build()
			vals[i] = bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: ops[i]}
		}
		want := bsoncore.NewDocumentBuilder().AppendArray("ops", bsoncore.BuildArray(nil, vals...)).Build()
		got := journalRecord(ops)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d ops: record %v, want %v", n, got, want)
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("%d ops: %v", n, err)
		}
	}
}

// A put's journal operation is the document the builder makes of
// {o: "p", db, c, d[, k: "r"]}, for names and documents of any length.
func TestPutOpIsTheBuildersDocument(t *testing.T) {
	for _, n := range []int{0, 1, 60, 5000} {
		doc := bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(n)).AppendString("s", string(bytes.Repeat([]byte("x"), n))).Build()
		for _, replace := range []bool{false, true} {
			db, c := "db"+string(bytes.Repeat([]byte("d"), n%70)), "c"
			b := bsoncore.NewDocumentBuilder().AppendString("o", "p").AppendString("db", db).AppendString("c", c).AppendDocument("d", doc)
			if replace {
				b.AppendString("k", "r")
			}
			if got, want := putOp(db, c, doc, replace), b.Build(); !bytes.Equal(got, want) {
				t.Fatalf("n %d replace %v: %v, want %v", n, replace, got, want)
			}
		}
	}
}
