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

func stockOf(t *testing.T, ctx context.Context, coll *mongo.Collection, id string) int32 {
	t.Helper()
	var d struct {
		N int32 `bson:"n"`
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d); err != nil {
		t.Fatalf("stock of %s: %v", id, err)
	}
	return d.N
}

// A transaction moving stock between two products (two collections of two
// databases): invisible outside until commit, all visible after; an abort
// leaves nothing; it reads its snapshot, not later writes of others.
func TestTransactionCommitAbortIsolation(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	a := c.Database("shop").Collection("stock")
	b := c.Database("warehouse").Collection("stock")
	if _, err := a.InsertOne(ctx, bson.D{{Key: "_id", Value: "p1"}, {Key: "n", Value: int32(10)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.InsertOne(ctx, bson.D{{Key: "_id", Value: "p1"}, {Key: "n", Value: int32(0)}}); err != nil {
		t.Fatal(err)
	}
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	move := func(sc context.Context) error {
		if _, err := a.UpdateOne(sc, bson.D{{Key: "_id", Value: "p1"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: -3}}}}); err != nil {
			return err
		}
		_, err := b.UpdateOne(sc, bson.D{{Key: "_id", Value: "p1"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 3}}}})
		return err
	}

	// Aborted: nothing.
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	sc := mongo.NewSessionContext(ctx, sess)
	if err := move(sc); err != nil {
		t.Fatal(err)
	}
	if got := stockOf(t, sc, a, "p1"); got != 7 {
		t.Errorf("inside the transaction: %d; want its own write, 7", got)
	}
	if got := stockOf(t, ctx, a, "p1"); got != 10 {
		t.Errorf("outside the transaction before commit: %d; want 10", got)
	}
	if err := sess.AbortTransaction(ctx); err != nil {
		t.Fatal(err)
	}
	if ga, gb := stockOf(t, ctx, a, "p1"), stockOf(t, ctx, b, "p1"); ga != 10 || gb != 0 {
		t.Fatalf("after abort: %d and %d; want 10 and 0", ga, gb)
	}

	// Snapshot: a write by another client after the start is not seen.
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	if got := stockOf(t, sc, b, "p1"); got != 0 {
		t.Fatalf("first read in the transaction: %d", got)
	}
	if _, err := a.UpdateOne(ctx, bson.D{{Key: "_id", Value: "p1"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "other", Value: true}}}}); err != nil {
		t.Fatal(err)
	}
	var doc bson.M
	if err := a.FindOne(sc, bson.D{{Key: "_id", Value: "p1"}}).Decode(&doc); err != nil || doc["other"] != nil {
		t.Errorf("the transaction saw a write made after its snapshot: %v, %v", doc, err)
	}
	_ = sess.AbortTransaction(ctx)

	// Committed with WithTransaction: both visible.
	if _, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) { return nil, move(sc) }); err != nil {
		t.Fatal(err)
	}
	if ga, gb := stockOf(t, ctx, a, "p1"), stockOf(t, ctx, b, "p1"); ga != 7 || gb != 3 {
		t.Fatalf("after commit: %d and %d; want 7 and 3", ga, gb)
	}
}

// A write outside a transaction to a document the transaction wrote
// waits for the transaction to end, as on MongoDB: it is applied after the
// commit, on the committed value; one with a deadline that passes first
// fails with MaxTimeMSExpired and writes nothing.
func TestTransactionHoldsItsDocuments(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: int32(0)}}); err != nil {
		t.Fatal(err)
	}
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	sc := mongo.NewSessionContext(ctx, sess)
	if _, err := coll.UpdateOne(sc, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = coll.UpdateOne(short, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1000}}}}, options.UpdateOne())
	if err == nil {
		t.Fatal("a write to a document a transaction holds went ahead before the transaction ended")
	}
	done := make(chan error, 1)
	go func() {
		_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 100}}}})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the outside write returned (%v) while the transaction held the document", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the outside write after the commit: %v", err)
	}
	if got := counterOf(t, ctx, coll); got != 101 {
		t.Fatalf("n = %d; want the transaction's 1 and then the outside write's 100", got)
	}

	// WithTransaction: the waiting write goes after the commit, whichever run it waited on.
	go func() {
		time.Sleep(50 * time.Millisecond)
		_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 10}}}})
		done <- err
	}()
	if _, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		if _, err := coll.UpdateOne(sc, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
			return nil, err
		}
		time.Sleep(150 * time.Millisecond)
		return nil, nil
	}); err != nil {
		t.Fatalf("WithTransaction: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := counterOf(t, ctx, coll); got != 112 {
		t.Fatalf("n = %d; want 101 + 1 + 10", got)
	}
}

// A retryable write sent again (the driver retries after a write concern
// error labelled retryable) gets its first answer and writes nothing twice.
func TestRetryableWriteAnsweredOnce(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("c")
	setFailCommand(t, c, bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"update"}},
		{Key: "writeConcernError", Value: bson.D{{Key: "code", Value: 91}, {Key: "errmsg", Value: "shutting down"}}}})
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}, options.UpdateOne().SetUpsert(true)); err != nil {
		t.Fatalf("update retried after a retryable write concern error: %v", err)
	}
	var d struct{ N int32 }
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&d); err != nil || d.N != 1 {
		t.Fatalf("n = %d (%v); want 1: the retry must not apply the $inc again", d.N, err)
	}
}

// A committed transaction survives a kill (the journal alone); one not
// committed leaves nothing.
func TestTransactionDurable(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	func() {
		c, srv, st := serveUnmanaged(t, dir)
		coll := c.Database("d").Collection("c")
		sess, _ := c.StartSession()
		if _, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
			for i := range 3 {
				if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: i}}); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		_ = sess.StartTransaction()
		sc := mongo.NewSessionContext(ctx, sess)
		if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: 99}}); err != nil {
			t.Fatal(err)
		}
		_ = c.Disconnect(ctx)
		srv.Shutdown(0)
		st.journal.Abandon() // as after kill -9
	}()
	c, _ := serve(t, dir)
	n, err := c.Database("d").Collection("c").CountDocuments(ctx, bson.D{})
	if err != nil || n != 3 {
		t.Fatalf("after a restart: %d documents (%v); want the 3 committed", n, err)
	}
}

func counterOf(t *testing.T, ctx context.Context, coll *mongo.Collection) int32 {
	t.Helper()
	var d struct {
		N int32 `bson:"n"`
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d.N
}

// A transaction writing a document another active transaction wrote, or
// one written by anyone since its snapshot, meets WriteConflict at that
// write (labelled TransientTransactionError), as on MongoDB; once the
// first ends, the document is free.
func TestTransactionWriteConflictAtWrite(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("c")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: int32(0)}}, bson.D{{Key: "_id", Value: 2}, {Key: "n", Value: int32(0)}}}); err != nil {
		t.Fatal(err)
	}
	inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}
	s1, _ := c.StartSession()
	defer s1.EndSession(ctx)
	s2, _ := c.StartSession()
	defer s2.EndSession(ctx)
	_ = s1.StartTransaction()
	_ = s2.StartTransaction()
	sc1, sc2 := mongo.NewSessionContext(ctx, s1), mongo.NewSessionContext(ctx, s2)
	if _, err := coll.UpdateOne(sc1, bson.D{{Key: "_id", Value: 1}}, inc); err != nil {
		t.Fatal(err)
	}
	_, err := coll.UpdateOne(sc2, bson.D{{Key: "_id", Value: 1}}, inc)
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(112) || !se.HasErrorLabel("TransientTransactionError") {
		t.Fatalf("second transaction writing the same document: %v; want WriteConflict at once", err)
	}
	if err := s1.CommitTransaction(ctx); err != nil {
		t.Fatal(err)
	}
	_ = s2.AbortTransaction(ctx)

	// Written since the snapshot: the write itself conflicts.
	_ = s2.StartTransaction()
	if err := coll.FindOne(sc2, bson.D{{Key: "_id", Value: 2}}).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, inc); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(sc2, bson.D{{Key: "_id", Value: 2}}, inc); !errors.As(err, &se) || !se.HasErrorCode(112) {
		t.Fatalf("a write to a document changed since the snapshot: %v; want WriteConflict", err)
	}
	_ = s2.AbortTransaction(ctx)

	// Free again: a new transaction writes document 1.
	if _, err := s2.WithTransaction(ctx, func(sc context.Context) (any, error) {
		return coll.UpdateOne(sc, bson.D{{Key: "_id", Value: 1}}, inc)
	}); err != nil {
		t.Fatalf("after the first transaction ended: %v", err)
	}
	if got := counterOf(t, ctx, coll); got != 2 {
		t.Fatalf("n = %d; want 2", got)
	}
}
