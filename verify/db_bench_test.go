package verify

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/seed"
)

// BenchmarkMatchSeeded is the client's share of verify db per document:
// find the expected document by _id, rebuild it from the stream, and compare
// the bytes with the stored ones (what a worker does for a batch of a read
// sorted by _id). ns/doc is the cost of one document.
func BenchmarkMatchSeeded(b *testing.B) {
	ds, err := (&seed.Plan{Seed: 7, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 1 << 20}}}).Build()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	e, err := ExpectCollection(ctx, ds, ds.Collection("users"))
	if err != nil {
		b.Fatal(err)
	}
	const batch = compareBatch
	stored := make([]bson.Raw, 4*batch)
	for i := range stored {
		stored[i], _ = bson.Marshal(ds.Collection("users").Doc(int64(1000 + i)))
	}
	items := make([]item, batch)
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		for j := range items {
			doc := stored[(k*batch+j)%len(stored)]
			i, ok := e.src.lookup(doc.Lookup("_id"))
			if !ok {
				b.Fatal("not found")
			}
			items[j] = item{i: i, stored: doc}
		}
		k++
		if err := e.src.match(ctx, items); err != nil {
			b.Fatal(err)
		}
		for _, it := range items {
			if !it.equal {
				b.Fatal("differs")
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/doc")
}
