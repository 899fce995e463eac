package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A capped collection keeps at most max documents (and size bytes),
// dropping the oldest in insertion order; collStats and listCollections
// say it is capped; a tailable find on a collection that is not capped
// is refused (BadValue).
func TestCappedCollectionBounds(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	if err := db.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(100000).SetMaxDocuments(3)); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("log")
	for i := 1; i <= 5; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	var got []struct {
		ID int32 `bson:"_id"`
	}
	cur, err := coll.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != 3 || got[2].ID != 5 {
		t.Errorf("capped at 3: %v, want 3, 4, 5", got)
	}
	var stats bson.M
	if err := db.RunCommand(ctx, bson.D{{Key: "collStats", Value: "log"}}).Decode(&stats); err != nil {
		t.Fatal(err)
	}
	if stats["capped"] != true || stats["max"] != int64(3) {
		t.Errorf("collStats: capped %v max %v", stats["capped"], stats["max"])
	}

	// by size: 10 documents of about 1 KiB in 4 KiB
	if err := db.CreateCollection(ctx, "small", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096)); err != nil {
		t.Fatal(err)
	}
	small := db.Collection("small")
	pad := string(make([]byte, 1000))
	for i := 0; i < 10; i++ {
		if _, err := small.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := small.CountDocuments(ctx, bson.D{}); err != nil || n != 4 {
		t.Errorf("4 KiB capped collection holds %d documents of 1 KiB (%v), want 4", n, err)
	}

	if err := db.CreateCollection(ctx, "bad", options.CreateCollection().SetCapped(true)); err == nil {
		t.Error("capped without size accepted")
	}
	if _, err := db.Collection("plain").InsertOne(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	_, err = db.Collection("plain").Find(ctx, bson.D{}, options.Find().SetCursorType(options.Tailable))
	var se mongo.ServerError
	if !asServerError(err, &se) || !se.HasErrorCode(2) {
		t.Errorf("tailable on a collection that is not capped: %v, want BadValue", err)
	}
}

// A tailable, awaitData cursor returns the documents present, then waits
// for and returns documents inserted later that match its filter, and
// returns an empty batch after maxAwaitTime when nothing comes.
func TestTailableAwaitData(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	if err := db.CreateCollection(ctx, "events", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("events")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "n", Value: 1}}, bson.D{{Key: "n", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "n", Value: bson.D{{Key: "$gt", Value: 1}}}},
		options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	n := func() int32 {
		t.Helper()
		var d struct {
			N int32 `bson:"n"`
		}
		if err := cur.Decode(&d); err != nil {
			t.Fatal(err)
		}
		return d.N
	}
	if !cur.Next(ctx) || n() != 2 {
		t.Fatalf("first document: %v", cur.Err())
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		coll.InsertMany(context.Background(), []any{bson.D{{Key: "n", Value: 0}}, bson.D{{Key: "n", Value: 3}}})
	}()
	start := time.Now()
	if !cur.Next(ctx) || n() != 3 {
		t.Fatalf("document inserted later: %v", cur.Err())
	}
	if waited := time.Since(start); waited > 1500*time.Millisecond {
		t.Errorf("the getMore waited %v for an insert made after 100 ms", waited)
	}
	if cur.ID() == 0 {
		t.Error("tailable cursor closed")
	}
	start = time.Now()
	if cur.TryNext(ctx) {
		t.Error("a document came from nowhere")
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("an empty getMore returned after %v, before maxAwaitTime (2 s)", waited)
	}
}

// A tailable cursor's getMore fails, as find does, when the projection's
// expression fails on a document inserted since; the cursor is closed.
func TestTailableProjectionError(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	if err := db.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("log")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "n", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	proj := bson.D{{Key: "x", Value: bson.D{{Key: "$add", Value: bson.A{"$n", 1}}}}}
	// the find itself fails on such a document
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "n", Value: "bad"}}); err != nil {
		t.Fatal(err)
	}
	_, err := coll.Find(ctx, bson.D{}, options.Find().SetCursorType(options.Tailable).SetProjection(proj))
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(14) {
		t.Fatalf("find over a document the projection fails on: %v; want TypeMismatch (14)", err)
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "n", Value: 1}}, options.Find().SetCursorType(options.Tailable).SetProjection(proj))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	if !cur.Next(ctx) {
		t.Fatalf("first document: %v", cur.Err())
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "n", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if !cur.Next(ctx) {
		t.Fatalf("a document inserted later: %v", cur.Err())
	}
	// n matches the filter {n: 1} only as an array element; $add of an array fails
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "n", Value: bson.A{1, 2}}}); err != nil {
		t.Fatal(err)
	}
	for cur.TryNext(ctx) {
	}
	if !errors.As(cur.Err(), &se) || !se.HasErrorCode(14) {
		t.Fatalf("getMore over a document the projection fails on: %v; want TypeMismatch (14)", cur.Err())
	}
}
