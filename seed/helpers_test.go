package seed

import (
	"testing"
	"time"
)

// buildPlan builds a one-collection seeded plan or fails the test.
func buildOne(t testing.TB, cs CollectionSpec, seed uint64) *Collection {
	t.Helper()
	p := &Plan{Seed: seed, Seeded: true, Collections: []CollectionSpec{cs}}
	if cs.Kind == KindOrder {
		p.Collections = append(p.Collections,
			CollectionSpec{Name: "users", Kind: KindUser, Count: 50, RefOnly: true},
			CollectionSpec{Name: "products", Kind: KindProduct, Count: 10, RefOnly: true})
	}
	ds, err := p.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return ds.Collection(cs.Name)
}

func mustStrategy(t testing.TB, s string) IDStrategy {
	t.Helper()
	id, err := ParseIDStrategy(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

var testBase = time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC)

func mustTemplate(t testing.TB, src string) *Template {
	t.Helper()
	tm, err := ParseTemplate("t.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
