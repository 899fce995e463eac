package seed_test

import (
	"bytes"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

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

// A plan record rebuilds the plan it was made from: every document of every
// collection, templates included, byte for byte.
func TestPlanRecordRebuildsDocuments(t *testing.T) {
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
	m := seed.NewPlanRecord(ds)
	// Through BSON, as stored.
	raw, err := bson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back seed.PlanRecord
	if err := bson.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	rp, err := back.Plan("reviews")
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
	r := seed.NewPlanRecord(rds)
	if d := m.Diff(&r); d != nil {
		t.Errorf("rebuilt plan differs: %+v", d)
	}
}

func TestPlanRecordDiffNamesTheSetting(t *testing.T) {
	base := func() *seed.Plan {
		return &seed.Plan{Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 10}}}
	}
	ref := buildPlan(t, base())
	m := seed.NewPlanRecord(ref)
	cases := []struct {
		change func(*seed.Plan)
		field  seed.Setting
	}{
		{func(p *seed.Plan) { p.Seed = 2 }, seed.SettingSeed},
		{func(p *seed.Plan) { p.At = time.Unix(1e9, 0) }, seed.SettingAt},
		{func(p *seed.Plan) { p.Span = time.Hour }, seed.SettingSpan},
		{func(p *seed.Plan) { p.Collections[0].Count = 11 }, seed.SettingCount},
		{func(p *seed.Plan) { p.Collections[0].Kind = seed.KindProduct }, seed.SettingKind},
		{func(p *seed.Plan) { p.Collections[0].ID = seed.IDStrategy{Kind: seed.IDUUID} }, seed.SettingID},
		{func(p *seed.Plan) {
			p.Collections[0].ID = seed.IDStrategy{Kind: seed.IDInt}
			p.Collections[0].IDStart = 1
		}, seed.SettingID},
		{func(p *seed.Plan) { p.Collections[0].Times = []float64{0, 0.9, 1} }, seed.SettingTimes},
		{func(p *seed.Plan) {
			p.Collections[0].IDMix = []seed.IDShare{{ID: seed.IDStrategy{Kind: seed.IDInt}, Share: 0.1}}
		}, seed.SettingIDMix},
	}
	for _, tc := range cases {
		p := base()
		tc.change(p)
		ds := buildPlan(t, p)
		r := seed.NewPlanRecord(ds)
		d := m.Diff(&r)
		if d == nil || d.Field != tc.field || d.Old == d.New {
			t.Errorf("%s: diff %+v", tc.field, d)
		}
	}
}
