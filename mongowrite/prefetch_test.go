package mongowrite

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// Prefetch gives every document once, in the cursor's order, a server
// batch at a time, with what the function said of each; stopping early is
// not an error, a cancelled context is.
func TestPrefetch(t *testing.T) {
	ctx := context.Background()
	coll, _ := prefetchColl(t, 250, 7)
	open := func(ctx context.Context, batch int32) *Prefetched {
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(batch).SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cur.Close(context.Background()) })
		odd := errors.New("odd")
		return Prefetch(ctx, cur, func(d bson.Raw) error {
			if d.Lookup("_id").Int32()%2 == 1 {
				return odd
			}
			return nil
		})
	}
	p := open(ctx, 100)
	var sizes []int
	n := 0
	for b, ok := p.Next(); ok; b, ok = p.Next() {
		sizes = append(sizes, len(b.Docs))
		for i, d := range b.Docs {
			if got := d.Lookup("_id").Int32(); got != int32(n) || (b.Errs[i] != nil) != (n%2 == 1) {
				t.Fatalf("document %d: _id %d, check %v", n, got, b.Errs[i])
			}
			n++
		}
	}
	if err := p.Close(); err != nil || n != 250 || len(sizes) != 3 || sizes[0] != 100 {
		t.Fatalf("read %d documents in batches %v, Close %v; want 250 in 100, 100, 50 and nil", n, sizes, err)
	}

	p = open(ctx, 100)
	if _, ok := p.Next(); !ok {
		t.Fatal("no first batch")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("stopped after one batch: %v, want no error", err)
	}

	// 25 batches: the reading, at most two batches ahead, is still going.
	cctx, cancel := context.WithCancel(ctx)
	p = open(cctx, 10)
	if _, ok := p.Next(); !ok {
		t.Fatal("no first batch")
	}
	cancel()
	for _, ok := p.Next(); ok; _, ok = p.Next() {
	}
	if err := p.Close(); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled read: Close %v, want context.Canceled", err)
	}
}

// The documents of a batch stay as they are while later batches are read,
// the cursor is closed and its connection serves other commands: Prefetch
// keeps the driver's bytes instead of copying them, which holds only while
// the driver reads each reply into a buffer of its own.
func TestPrefetchKeepsEveryBatch(t *testing.T) {
	ctx := context.Background()
	coll, docs := prefetchColl(t, 600, 13)
	for _, batch := range []int32{1, 7, 250} {
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(batch).SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		p := Prefetch(ctx, cur, nil)
		var kept []bson.Raw
		for d := range p.All() {
			kept = append(kept, d)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		_ = cur.Close(ctx)
		// Other replies on the same connections, after the read.
		for range 20 {
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 599}}).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if len(kept) != len(docs) {
			t.Fatalf("batch %d: read %d documents, want %d", batch, len(kept), len(docs))
		}
		for i, d := range kept {
			if !bytes.Equal(d, docs[i]) {
				t.Fatalf("batch %d: document %d is now %v, was read as %v", batch, i, d, docs[i])
			}
		}
	}
}

// prefetchColl is a collection on a server of its own holding n documents
// (docWithID(i, i%mod)), and those documents.
func prefetchColl(t *testing.T, n, mod int) (*mongo.Collection, []bson.Raw) {
	t.Helper()
	_, client := mongotest.Start(t)
	coll := client.Database("prefetch").Collection("docs")
	var docs []bson.Raw
	for i := range n {
		docs = append(docs, docWithID(t, i, i%mod))
	}
	if _, _, err := InsertBatch(context.Background(), coll, docs, false); err != nil {
		t.Fatal(err)
	}
	return coll, docs
}
