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

// currentOp lists a request in flight with its opid; killOp interrupts it
// (Interrupted, 11601) and nothing else.
func TestKillOp(t *testing.T) {
	uri, c, _ := serveURI(t, "")
	ctx := context.Background()
	victim, err := mongo.Connect(options.Client().ApplyURI(uri).SetAppName("victim").SetRetryReads(false))
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Disconnect(ctx)
	setFailCommand(t, c, "alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "blockConnection", Value: true},
		{Key: "blockTimeMS", Value: 10000}, {Key: "appName", Value: "victim"}})
	done := make(chan error, 1)
	go func() { done <- victim.Database("d").Collection("c").FindOne(ctx, bson.D{}).Err() }()
	var opid int64
	for deadline := time.Now().Add(5 * time.Second); opid == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var res struct {
			Inprog []struct {
				Opid    int64    `bson:"opid"`
				AppName string   `bson:"appName"`
				Command bson.Raw `bson:"command"`
			} `bson:"inprog"`
		}
		if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}}).Decode(&res); err != nil {
			t.Fatal(err)
		}
		for _, op := range res.Inprog {
			if op.AppName == "victim" && op.Command.Lookup("find").Type != 0 {
				opid = op.Opid
			}
		}
	}
	if opid == 0 {
		t.Fatal("currentOp never listed the held find")
	}
	start := time.Now()
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: opid}}).Err(); err != nil {
		t.Fatal(err)
	}
	err = <-done
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(11601) {
		t.Fatalf("killed find: %v; want Interrupted", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the killed find ended %v after killOp", took)
	}
	setFailCommand(t, c, "off", bson.D{})
	if err := c.Database("d").Collection("c").FindOne(ctx, bson.D{}).Err(); err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		t.Errorf("another find after the kill: %v", err)
	}
}
