package seed

import (
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// idStep spreads int _ids: document i's is idStart + i*idStep, and Index
// reads it back (a value between two of them is none of the collection's).
func TestIDStep(t *testing.T) {
	body := `{"collections": [{"name": "books", "template": {"x": 1}, "count": 50, "id": "int", "idStart": 5, "idStep": 3}]}`
	p, err := ParsePlan("plan.json", []byte(body), ".")
	if err != nil {
		t.Fatal(err)
	}
	p.Seed, p.Seeded = 1, true
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Collection("books")
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
	if p, err = ParsePlan("plan.json", []byte(bad), "."); err == nil {
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
