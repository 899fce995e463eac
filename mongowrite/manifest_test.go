package mongowrite_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// Saved and read back through the server; the latest run is found.
func TestManifestSaveRead(t *testing.T) {
	_, client := mongotest.Start(t)
	db := client.Database("m")
	ctx := context.Background()
	if _, err := mongowrite.ReadManifest(ctx, db, "users"); err == nil {
		t.Fatal("no manifest yet, but ReadManifest found one")
	}
	p := &seed.Plan{DB: "m", Seed: 1<<64 - 1, Seeded: true, Collections: []seed.CollectionSpec{
		{Name: "users", Kind: seed.KindUser, Count: 10}, {Name: "products", Kind: seed.KindProduct, Count: 3}}}
	ds := build(t, p)
	old := newManifest(t, ds, ds.Collection("products"), "first")
	old.Started = old.Started.Add(-time.Hour)
	if err := mongowrite.SaveManifest(ctx, db, old); err != nil {
		t.Fatal(err)
	}
	for _, c := range ds.Written() {
		m := newManifest(t, ds, c, "second")
		m.Ack(parts.Range{From: 0, To: 2})
		if err := mongowrite.SaveManifest(ctx, db, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := mongowrite.ReadManifest(ctx, db, "users")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := run.Record(got)
	if err != nil || rec.Seed != "18446744073709551615" || got.AckedCount != 2 || got.Run != "second" || !rec.At.Equal(ds.Base) {
		t.Fatalf("%+v %+v %v", got, rec, err)
	}
	latest, err := run.LatestRun(ctx, db)
	if err != nil || len(latest) != 2 || latest[0].Collection != "users" || latest[1].Collection != "products" {
		t.Fatalf("LatestRun: %v %v", latest, err)
	}
}

// The parts of a collection saved at once keep one manifest each: none
// overwrites another's acknowledged ranges, and each misses only its scope.
func TestManifestParts(t *testing.T) {
	_, client := mongotest.Start(t)
	db := client.Database("m")
	ctx := context.Background()
	p := &seed.Plan{DB: "m", Seed: 3, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 10}}}
	ds := build(t, p)
	const n = 3
	errs := make(chan error, n)
	for i := range int64(n) {
		m := newManifest(t, ds, ds.Collection("users"), "parts")
		go func() {
			m.Part = parts.Part{I: i, N: n}
			m.Ack(m.Scope())
			errs <- mongowrite.SaveManifest(ctx, db, m)
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := range int64(n) {
		part := parts.Part{I: i, N: n}
		m, err := mongowrite.ReadPartManifest(ctx, db, "users", part)
		if err != nil || m.Collection != "users" || m.Part != part || m.Key != "users#"+part.Suffix() || !m.Done() || m.AckedCount != part.Range(10).Len() {
			t.Fatalf("part %v: %+v %v", part, m, err)
		}
	}
	m := newManifest(t, ds, ds.Collection("users"), "parts")
	m.Part = parts.Part{I: 1, N: n}
	if miss := m.Missing(); !slices.Equal(miss, []parts.Range{{From: 3, To: 6}}) {
		t.Fatalf("part 1/3 of 10 misses %v", miss)
	}
	if _, err := mongowrite.ReadManifest(ctx, db, "users"); !errors.Is(err, mongowrite.ErrNoManifest) {
		t.Fatalf("the whole collection has no manifest, ReadManifest: %v", err)
	}
	latest, err := run.LatestRun(ctx, db)
	if err != nil || len(latest) != n || latest[0].Part.I != 0 || latest[2].Part.I != 2 {
		t.Fatalf("LatestRun: %v %v", latest, err)
	}
}

// Index declarations whose keys are not storable field names (a dotted
// path, a partial filter's operator) survive a manifest saved on the
// embedded server and read back.
func TestManifestIndexesWithDotsAndDollars(t *testing.T) {
	_, client := mongotest.Start(t)
	db := client.Database("m")
	ctx := context.Background()
	var want []indexes.Index
	for _, j := range []string{`{"key": {"address.city": 1}}`, `{"key": {"email": 1}, "unique": true, "partialFilterExpression": {"active": {"$eq": true}}}`} {
		ix, err := indexes.ParseJSON([]byte(j))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ix)
	}
	p := &seed.Plan{DB: "m", Seed: 3, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 5, Indexes: want}}}
	ds := build(t, p)
	if err := mongowrite.SaveManifest(ctx, db, newManifest(t, ds, ds.Collection("users"), "r")); err != nil {
		t.Fatal(err)
	}
	m, err := mongowrite.ReadManifest(ctx, db, "users")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := run.Record(m)
	if err != nil {
		t.Fatal(err)
	}
	q, err := rec.Plan(m.Collection)
	if err != nil {
		t.Fatal(err)
	}
	got := q.Collections[0].Indexes
	if len(got) != len(want) {
		t.Fatalf("%d indexes back, want %d", len(got), len(want))
	}
	for k := range want {
		if !indexes.Equal(got[k], want[k]) {
			t.Errorf("index %d: %s, want %s", k, got[k], want[k])
		}
	}
}

// Acknowledged ranges merge; Missing is the rest of the scope, empty (not
// nil) when every document was acknowledged.
func TestManifestRanges(t *testing.T) {
	m := &mongowrite.Manifest{Count: 12}
	if miss := m.Missing(); !slices.Equal(miss, []parts.Range{{From: 0, To: 12}}) {
		t.Fatalf("Missing of nothing acknowledged: %v", miss)
	}
	for _, r := range []parts.Range{{From: 3, To: 5}, {From: 8, To: 10}, {From: 5, To: 6}} {
		m.Ack(r)
	}
	if m.AckedCount != 5 || !slices.Equal(m.Missing(), []parts.Range{{From: 0, To: 3}, {From: 6, To: 8}, {From: 10, To: 12}}) {
		t.Fatalf("after acks: %d %v", m.AckedCount, m.Missing())
	}
	if !m.Acknowledged(parts.Range{From: 3, To: 6}) || m.Acknowledged(parts.Range{From: 5, To: 7}) {
		t.Fatal("Acknowledged")
	}
	m.Ack(parts.Range{From: 0, To: 12})
	if miss := m.Missing(); miss == nil || len(miss) != 0 {
		t.Fatalf("Missing of a complete run: %#v; want empty, not nil (nil means everything)", miss)
	}
}

// InsertKeeping keeps the manifest with what the server acknowledged: a
// cancelled write ends failed with what it stored listed, a second one
// inserts only the rest and ends done, its count of skipped what the
// first listed; without saving, nothing is written beside the documents.
func TestInsertKeeping(t *testing.T) {
	_, client := mongotest.Start(t)
	db := client.Database("k")
	coll := db.Collection("users")
	ds := build(t, &seed.Plan{DB: "k", Seed: 3, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 3000}}})
	col := ds.Collection("users")
	m := newManifest(t, ds, col, "r")

	ctx, cancel := context.WithCancel(context.Background())
	opts := mongowrite.InsertOptions{Batch: 100, Workers: 1, Progress: func(p mongowrite.Progress) {
		if p.Inserted >= 500 {
			cancel()
		}
	}}
	_, err := mongowrite.InsertKeeping(ctx, db, coll, col, m, opts, true)
	stored, _ := coll.CountDocuments(context.Background(), bson.D{})
	saved, rerr := mongowrite.ReadManifest(context.Background(), db, "users")
	if err == nil || rerr != nil || saved.State != mongowrite.StateFailed || saved.AckedCount != stored || stored == 0 || stored == 3000 {
		t.Fatalf("cancelled: err %v; saved %+v (%v); %d stored; want a failed manifest listing what is stored", err, saved, rerr, stored)
	}

	res, err := mongowrite.InsertKeeping(context.Background(), db, coll, col, saved, mongowrite.InsertOptions{Batch: 100}, true)
	saved2, _ := mongowrite.ReadManifest(context.Background(), db, "users")
	if n, _ := coll.CountDocuments(context.Background(), bson.D{}); err != nil || n != 3000 || res.Inserted != 3000-stored || res.Skipped != stored || saved2.State != mongowrite.StateDone || saved2.AckedCount != 3000 {
		t.Fatalf("resumed: %+v, %v; %d stored; manifest %s %d; want the rest inserted and done", res, err, n, saved2.State, saved2.AckedCount)
	}

	other := db.Collection("mem")
	if _, err := mongowrite.InsertKeeping(context.Background(), db, other, col, newManifest(t, ds, col, "m"), mongowrite.InsertOptions{}, false); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.Collection(mongowrite.ManifestCollection).CountDocuments(context.Background(), bson.D{{Key: "run", Value: "m"}}); n != 0 {
		t.Fatalf("%d manifests saved without save; want none", n)
	}
}
