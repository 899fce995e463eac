package run_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// ReadStored reads the _ids a stored reference draws from in _id order,
// whatever order they were inserted in; Seed refuses a stored reference
// with nothing to draw from before writing anything.
func TestReadStoredSorted(t *testing.T) {
	_, client := mongotest.Start(t)
	ctx := t.Context()
	db := client.Database("st")
	plan := &seed.Plan{DB: "st", Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{
		{Name: "orders", Kind: seed.KindOrder, Count: 20, Refs: []seed.Ref{{Field: "userId", To: "users", Stored: true}, {Field: "productIds", To: "products", Min: 1, Max: 2}}},
		{Name: "products", Kind: seed.KindProduct, Count: 3, RefOnly: true},
	}}
	_, err := run.Seed(ctx, db, plan, run.Options{})
	var sre *seed.StoredRefError
	if !errors.As(err, &sre) || !sre.Read {
		t.Fatalf("Seed with no users: %v", err)
	}
	if n, _ := db.Collection("orders").CountDocuments(ctx, bson.D{}); n != 0 {
		t.Fatalf("%d orders written", n)
	}
	if _, err := db.Collection("users").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 30}}, bson.D{{Key: "_id", Value: 10}}, bson.D{{Key: "_id", Value: 20}}}); err != nil {
		t.Fatal(err)
	}
	stored, err := run.ReadStored(ctx, db, plan)
	if err != nil {
		t.Fatal(err)
	}
	var got []int32
	for _, v := range stored["users"] {
		got = append(got, v.Int32())
	}
	if len(got) != 3 || got[0] != 10 || got[1] != 20 || got[2] != 30 {
		t.Fatalf("ReadStored = %v, expected [10 20 30]", got)
	}
	res, err := run.Seed(ctx, db, plan, run.Options{})
	if err != nil || res.Inserted != 20 {
		t.Fatalf("Seed: %v, %+v", err, res)
	}
}
