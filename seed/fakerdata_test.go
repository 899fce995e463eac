package seed

import (
	mrand "math/rand/v2"
	"testing"

	"github.com/brianvoe/gofakeit/v7"
)

// The names and phone numbers of the built-in kinds come from lists read
// once (fakerdata.go): the same draws as gofakeit's own, leaving its
// source where gofakeit leaves it.
func TestFakerDrawsAreGofakeits(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "users", Kind: KindUser, Count: 1}, 3)
	for seed := range uint64(2000) {
		w := c.NewWorker()
		w.src.Seed(seed, seed^0x9e3779b97f4a7c15)
		src := mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
		f := gofakeit.NewFaker(src, false)
		if got, want := w.firstName(), f.FirstName(); got != want {
			t.Fatalf("seed %d: first name %q, gofakeit %q", seed, got, want)
		}
		if got, want := w.lastName(), f.LastName(); got != want {
			t.Fatalf("seed %d: last name %q, gofakeit %q", seed, got, want)
		}
		if got, want := string(w.appendPhone([]byte("x"))), "x"+f.Phone(); got != want {
			t.Fatalf("seed %d: phone %q, gofakeit %q", seed, got, want)
		}
		if got, want := w.f.Uint64(), f.Uint64(); got != want {
			t.Fatalf("seed %d: the source moved on differently (%d, gofakeit %d)", seed, got, want)
		}
	}
}
