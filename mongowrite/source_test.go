package mongowrite_test

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
)

// listSource is a Source of documents held in a slice: the writer needs
// no generator.
type listSource struct {
	name string
	docs []bson.Raw
}

func (s listSource) Name() string                          { return s.name }
func (s listSource) Len() int64                            { return int64(len(s.docs)) }
func (s listSource) Indexes() []indexes.Index              { return nil }
func (s listSource) Raw(i int64) (bson.Raw, error)         { return s.docs[i], nil }
func (s listSource) CheckShape(func(bson.Raw) error) error { return nil }

func (s listSource) Batches(_ context.Context, opts parts.StreamOptions) parts.Batches {
	ranges := opts.Ranges
	if ranges == nil {
		ranges = []parts.Range{{From: 0, To: s.Len()}}
	}
	b := &listBatches{}
	for _, r := range ranges {
		r = r.Within(s.Len())
		for from := r.From; from < r.To; from += 2 {
			to := min(from+2, r.To)
			b.batches = append(b.batches, parts.Batch{From: from, Docs: s.docs[from:to]})
			b.n += to - from
		}
	}
	return b
}

// listBatches hands out its batches in order, two documents each, to
// several inserters at once (parts.Batches).
type listBatches struct {
	mu      sync.Mutex
	batches []parts.Batch
	next    int
	n       int64
}

func (b *listBatches) Next() (parts.Batch, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next == len(b.batches) {
		return parts.Batch{}, io.EOF
	}
	b.next++
	return b.batches[b.next-1], nil
}
func (b *listBatches) Close()     {}
func (b *listBatches) Len() int64 { return b.n }

// Insert writes any Source: here seven documents of a slice, all of them,
// then with Resume only those a range selects again, counted as already
// there.
func TestInsertAnySource(t *testing.T) {
	_, client := mongotest.Start(t)
	coll := client.Database("src").Collection("things")
	s := listSource{name: "things"}
	for i := range 7 {
		raw, err := bson.Marshal(bson.D{{Key: "_id", Value: i}, {Key: "label", Value: fmt.Sprintf("thing %d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		s.docs = append(s.docs, raw)
	}
	res, err := mongowrite.Insert(context.Background(), coll, s, mongowrite.InsertOptions{Workers: 1})
	if err != nil || res.Inserted != 7 {
		t.Fatalf("Insert: %+v, %v; want 7 inserted", res, err)
	}
	if n, _ := coll.CountDocuments(context.Background(), bson.D{}); n != 7 {
		t.Fatalf("%d stored; want 7", n)
	}
	res, err = mongowrite.Insert(context.Background(), coll, s, mongowrite.InsertOptions{Resume: true, Ranges: []parts.Range{{From: 2, To: 5}}})
	if err != nil || res.Inserted != 0 || res.Skipped != 3 {
		t.Fatalf("Insert again with Resume: %+v, %v; want 3 skipped", res, err)
	}
}
