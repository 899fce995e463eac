package gotest

import (
	"github.com/oidkit/oidkit/oidkittest"
	"github.com/oidkit/oidkit/seed"
	"testing"
)

func TestUsers(t *testing.T) { // a database of its own, seeded from a plan, dropped when the test ends
	db := oidkittest.New(t, oidkittest.WithPlan(&seed.Plan{Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 1000}}}))
	if n, err := db.Collection("users").CountDocuments(t.Context(), map[string]any{}); n != 1000 {
		t.Fatalf("users: %d documents, %v", n, err)
	}
	oidkittest.Verify(t, db) // fails t, with the report, unless db holds exactly what New put there
}
