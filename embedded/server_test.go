package embedded

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded/engine"
	"github.com/oidkit/oidkit/rules"
)

func TestStartInsertFindRestart(t *testing.T) {
	dir := t.TempDir()
	s, err := Start(Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		t.Fatal(err)
	}
	coll := c.Database("t").Collection("c")
	id := bson.NewObjectID()
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "n", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	_ = c.Disconnect(ctx)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// The data survives a restart over the same directory.
	s2, err := Start(Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	c2, err := mongo.Connect(options.Client().ApplyURI(s2.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Disconnect(ctx)
	var got bson.D
	if err := c2.Database("t").Collection("c").FindOne(ctx, bson.M{"_id": id}).Decode(&got); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if got[0].Value != id {
		t.Fatalf("_id = %v, want %v", got[0].Value, id)
	}
	var bi bson.M
	if err := c2.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi); err != nil {
		t.Fatal(err)
	}
	if rules.IsFerretDB(bi) || bi["version"] != engine.Version {
		t.Fatalf("buildInfo = %v; want oidkit's engine claiming MongoDB %s", bi, engine.Version)
	}
}

func TestStartBadListen(t *testing.T) {
	if _, err := Start(Options{DataDir: t.TempDir(), Listen: "nonsense"}); err == nil {
		t.Fatal("want error for listen address without port")
	}
}

func TestStartBusyAddress(t *testing.T) {
	s, err := Start(Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Start(Options{DataDir: t.TempDir(), Listen: s.Addr()})
	if !errors.Is(err, ErrListen) {
		t.Fatalf("second server on %s: err = %v, want ErrListen", s.Addr(), err)
	}
}
