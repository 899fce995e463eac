package seed

import (
	"errors"
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// idStep spreads int _ids: document i's is idStart + i*idStep, and Index
// reads it back (a value between two of them is none of the collection's).
func TestIDStep(t *testing.T) {
	body := `{"collections": [{"name": "books", "template": {"x": 1}, "count": 50, "id": "int", "idStart": 5, "idStep": 3}]}`
	c := planCollection(t, body, "books")
	for i := range c.Len() {
		if got := c.ID(i); got != int32(5+3*i) {
			t.Fatalf("document %d: _id %v, want %d", i, got, 5+3*i)
		}
		if j, ok := c.Index(rawInt(int32(5 + 3*i))); !ok || j != i {
			t.Fatalf("Index(%d) = %d, %v; want %d", 5+3*i, j, ok, i)
		}
	}
	for _, v := range []int32{6, 4, 5 + 3*50} {
		if j, ok := c.Index(rawInt(v)); ok {
			t.Errorf("Index(%d) = %d; want none", v, j)
		}
	}
	bad := strings.Replace(body, `"idStep": 3`, `"idStep": -2`, 1)
	p, err := ParsePlan("plan.json", []byte(bad), ".")
	if err == nil {
		_, err = p.Build()
	}
	if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "idStep -2: expected a step of at least 1") {
		t.Errorf("idStep -2: %v", err)
	}
}

func rawInt(v int32) bson.RawValue {
	t, b, _ := bson.MarshalValue(v)
	return bson.RawValue{Type: t, Value: b}
}

// idQuantiles: the int _ids increase, follow the quantiles where they rise
// faster than one per document, and read back to their documents.
func TestIDQuantiles(t *testing.T) {
	// A dense run 1..300 for 75% of the documents, then sparse to 800.
	q := []float64{1, 100, 200, 300, 800}
	body := `{"collections": [{"name": "books", "template": {"x": 1}, "count": 400, "id": "int", "idQuantiles": [1, 100, 200, 300, 800]}]}`
	c := planCollection(t, body, "books")
	prev := int32(-1)
	worst := 0.0
	for i := range c.Len() {
		id := c.ID(i).(int32)
		if id <= prev {
			t.Fatalf("document %d: _id %d after %d: not increasing", i, id, prev)
		}
		prev = id
		if j, ok := c.Index(rawInt(id)); !ok || j != i {
			t.Fatalf("Index(%d) = %d, %v; want %d", id, j, ok, i)
		}
		// The share of the documents below id against the quantiles'.
		u := float64(i) / float64(c.Len())
		want := quantile(q, u)
		worst = max(worst, math.Abs(float64(id)-want)/800)
	}
	if worst > 0.02 {
		t.Errorf("_ids stray from the quantiles by %.3f of the range; want at most 0.02", worst)
	}
	if first, last := c.ID(0), c.ID(c.Len()-1); first != int32(1) || last.(int32) < 790 {
		t.Errorf("_ids from %v to %v; want from 1 to about 800", first, last)
	}
	for _, bad := range []string{`"idQuantiles": [5, 3]`, `"idQuantiles": [1, 2], "idStep": 2`, `"idQuantiles": [1, 1e300]`} {
		b := strings.Replace(body, `"idQuantiles": [1, 100, 200, 300, 800]`, bad, 1)
		p, err := ParsePlan("plan.json", []byte(b), ".")
		if err == nil {
			_, err = p.Build()
		}
		if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "idQuantiles") {
			t.Errorf("%s: %v; want a plan error naming idQuantiles", bad, err)
		}
	}
}

// planCollection is collection name of the plan file body, seeded with 1.
func planCollection(t *testing.T, body, name string) *Collection {
	t.Helper()
	p, err := ParsePlan("plan.json", []byte(body), ".")
	if err != nil {
		t.Fatal(err)
	}
	p.Seed, p.Seeded = 1, true
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	return ds.Collection(name)
}
