package indexes

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A Create the server refuses part way leaves the collection's indexes as
// they were: the indexes it created before the refusal are dropped again,
// one that was there before is kept. CreateMissing says what it created,
// and DropCreated undoes it.
func TestCreateRefusedDropsWhatItCreated(t *testing.T) {
	db, ctx := startDB(t)
	coll := db.Collection("orders")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "status", Value: "paid"}}, bson.D{{Key: "_id", Value: 2}, {Key: "status", Value: "paid"}}}); err != nil {
		t.Fatal(err)
	}
	asc := func(field string, unique bool) Index {
		return Index{Key: bson.D{{Key: field, Value: int32(1)}}, Unique: unique}
	}
	kept := asc("createdAt", false)
	if err := Create(ctx, coll, []Index{kept}); err != nil {
		t.Fatal(err)
	}
	// userId_1 goes in first; number_1 (unique) meets two documents
	// without number, both null to the index.
	err := Create(ctx, coll, []Index{kept, asc("userId", false), asc("number", true), asc("status", false)})
	var re *RefusedError
	if !errors.As(err, &re) || re.Index.NameOrDefault() != "number_1" {
		t.Fatalf("Create over documents that repeat a unique key: %v, expected number_1 refused", err)
	}
	list, err := List(ctx, coll)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].NameOrDefault() != "createdAt_1" {
		t.Fatalf("indexes after the refused Create: %v, expected createdAt_1 alone", list)
	}

	created, err := CreateMissing(ctx, coll, []Index{kept, asc("userId", false), asc("status", false)})
	if err != nil || len(created) != 2 || created[0].NameOrDefault() != "userId_1" || created[1].NameOrDefault() != "status_1" {
		t.Fatalf("CreateMissing: %v, %v; expected userId_1 and status_1", created, err)
	}
	DropCreated(ctx, coll, created)
	if list, err = List(ctx, coll); err != nil || len(list) != 1 {
		t.Fatalf("indexes after DropCreated: %v, %v; expected createdAt_1 alone", list, err)
	}
}
