package mongowrite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	embeddedserver "github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/seed"
)

// A batch in flight when a run stopped counts, in what the server holds,
// only the documents stored as they were generated: not the one refused as
// a duplicate _id whose _id another document holds, even when the reason
// for the refusal is the server's own (the collection could not be asked
// whether it holds the document as it is).
func TestHeldCountsOnlyDocumentsStoredAsGenerated(t *testing.T) {
	s, err := embeddedserver.Start(embeddedserver.Options{DataDir: filepath.Join(t.TempDir(), "data")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	plan := &seed.Plan{DB: "held", Seed: 3, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 50}}}
	ds, err := plan.Build()
	if err != nil {
		t.Fatal(err)
	}
	col := ds.Collection("users")
	coll := c.Database("held").Collection("users")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: col.ID(10)}, {Key: "other", Value: true}}); err != nil {
		t.Fatal(err)
	}
	for i := range int64(40) {
		if i == 10 {
			continue
		}
		if _, err := coll.InsertOne(ctx, col.Doc(i)); err != nil {
			t.Fatal(err)
		}
	}
	w := &collWrite{db: c.Database("held"), coll: coll, col: col, m: &Manifest{}}
	we := &WriteError{Collection: "users", Written: 39, Total: 50,
		Doc: &WriteDoc{Index: 10}, Err: errors.New("E11000 duplicate key error")}
	if got := w.held(ctx, we, []parts.Range{{From: 0, To: 50}}); got != 39 {
		t.Fatalf("held = %d; the server holds 39 of the documents as generated", got)
	}
}
