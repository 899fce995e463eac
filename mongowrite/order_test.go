package mongowrite_test

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
)

// indexNames lists the indexes of coll but _id's.
func indexNames(t *testing.T, coll *mongo.Collection) []string {
	t.Helper()
	list, err := indexes.List(context.Background(), coll)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ix := range list {
		names = append(names, ix.NameOrDefault())
	}
	return names
}

// insertKeys stores one document for each key k.
func insertKeys(t *testing.T, coll *mongo.Collection, keys ...string) {
	t.Helper()
	for i, k := range keys {
		if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: i}, {Key: "k", Value: k}}); err != nil {
			t.Fatal(err)
		}
	}
}

// orderDB is database name on a new embedded server.
func orderDB(t *testing.T, name string) (*mongo.Database, context.Context) {
	_, client := server(t, t.TempDir())
	return client.Database(name), context.Background()
}

var uniqueK = []indexes.Index{{Key: bson.D{{Key: "k", Value: int32(1)}}, Unique: true}}

// Prepare indexes a collection that holds documents before its documents,
// an empty one after them (After); a check that fails leaves both as they
// were; with drop both are emptied and wait for their documents.
func TestPrepareOrder(t *testing.T) {
	db, ctx := orderDB(t, "order")
	full, empty := db.Collection("full"), db.Collection("empty")
	insertKeys(t, full, "a", "b")
	targets := []mongowrite.Target{{Coll: full, Indexes: uniqueK}, {Coll: empty, Indexes: uniqueK}}

	stop := errors.New("a check of the writer")
	if _, err := mongowrite.Prepare(ctx, targets, true, func(context.Context, [][]indexes.Index) error { return stop }); err != stop {
		t.Fatalf("Prepare with a failing check: %v; want its error as it is", err)
	}
	if n, _ := full.CountDocuments(ctx, bson.D{}); n != 2 || len(indexNames(t, full)) != 0 {
		t.Fatalf("after a failed check: %d documents, indexes %v; want 2 and none (nothing dropped or created)", n, indexNames(t, full))
	}

	p, err := mongowrite.Prepare(ctx, targets, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := indexNames(t, full); len(got) != 1 || got[0] != "k_1" {
		t.Fatalf("full after Prepare: indexes %v; want k_1, before its documents", got)
	}
	if got := indexNames(t, empty); len(got) != 0 {
		t.Fatalf("empty after Prepare: indexes %v; want none until its documents", got)
	}
	insertKeys(t, empty, "x")
	for i := range targets {
		if err := p.After(ctx, i, 1); err != nil {
			t.Fatal(err)
		}
	}
	if got := indexNames(t, empty); len(got) != 1 {
		t.Fatalf("empty after After: indexes %v; want k_1", got)
	}

	if _, err := mongowrite.Prepare(ctx, targets, true, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*mongo.Collection{full, empty} {
		if n, _ := c.CountDocuments(ctx, bson.D{}); n != 0 || len(indexNames(t, c)) != 0 {
			t.Fatalf("%s after Prepare with drop: %d documents, indexes %v; want none", c.Name(), n, indexNames(t, c))
		}
	}
}

// A unique index the stored documents of a later target repeat is refused
// before anything is written (IndexBefore), and the index Prepare made on
// an earlier target is dropped again; the same index refused after the
// documents of an empty target is an IndexAfter error counting them, and a
// write run again, once the keys are fixed, creates it before.
func TestPrepareRefusedIndexes(t *testing.T) {
	db, ctx := orderDB(t, "refused")
	good, bad := db.Collection("good"), db.Collection("bad")
	insertKeys(t, good, "a", "b")
	insertKeys(t, bad, "a", "a")
	_, err := mongowrite.Prepare(ctx, []mongowrite.Target{{Coll: good, Indexes: uniqueK}, {Coll: bad, Indexes: uniqueK}}, false, nil)
	var ie *mongowrite.IndexError
	if !errors.As(err, &ie) || ie.Stage != mongowrite.IndexBefore || ie.DB != "refused" || ie.Collection != "bad" || !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("err = %v; want an IndexError of IndexBefore on refused.bad, a duplicate key", err)
	}
	if got := indexNames(t, good); len(got) != 0 {
		t.Fatalf("good keeps indexes %v after the refusal; want them dropped again", got)
	}

	fresh := db.Collection("fresh")
	p, err := mongowrite.Prepare(ctx, []mongowrite.Target{{Coll: fresh, Indexes: uniqueK}}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	insertKeys(t, fresh, "a", "a")
	err = p.After(ctx, 0, 2)
	if !errors.As(err, &ie) || ie.Stage != mongowrite.IndexAfter || ie.Written != 2 || ie.Collection != "fresh" || !indexes.ServerRefused(err) {
		t.Fatalf("After: %v; want an IndexError of IndexAfter, 2 written, the server's refusal", err)
	}
	if _, err := fresh.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "k", Value: "b"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := mongowrite.Prepare(ctx, []mongowrite.Target{{Coll: fresh, Indexes: uniqueK}}, false, nil); err != nil {
		t.Fatal(err)
	}
	if got := indexNames(t, fresh); len(got) != 1 {
		t.Fatalf("fresh run again: indexes %v; want k_1 before its documents", got)
	}
}

// The writer's checks get the indexes each target has, as Prepare listed
// them for its own checks (one listing for both): those of target i at
// have[i]; with drop nothing is listed, since the drop removes them.
func TestPrepareGivesTheListedIndexes(t *testing.T) {
	db, ctx := orderDB(t, "listed")
	a, b := db.Collection("a"), db.Collection("b")
	insertKeys(t, a, "x")
	if _, err := a.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetName("mine").SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	targets := []mongowrite.Target{{Coll: a}, {Coll: b, Indexes: uniqueK}}
	var got [][]indexes.Index
	if _, err := mongowrite.Prepare(ctx, targets, false, func(_ context.Context, have [][]indexes.Index) error { got = have; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0]) != 1 || got[0][0].Name != "mine" || !got[0][0].Unique || len(got[1]) != 0 {
		t.Fatalf("have %v; want a's index mine, and none of b (it does not exist yet)", got)
	}
	if _, err := mongowrite.Prepare(ctx, targets, true, func(_ context.Context, have [][]indexes.Index) error { got = have; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != nil || got[1] != nil {
		t.Fatalf("have with drop %v; want nothing listed", got)
	}
}
