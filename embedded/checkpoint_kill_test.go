package embedded

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded/storage"
)

// TestRestartAfterKillBetweenCheckpointAndTruncate leaves the data
// directory as a SIGKILL leaves it once Close has renamed its checkpoint
// into place and before it empties the journal: the new checkpoint, and
// the journal of the changes it already holds. The journal's changes
// moved a unique key from one document to another, so replaying them over
// the checkpoint would break the index; the server must start and hold
// exactly what was acknowledged.
func TestRestartAfterKillBetweenCheckpointAndTruncate(t *testing.T) {
	dir := t.TempDir()
	s, c := serve(t, Options{DataDir: dir})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	coll := c.Database("t").Collection("users")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "email", Value: "a"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "email", Value: "b"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}, {Key: "email", Value: "a"}}); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, storage.JournalFile)
	stale, err := os.ReadFile(journal)
	if err != nil || len(stale) == 0 {
		t.Fatalf("the journal before Close: %d bytes, %v", len(stale), err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(journal, stale, 0o644); err != nil {
		t.Fatal(err)
	}

	s2, c2 := serve(t, Options{DataDir: dir})
	var got []bson.M
	cur, err := c2.Database("t").Collection("users").Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err == nil {
		err = cur.All(ctx, &got)
	}
	if err != nil || len(got) != 2 || got[0]["email"] != "b" || got[1]["email"] != "a" {
		t.Fatalf("after the restart: %v, %v; want {_id: 1, email: b} and {_id: 2, email: a}", got, err)
	}
	_ = s2.Close()
}
