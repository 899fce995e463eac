package seed

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A ref's perTarget: the parts of the targets, ranked, receive their
// shares of the references to within one each, and a share unresolved
// points at no target, the same on every build.
func TestRefPerTargetAndUnresolved(t *testing.T) {
	body := `{"collections": [
		{"name": "users", "template": {"n": "{number:1,9}"}, "count": 1000},
		{"name": "orders", "template": {"x": "{number:1,9}"}, "count": 5000, "refs": [
			{"field": "userId", "to": "users", "unresolved": 0.2,
			 "perTarget": [0, 0, 0, 0, 0, 1, 1, 2, 4, 12]}]}]}`
	counts := func() (map[any]int, int) {
		p, err := ParsePlan("plan.json", []byte(body), ".")
		if err != nil {
			t.Fatal(err)
		}
		p.Seed, p.Seeded = 7, true
		ds, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		users := map[any]int{}
		for i := range ds.Collection("users").Len() {
			users[ds.Collection("users").ID(i)] = 0
		}
		dangling := 0
		for _, d := range ds.Collection("orders").docs() {
			id := get(d, "userId")
			if _, ok := users[id]; !ok {
				dangling++
				if _, isOID := id.(bson.ObjectID); !isOID {
					t.Fatalf("dangling userId %v (%T): want an ObjectID", id, id)
				}
				continue
			}
			users[id]++
		}
		return users, dangling
	}
	users, dangling := counts()
	if dangling != 1000 { // 0.2 of 5000, to within a draw
		t.Errorf("%d of 5000 userIds resolve to no user, want 1000", dangling)
	}
	per := make([]int, 0, len(users))
	for _, n := range users {
		per = append(per, n)
	}
	slices.Sort(per)
	// Each tenth of the users, ranked, gets its share of the 4000
	// resolving orders: 4000 * w / 20 over 100 users.
	for part, w := range []float64{0, 0, 0, 0, 0, 1, 1, 2, 4, 12} {
		sum := 0
		for _, n := range per[part*100 : (part+1)*100] {
			sum += n
		}
		if want := 4000 * w / 20; math.Abs(float64(sum)-want) > 3 {
			t.Errorf("part %d of the users: %d orders, want %.0f", part, sum, want)
		}
	}
	if per[len(per)-1] > 25 {
		t.Errorf("the busiest user has %d orders, want about 24", per[len(per)-1])
	}
	again, _ := counts()
	for id, n := range users {
		if again[id] != n {
			t.Fatalf("user %v: %d orders, then %d on the same seed", id, n, again[id])
		}
	}
}

func get(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

// docs builds every document of c.
func (c *Collection) docs() []bson.D {
	var out []bson.D
	for i := range c.Len() {
		out = append(out, c.NewWorker().Doc(i))
	}
	return out
}

// A collection's times: its ObjectID and createdAt times follow the
// quantiles over the window, and createdAt stays the _id time.
func TestCollectionTimes(t *testing.T) {
	body := `{"collections": [{"name": "events", "template": {"x": "{number:1,9}"}, "count": 301,
		"times": [0, 0.5, 0.6, 1]}]}`
	p, err := ParsePlan("plan.json", []byte(body), ".")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	p.Seeded, p.At, p.Span = true, at, 300*24*time.Hour
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Collection("events")
	start := at.Add(-p.Span)
	for _, tc := range []struct {
		i    int64
		want time.Time
	}{{0, start}, {100, start.Add(150 * 24 * time.Hour)}, {150, start.Add(165 * 24 * time.Hour)}, {200, start.Add(180 * 24 * time.Hour)}, {300, at}} {
		d := c.NewWorker().Doc(tc.i)
		id := get(d, "_id").(bson.ObjectID)
		if got := id.Timestamp().UTC(); got.Sub(tc.want).Abs() > time.Hour {
			t.Errorf("document %d: _id time %v, want about %v", tc.i, got, tc.want)
		}
		if ca := get(d, "createdAt").(bson.DateTime); ca.Time().Unix() != id.Timestamp().Unix() {
			t.Errorf("document %d: createdAt %v, _id time %v", tc.i, ca.Time(), id.Timestamp())
		}
	}
}

func TestPlanShapeSettingsRefused(t *testing.T) {
	for _, tc := range []struct{ coll, want string }{
		{`"times": [0.5]`, "times [0.5]: expected at least two points"},
		{`"times": [0, 0.7, 0.5, 1]`, "point 2 (0.5): expected ascending fractions"},
		{`"times": [0, 1.5]`, "point 1 (1.5): expected ascending fractions"},
		{`"times": [-1, 1]`, "point 0 (-1)"},
		{`"refs": [{"field": "u", "to": "users", "unresolved": 1}]`, "unresolved 1: expected a share from 0 to below 1"},
		{`"refs": [{"field": "u", "to": "users", "unresolved": -0.1}]`, "unresolved -0.1"},
		{`"refs": [{"field": "u", "to": "users", "perTarget": [0, 0]}]`, "perTarget [0 0]: expected at least one part above 0"},
		{`"refs": [{"field": "u", "to": "users", "perTarget": [1, -2]}]`, "part 1 (-2): expected a number >= 0"},
		{`"refs": [{"field": "u", "to": "users", "lengths": [1], "weights": [1]}]`, "of an array reference (max >= 1)"},
		{`"refs": [{"field": "u", "to": "users", "min": 1, "max": 3, "lengths": [1, 2], "weights": [1]}]`, "expected as many weights as lengths"},
		{`"refs": [{"field": "u", "to": "users", "min": 1, "max": 3, "lengths": [1, 4], "weights": [1, 1]}]`, "length 4: expected each within min 1 and max 3"},
		{`"refs": [{"field": "u", "to": "users", "min": 1, "max": 3, "lengths": [1, 2], "weights": [0, 0]}]`, "expected at least one above 0"},
		{`"refs": [{"field": "u", "to": "users", "min": 1, "max": 3, "lengths": [1, 2], "weights": [1, -1]}]`, "weight -1: expected a finite number >= 0"},
	} {
		body := `{"collections": [{"name": "users", "kind": "user", "count": 5},
			{"name": "orders", "template": {"x": 1}, "count": 5, ` + tc.coll + `}]}`
		p, err := ParsePlan("plan.json", []byte(body), ".")
		if err == nil {
			_, err = p.Build()
		}
		if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a plan error saying %q", tc.coll, err, tc.want)
		}
	}
}

func TestPlanScale(t *testing.T) {
	p := &Plan{Collections: []CollectionSpec{{Name: "users", Count: 400}, {Name: "orders", Count: 1000}, {Name: "tiers", Count: 3}, {Name: "none", Count: 0}}}
	if err := p.Scale(100); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, c := range p.Collections {
		got = append(got, c.Count)
	}
	if !slices.Equal(got, []int64{100, 250, 1, 0}) {
		t.Errorf("scaled to 100 users: %v, want [100 250 1 0]", got)
	}
	if err := p.Scale(MaxCount); err == nil || !strings.Contains(err.Error(), "expected at most") {
		t.Errorf("scaling past MaxCount: %v", err)
	}
	empty := &Plan{Collections: []CollectionSpec{{Name: "users", Count: 0}, {Name: "orders", Count: 5}}}
	if err := empty.Scale(10); !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "first collection sets the scale") {
		t.Errorf("scaling a plan whose first collection is empty: %v", err)
	}
}

// A template that has createdAt (never written, as a plan inferred from a
// collection without one says) gets no second one in the shape check, as
// its documents get none.
func TestCheckShapeCreatedAtOnce(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		want int
	}{
		{`{"x": 1, "createdAt": {"$mix": [{"$missing": true}], "$weights": [1]}}`, 1},
		{`{"x": 1}`, 1},
	} {
		p, err := ParsePlan("plan.json", []byte(`{"collections": [{"name": "c", "template": `+tc.tmpl+`, "count": 2}]}`), ".")
		if err != nil {
			t.Fatal(err)
		}
		p.Seeded = true
		ds, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		c := ds.Collection("c")
		if err := c.CheckShape(func(raw bson.Raw) error {
			elems, _ := raw.Elements()
			n := 0
			for _, e := range elems {
				if e.Key() == "createdAt" {
					n++
				}
			}
			if n != tc.want {
				t.Errorf("%s: the shape check's document has createdAt %d times, want %d", tc.tmpl, n, tc.want)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		doc := c.NewWorker().Doc(0)
		if get(doc, "createdAt") != nil && strings.Contains(tc.tmpl, "$missing") {
			t.Errorf("%s: document 0 has createdAt %v", tc.tmpl, get(doc, "createdAt"))
		}
	}
}

// A reference's lengths and weights: how many targets each array holds,
// stratified over the documents, so each length's share holds to within a
// document.
func TestRefLengths(t *testing.T) {
	body := `{"collections": [{"name": "users", "kind": "user", "count": 50},
		{"name": "lists", "template": {"x": 1}, "count": 300,
		 "refs": [{"field": "members", "to": "users", "min": 1, "max": 8, "lengths": [1, 3, 8], "weights": [50, 30, 20]}]}]}`
	p, err := ParsePlan("plan.json", []byte(body), ".")
	if err != nil {
		t.Fatal(err)
	}
	p.Seed, p.Seeded = 4, true
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Collection("lists")
	got := map[int]int{}
	for i := range c.Len() {
		got[len(get(c.Doc(i), "members").(bson.A))]++
	}
	for l, want := range map[int]float64{1: 150, 3: 90, 8: 60} {
		if d := float64(got[l]) - want; d < -1.5 || d > 1.5 {
			t.Errorf("arrays of %d members: %d of 300; want %.0f within 1.5", l, got[l], want)
		}
	}
	if len(got) != 3 {
		t.Errorf("lengths %v; want only 1, 3 and 8", got)
	}
}
