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

// setFailCommand sets the failCommand fail point through c.
func setFailCommand(t *testing.T, c *mongo.Client, mode any, data bson.D) {
	t.Helper()
	cmd := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode}, {Key: "data", Value: data}}
	if err := c.Database("admin").RunCommand(context.Background(), cmd).Err(); err != nil {
		t.Fatal(err)
	}
}

// The failCommand fail point as MongoDB's test commands define it: a
// code for a number of times, a closed connection, a blocked one, one
// application only, a write concern error on a write that happened, off.
func TestFailCommand(t *testing.T) {
	uri, c, _ := serveURI(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("c")

	// 91 is retryable: the driver retries the insert once (a retryable
	// write, labelled RetryableWriteError), so one failure is not seen
	// and two are.
	setFailCommand(t, c, bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "errorCode", Value: 91}})
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil {
		t.Fatalf("insert retried after one failure: %v", err)
	}
	setFailCommand(t, c, bson.D{{Key: "times", Value: 2}}, bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "errorCode", Value: 91}})
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(91) || !se.HasErrorLabel("RetryableWriteError") {
		t.Fatalf("insert failed twice: %v; want code 91 labelled RetryableWriteError", err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("insert, the fail point spent: %v", err)
	}

	// The driver retries a read once after a network error: the second
	// attempt finds the fail point spent; without retries the error shows.
	setFailCommand(t, c, bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "closeConnection", Value: true}})
	if err := coll.FindOne(ctx, bson.D{}).Err(); err != nil {
		t.Fatalf("find retried after a closed connection: %v", err)
	}
	noRetry, err := mongo.Connect(options.Client().ApplyURI(uri).SetRetryReads(false))
	if err != nil {
		t.Fatal(err)
	}
	defer noRetry.Disconnect(ctx)
	setFailCommand(t, c, bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "closeConnection", Value: true}})
	if err := noRetry.Database("d").Collection("c").FindOne(ctx, bson.D{}).Err(); !mongo.IsNetworkError(err) {
		t.Fatalf("find with closeConnection, no retries: %v; want a network error", err)
	}
	if err := noRetry.Database("d").Collection("c").FindOne(ctx, bson.D{}).Err(); err != nil {
		t.Fatalf("find after: %v", err)
	}

	setFailCommand(t, c, "alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 300}})
	start := time.Now()
	if err := coll.FindOne(ctx, bson.D{}).Err(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("blocked find answered after %v; want 300 ms or more", took)
	}
	setFailCommand(t, c, "off", bson.D{})
	start = time.Now()
	if err := coll.FindOne(ctx, bson.D{}).Err(); err != nil || time.Since(start) > 250*time.Millisecond {
		t.Errorf("find with the fail point off: %v after %v", err, time.Since(start))
	}

	other, err := mongo.Connect(options.Client().ApplyURI(uri).SetAppName("other"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Disconnect(ctx)
	setFailCommand(t, c, "alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"count"}}, {Key: "errorCode", Value: 2}, {Key: "appName", Value: "mine"}})
	if _, err := other.Database("d").Collection("c").EstimatedDocumentCount(ctx); err != nil {
		t.Errorf("a client of another application failed: %v", err)
	}
	mine, err := mongo.Connect(options.Client().ApplyURI(uri).SetAppName("mine"))
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Disconnect(ctx)
	if _, err := mine.Database("d").Collection("c").EstimatedDocumentCount(ctx); !errors.As(err, &se) || !se.HasErrorCode(2) {
		t.Errorf("the application named: %v; want code 2", err)
	}
	setFailCommand(t, c, "off", bson.D{})

	setFailCommand(t, c, bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"insert"}},
		{Key: "writeConcernError", Value: bson.D{{Key: "code", Value: 64}, {Key: "errmsg", Value: "waiting for replication timed out"}}}})
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}})
	var we mongo.WriteException
	if !errors.As(err, &we) || we.WriteConcernError == nil || we.WriteConcernError.Code != 64 {
		t.Fatalf("insert with a write concern error: %v", err)
	}
	if n, _ := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: 0}}); n != 1 {
		t.Errorf("the retried insert stored %d documents; want 1", n)
	}
	if n, _ := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: 2}}); n != 1 {
		t.Errorf("the write under a write concern error was not made")
	}

	err = c.Database("admin").RunCommand(ctx, bson.D{{Key: "configureFailPoint", Value: "noSuchPoint"}, {Key: "mode", Value: "alwaysOn"}}).Err()
	if !errors.As(err, &se) || !se.HasErrorCode(2) {
		t.Errorf("an unknown fail point: %v; want BadValue", err)
	}
}
