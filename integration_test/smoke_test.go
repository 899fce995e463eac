package integration

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestServerAnswers: the server the suite chose answers a driver ping and
// round-trips a document, and in the container mode it survives a clean
// stop/start with its data (the volume) and a new mapped port read back.
func TestServerAnswers(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c := s.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("ping: %v", err)
	}
	id := bson.NewObjectID()
	if _, err := s.Coll(c, "smoke").InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "n", Value: 1}}); err != nil {
		t.Fatalf("insert: %v", err)
	}
	if suite.mode == modeURI {
		return
	}
	disconnect(c)
	s.Stop()
	s.Start()
	c = s.Client()
	var got bson.Raw
	if err := s.Coll(c, "smoke").FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&got); err != nil {
		t.Fatalf("document written before the restart: %v", err)
	}
	if gid, ok := got.Lookup("_id").ObjectIDOK(); !ok || gid != id {
		t.Fatalf("_id after restart: got %v, want %v", got.Lookup("_id"), id)
	}
}
