package run_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// storedOrdersPlan writes products, then orders whose userId draws from the
// users stored in the target (to), with a unique index on number.
func storedOrdersPlan(to string) *seed.Plan {
	asc := func(field string, unique bool) indexes.Index {
		return indexes.Index{Key: bson.D{{Key: field, Value: int32(1)}}, Unique: unique}
	}
	return &seed.Plan{DB: "pop", Seed: 5, Seeded: true, Collections: []seed.CollectionSpec{
		{Name: "products", Kind: seed.KindProduct, Count: 10, Indexes: []indexes.Index{asc("code", true)}},
		{Name: "orders", Kind: seed.KindOrder, Count: 300, Refs: []seed.Ref{
			{Field: "userId", To: to, Stored: true},
			{Field: "productIds", To: "products", Min: 1, Max: 3},
		}, Indexes: []indexes.Index{asc("userId", false), asc("number", true)}},
	}}
}

// Compare holds a plan with stored references against a run's without
// the stored _ids (they are Seed's to check, with Resume): the same plan
// is no difference, another collection referred to is a difference in
// refs, not an error that the _ids were not read.
func TestCompareStoredRefs(t *testing.T) {
	d, err := run.Compare(storedOrdersPlan("users"), storedOrdersPlan("users"), "pop", "orders")
	if err != nil || d != nil {
		t.Fatalf("Compare of the same plan with a stored reference: %+v, %v; expected no difference", d, err)
	}
	d, err = run.Compare(storedOrdersPlan("users"), storedOrdersPlan("people"), "pop", "orders")
	if err != nil || d == nil || d.Field != seed.SettingRef || d.Collection != "orders" {
		t.Fatalf("Compare with another stored collection: %+v, %v; expected a difference in orders' refs", d, err)
	}
	// Without the reference to the stored users, the plan's difference is
	// still its references (not the collections the stored one replaced).
	generated := storedOrdersPlan("users")
	generated.Collections[1].Refs[0].Stored = false
	generated.Collections = append(generated.Collections, seed.CollectionSpec{Name: "users", Kind: seed.KindUser, Count: 100, RefOnly: true})
	d, err = run.Compare(storedOrdersPlan("users"), generated, "pop", "orders")
	if err != nil || d == nil || d.Field != seed.SettingRef {
		t.Fatalf("Compare with a generated users: %+v, %v; expected a difference in refs", d, err)
	}
}

// A plan whose unique index the documents already stored in a collection
// repeat (two hand-written orders without number, both null to the index)
// is refused before any document is written, in no collection of the
// plan: not the products written before the orders, not an index of the
// orders, not a run manifest. The target is as it was.
func TestSeedRefusedIndexOverStoredLeavesTargetUnchanged(t *testing.T) {
	_, client := mongotest.Start(t)
	ctx := t.Context()
	db := client.Database("pop")
	if _, err := db.Collection("users").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: "alice"}}, bson.D{{Key: "_id", Value: 7}}}); err != nil {
		t.Fatal(err)
	}
	orders := db.Collection("orders")
	if _, err := orders.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "note", Value: "by hand"}}, bson.D{{Key: "_id", Value: 2}, {Key: "note", Value: "by hand"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := run.Seed(ctx, db, storedOrdersPlan("users"), run.Options{})
	var ie *run.IndexError
	if !errors.As(err, &ie) || ie.Stage != run.IndexBefore || ie.Collection != "orders" {
		t.Fatalf("Seed over orders that repeat a unique key: %v, expected an IndexError before writing", err)
	}
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n != "users" && n != "orders" {
			t.Errorf("collection %s after the refused run", n)
		}
	}
	if list, err := indexes.List(ctx, orders); err != nil || len(list) != 0 {
		t.Errorf("orders' indexes after the refused run: %v, %v; expected _id_ alone", list, err)
	}
	if n, _ := orders.CountDocuments(ctx, bson.D{}); n != 2 {
		t.Errorf("%d orders after the refused run, expected the 2 stored", n)
	}

	// Without the repeated key the same plan goes in over the stored
	// orders, and every order refers to a stored user.
	if _, err := orders.DeleteOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	res, err := run.Seed(ctx, db, storedOrdersPlan("users"), run.Options{})
	if err != nil || res.Inserted != 310 {
		t.Fatalf("Seed: %v, %+v", err, res)
	}
	n, err := orders.CountDocuments(ctx, bson.D{{Key: "userId", Value: bson.D{{Key: "$in", Value: bson.A{"alice", 7}}}}})
	if err != nil || n != 300 {
		t.Fatalf("%d of 300 orders refer to a stored user (%v)", n, err)
	}
}
