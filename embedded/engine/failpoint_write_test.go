package engine

import (
	"context"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// onPrimaryTransactionalWrite, as MongoDB's retryable-writes tests use it:
// the write is made and its connection closed, so the driver retries and
// gets the first answer (one document, two inserts sent); with
// failBeforeCommitExceptionCode the first attempt is not made and the
// retry makes it; failing both attempts leaves nothing and an error. A
// write inside a transaction or without a txnNumber is not touched.
func TestOnPrimaryTransactionalWrite(t *testing.T) {
	ctx := context.Background()
	uri, admin, _ := serveURI(t, "")
	cl, inserts := countingClient(t, uri, "insert")
	coll := cl.Database("rw").Collection("c")
	fail := func(mode any, data bson.D) {
		t.Helper()
		cmd := bson.D{{Key: "configureFailPoint", Value: "onPrimaryTransactionalWrite"}, {Key: "mode", Value: mode}}
		if data != nil {
			cmd = append(cmd, bson.E{Key: "data", Value: data})
		}
		if err := admin.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatal(err)
		}
	}
	count := func(id int) int64 {
		n, err := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: id}})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for id, tc := range []struct {
		name     string
		times    int
		data     bson.D
		wantErr  bool
		stored   int64
		attempts int64
	}{
		{"made, answer lost", 1, nil, false, 1, 2},
		{"not made, then made", 1, bson.D{{Key: "failBeforeCommitExceptionCode", Value: 1}}, false, 1, 2},
		{"never made", 2, bson.D{{Key: "failBeforeCommitExceptionCode", Value: 1}}, true, 0, 2},
	} {
		fail(bson.D{{Key: "times", Value: tc.times}}, tc.data)
		inserts.Store(0)
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}})
		if (err != nil) != tc.wantErr || count(id) != tc.stored || inserts.Load() != tc.attempts {
			t.Errorf("%s: error %v, %d stored, %d inserts sent; want error %v, %d stored, %d sent", tc.name, err, count(id), inserts.Load(), tc.wantErr, tc.stored, tc.attempts)
		}
		fail("off", nil)
	}
	// Not a retryable write: no txnNumber (retryWrites=false) or inside a
	// transaction. The fail point stays on and nothing fails.
	fail("alwaysOn", nil)
	defer fail("off", nil)
	plain, err := mongo.Connect(options.Client().ApplyURI(uri).SetRetryWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Disconnect(ctx)
	if _, err := plain.Database("rw").Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: "plain"}}); err != nil {
		t.Errorf("a write without txnNumber: %v", err)
	}
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if _, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		return coll.InsertOne(sc, bson.D{{Key: "_id", Value: "txn"}})
	}); err != nil {
		t.Errorf("a write in a transaction: %v", err)
	}
}

// countingClient connects a client of its own to uri that counts the
// commands named name it sends; it is disconnected when the test ends.
func countingClient(t testing.TB, uri, name string) (*mongo.Client, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == name {
			n.Add(1)
		}
	}}
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl, &n
}
