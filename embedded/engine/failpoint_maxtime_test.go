package engine

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// A command held by blockConnection past its maxTimeMS answers
// MaxTimeMSExpired (50), as a command that ran out of time does, so that
// a driver sees a timeout.
func TestFailPointBlockPastMaxTime(t *testing.T) {
	c, _ := serve(t, "")
	ctx := t.Context()
	fp := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 2000}}}}
	if err := c.Database("admin").RunCommand(ctx, fp).Err(); err != nil {
		t.Fatal(err)
	}
	err := c.Database("d").RunCommand(ctx, bson.D{{Key: "find", Value: "c"}, {Key: "maxTimeMS", Value: 50}}).Err()
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(50) {
		t.Fatalf("find held 2 s under maxTimeMS 50: %v; want MaxTimeMSExpired (50)", err)
	}
}
