package seed

import (
	"testing"

	"github.com/brianvoe/gofakeit/v7"
)

// BenchmarkReseed is the per-document cost of making document i independent
// of the documents built before it: reseeding the worker's PCG source, as
// Worker.Doc does, against making a new Faker per document.
func BenchmarkReseed(b *testing.B) {
	c := buildOne(b, CollectionSpec{Name: "u", Kind: KindUser, Count: 1 << 30}, 1)
	b.Run("reseed-worker", func(b *testing.B) {
		b.ReportAllocs()
		w := c.NewWorker()
		var i int64
		for b.Loop() {
			w.src.Seed(derive(c.key, tagDoc, i), derive(c.key, tagDoc^tagSecond, i))
			i++
		}
	})
	b.Run("new-faker", func(b *testing.B) {
		b.ReportAllocs()
		var i int64
		for b.Loop() {
			_ = gofakeit.New(derive(c.key, tagDoc, i))
			i++
		}
	})
}
