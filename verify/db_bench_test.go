package verify

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/seed"
)

// BenchmarkMatchSeeded is the client's share of verify db per document:
// find the expected document by _id, rebuild it, marshal it and compare the
// bytes with the stored ones (what a worker does for each document read).
func BenchmarkMatchSeeded(b *testing.B) {
	ds, err := (&seed.Plan{Seed: 7, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 1 << 20}}}).Build()
	if err != nil {
		b.Fatal(err)
	}
	e, err := ExpectCollection(context.Background(), ds, ds.Collection("users"))
	if err != nil {
		b.Fatal(err)
	}
	stored := make([]bson.Raw, 1024)
	for i := range stored {
		stored[i], _ = bson.Marshal(ds.Collection("users").Doc(int64(i * 997)))
	}
	m := e.src.newMatcher()
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		doc := stored[k%len(stored)]
		k++
		id := doc.Lookup("_id")
		i, ok := e.src.lookup(id)
		if !ok {
			b.Fatal("not found")
		}
		if eq, _ := m.match(i, doc); !eq {
			b.Fatal("differs")
		}
	}
}
