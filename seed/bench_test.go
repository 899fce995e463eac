package seed_test

import (
	"context"
	"io"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/seed"
)

func build(t testing.TB, p *seed.Plan) *seed.Dataset {
	t.Helper()
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func benchCollection(b *testing.B, kind string, n int64) *seed.Collection {
	b.Helper()
	p := &seed.Plan{Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "c", Kind: kind, Count: n}}}
	if kind == seed.KindOrder {
		p.Collections = append(p.Collections,
			seed.CollectionSpec{Name: "users", Kind: seed.KindUser, Count: n, RefOnly: true},
			seed.CollectionSpec{Name: "products", Kind: seed.KindProduct, Count: max(1, n/10), RefOnly: true})
	}
	return build(b, p).Collection("c")
}

// BenchmarkGenerate is documents per second per kind: building bson.D only,
// and building plus writing relaxed Extended JSON lines to io.Discard.
func BenchmarkGenerate(b *testing.B) {
	for _, kind := range seed.Kinds() {
		c := benchCollection(b, kind, 1<<30)
		b.Run(kind+"/doc", func(b *testing.B) {
			b.ReportAllocs()
			w := c.NewWorker()
			var i int64
			for b.Loop() {
				_ = w.Doc(i)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
		b.Run(kind+"/ndjson", func(b *testing.B) {
			b.ReportAllocs()
			w := c.NewWorker()
			var i int64
			for b.Loop() {
				js, err := bson.MarshalExtJSON(w.Doc(i), false, false)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Discard.Write(append(js, '\n'))
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkID is the cost of ID(i) alone, the random access that references
// and verification use.
func BenchmarkID(b *testing.B) {
	for _, strat := range []string{"objectid", "int", "uuid", "field:email"} {
		id, _ := seed.ParseIDStrategy(strat)
		c := build(b, &seed.Plan{Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "c", Kind: seed.KindUser, Count: 1 << 30, ID: id}}}).Collection("c")
		b.Run(strat, func(b *testing.B) {
			b.ReportAllocs()
			var i int64
			for b.Loop() {
				_ = c.ID(i)
				i++
			}
		})
	}
}

// BenchmarkStream is the client's share of seed alone: generating and
// marshalling through one Stream generator. One operation is one batch of
// DefaultBatch documents: allocs/op over 1,000 is the allocations per document.
func BenchmarkStream(b *testing.B) {
	for _, kind := range seed.Kinds() {
		c := benchCollection(b, kind, 1<<30)
		b.Run(kind, func(b *testing.B) {
			b.ReportAllocs()
			s := c.Stream(context.Background(), seed.StreamOptions{Workers: 1})
			defer s.Close()
			docs := 0
			for b.Loop() {
				batch, err := s.Next()
				if err != nil {
					b.Fatal(err)
				}
				docs += len(batch.Docs)
			}
			b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}
