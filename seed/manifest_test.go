package seed_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/seed"
)

const manifestTemplate = `{"name": "{firstname} {lastname}", "n": "{number:1,9}", "i": "{index}", "f": 3.0, "g": 1e300, "big": 9000000000,
 "nested": {"tags": ["{word}", "lit \"q\" \u0001", null, true], "empty": {}, "braces": "{}"}, "ok": false}`

func buildPlan(t *testing.T, p *seed.Plan) *seed.Dataset {
	t.Helper()
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// A manifest rebuilds the plan it was made from: every document of every
// collection, templates included, byte for byte.
func TestManifestPlanRebuildsDocuments(t *testing.T) {
	tmpl, err := seed.ParseTemplate("review.json", []byte(manifestTemplate))
	if err != nil {
		t.Fatal(err)
	}
	p := &seed.Plan{DB: "shop", Seed: 11, Seeded: true, At: time.Date(2022, 5, 6, 7, 8, 9, 0, time.UTC), Span: 48 * time.Hour,
		Collections: []seed.CollectionSpec{
			{Name: "users", Kind: seed.KindUser, Count: 30, ID: seed.IDStrategy{Kind: seed.IDField, Field: "email"},
				// An inferred plan's spread of _id times, skewed to the end.
				Times: []float64{0, 0.5, 0.7, 0.8, 0.85, 0.9, 0.93, 0.96, 0.98, 0.99, 1}},
			{Name: "reviews", Template: tmpl, Count: 40, ID: seed.IDStrategy{Kind: seed.IDInt}, IDStart: -5,
				IDMix: []seed.IDShare{{ID: seed.IDStrategy{Kind: seed.IDObjectID}, Share: 0.2}, {ID: seed.IDStrategy{Kind: seed.IDUUID}, Share: 0.1}},
				Refs:  []seed.Ref{{Field: "by", To: "users", Min: 1, Max: 3, Unresolved: 0.1, PerTarget: []float64{0, 1, 2, 5}}}},
		}}
	ds := buildPlan(t, p)
	m := seed.NewManifest(ds, ds.Collection("reviews"), "run")
	// Through BSON, as stored.
	raw, err := bson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back seed.Manifest
	if err := bson.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	rp, err := back.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if !rp.Collections[0].RefOnly || rp.Collections[1].RefOnly {
		t.Errorf("RefOnly: %v %v; want only the manifest's collection written", rp.Collections[0].RefOnly, rp.Collections[1].RefOnly)
	}
	rds := buildPlan(t, rp)
	for _, name := range []string{"users", "reviews"} {
		a, b := ds.Collection(name), rds.Collection(name)
		for i := range a.Len() {
			x, _ := bson.Marshal(a.Doc(i))
			y, _ := bson.Marshal(b.Doc(i))
			if !bytes.Equal(x, y) {
				t.Fatalf("%s document %d:\n%v\n%v", name, i, bson.Raw(x), bson.Raw(y))
			}
		}
	}
	if d := m.Diff(seed.NewManifest(rds, rds.Collection("reviews"), "other")); d != nil {
		t.Errorf("rebuilt plan differs: %+v", d)
	}
}

func TestManifestDiffNamesTheSetting(t *testing.T) {
	base := func() *seed.Plan {
		return &seed.Plan{Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 10}}}
	}
	ref := buildPlan(t, base())
	m := seed.NewManifest(ref, ref.Collection("users"), "")
	cases := []struct {
		change func(*seed.Plan)
		field  string
	}{
		{func(p *seed.Plan) { p.Seed = 2 }, "seed"},
		{func(p *seed.Plan) { p.At = time.Unix(1e9, 0) }, "at"},
		{func(p *seed.Plan) { p.Span = time.Hour }, "span"},
		{func(p *seed.Plan) { p.Collections[0].Count = 11 }, "count"},
		{func(p *seed.Plan) { p.Collections[0].Kind = seed.KindProduct }, "kind"},
		{func(p *seed.Plan) { p.Collections[0].ID = seed.IDStrategy{Kind: seed.IDUUID} }, "id"},
		{func(p *seed.Plan) {
			p.Collections[0].ID = seed.IDStrategy{Kind: seed.IDInt}
			p.Collections[0].IDStart = 1
		}, "id"},
		{func(p *seed.Plan) { p.Collections[0].Times = []float64{0, 0.9, 1} }, "times"},
		{func(p *seed.Plan) {
			p.Collections[0].IDMix = []seed.IDShare{{ID: seed.IDStrategy{Kind: seed.IDInt}, Share: 0.1}}
		}, "idMix"},
	}
	for _, tc := range cases {
		p := base()
		tc.change(p)
		ds := buildPlan(t, p)
		d := m.Diff(seed.NewManifest(ds, ds.Collection("users"), ""))
		if d == nil || d.Field != tc.field || d.Old == d.New {
			t.Errorf("%s: diff %+v", tc.field, d)
		}
	}
}

func TestManifestRanges(t *testing.T) {
	got := seed.MergeRanges([]seed.Range{{From: 5, To: 7}, {From: 0, To: 2}, {From: 2, To: 3}, {From: 6, To: 9}, {From: 4, To: 4}})
	if want := []seed.Range{{From: 0, To: 3}, {From: 5, To: 9}}; !equalRanges(got, want) {
		t.Fatalf("MergeRanges: %v, want %v", got, want)
	}
	m := &seed.Manifest{Count: 12}
	if miss := m.Missing(); !equalRanges(miss, []seed.Range{{From: 0, To: 12}}) {
		t.Fatalf("Missing of nothing acknowledged: %v", miss)
	}
	for _, r := range []seed.Range{{From: 3, To: 5}, {From: 8, To: 10}, {From: 5, To: 6}} {
		m.Ack(r)
	}
	if m.AckedCount != 5 || !equalRanges(m.Missing(), []seed.Range{{From: 0, To: 3}, {From: 6, To: 8}, {From: 10, To: 12}}) {
		t.Fatalf("after acks: %d %v", m.AckedCount, m.Missing())
	}
	if !m.Acknowledged(seed.Range{From: 3, To: 6}) || m.Acknowledged(seed.Range{From: 5, To: 7}) {
		t.Fatal("Acknowledged")
	}
	m.Ack(seed.Range{From: 0, To: 12})
	if miss := m.Missing(); miss == nil || len(miss) != 0 {
		t.Fatalf("Missing of a complete run: %#v; want empty, not nil (nil means everything)", miss)
	}
}

func equalRanges(a, b []seed.Range) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Saved and read back through the server; the latest run is found.
func TestManifestSaveRead(t *testing.T) {
	_, client := mongotest.Start(t)
	db := client.Database("m")
	ctx := context.Background()
	if _, err := seed.ReadManifest(ctx, db, "users"); err == nil {
		t.Fatal("no manifest yet, but ReadManifest found one")
	}
	p := &seed.Plan{DB: "m", Seed: 1<<64 - 1, Seeded: true, Collections: []seed.CollectionSpec{
		{Name: "users", Kind: seed.KindUser, Count: 10}, {Name: "products", Kind: seed.KindProduct, Count: 3}}}
	ds := buildPlan(t, p)
	old := seed.NewManifest(ds, ds.Collection("products"), "first")
	old.Started = old.Started.Add(-time.Hour)
	if err := old.Save(ctx, db); err != nil {
		t.Fatal(err)
	}
	for _, c := range ds.Written() {
		m := seed.NewManifest(ds, c, "second")
		m.Ack(seed.Range{From: 0, To: 2})
		if err := m.Save(ctx, db); err != nil {
			t.Fatal(err)
		}
	}
	got, err := seed.ReadManifest(ctx, db, "users")
	if err != nil || got.Seed != "18446744073709551615" || got.AckedCount != 2 || got.Run != "second" || !got.At.Equal(ds.Base) {
		t.Fatalf("%+v %v", got, err)
	}
	run, err := seed.LatestRun(ctx, db)
	if err != nil || len(run) != 2 || run[0].Collection != "users" || run[1].Collection != "products" {
		t.Fatalf("LatestRun: %v %v", run, err)
	}
}

// The parts of a collection saved at once keep one manifest each: none
// overwrites another's acknowledged ranges, and each misses only its scope.
func TestManifestParts(t *testing.T) {
	_, client := mongotest.Start(t)
	db := client.Database("m")
	ctx := context.Background()
	p := &seed.Plan{DB: "m", Seed: 3, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 10}}}
	ds := buildPlan(t, p)
	const n = 3
	errs := make(chan error, n)
	for i := range int64(n) {
		go func() {
			m := seed.NewManifest(ds, ds.Collection("users"), "parts")
			m.Part = seed.Part{I: i, N: n}
			m.Ack(m.Scope())
			errs <- m.Save(ctx, db)
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := range int64(n) {
		part := seed.Part{I: i, N: n}
		m, err := seed.ReadPartManifest(ctx, db, "users", part)
		if err != nil || m.Collection != "users" || m.Part != part || m.Key != "users#"+part.Suffix() || !m.Done() || m.AckedCount != part.Range(10).Len() {
			t.Fatalf("part %v: %+v %v", part, m, err)
		}
	}
	m := seed.NewManifest(ds, ds.Collection("users"), "parts")
	m.Part = seed.Part{I: 1, N: n}
	if miss := m.Missing(); !equalRanges(miss, []seed.Range{{From: 3, To: 6}}) {
		t.Fatalf("part 1/3 of 10 misses %v", miss)
	}
	if _, err := seed.ReadManifest(ctx, db, "users"); !errors.Is(err, seed.ErrNoManifest) {
		t.Fatalf("the whole collection has no manifest, ReadManifest: %v", err)
	}
	run, err := seed.LatestRun(ctx, db)
	if err != nil || len(run) != n || run[0].Part.I != 0 || run[2].Part.I != 2 {
		t.Fatalf("LatestRun: %v %v", run, err)
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
	ds := buildPlan(t, p)
	if err := seed.NewManifest(ds, ds.Collection("users"), "r").Save(ctx, db); err != nil {
		t.Fatal(err)
	}
	m, err := seed.ReadManifest(ctx, db, "users")
	if err != nil {
		t.Fatal(err)
	}
	q, err := m.Plan()
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
