package seed

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func storedInts(n int) []bson.RawValue {
	out := make([]bson.RawValue, n)
	for i := range out {
		_, b, _ := bson.MarshalValue(int32(i * 10))
		out[i] = bson.RawValue{Type: bson.TypeInt32, Value: b}
	}
	return out
}

func storedOrders(n int64) *Plan {
	return &Plan{Seed: 8, Seeded: true, Collections: []CollectionSpec{{Name: "orders", Kind: KindOrder, Count: n, Refs: []Ref{{Field: "userId", To: "users", Stored: true}}},
		{Name: "products", Kind: KindProduct, Count: 5, RefOnly: true}}}
}

// A stored reference draws from the _ids handed to BuildStored, and
// nothing else: the same _ids give the same documents, raw or not.
func TestBuildStoredDraws(t *testing.T) {
	ids := storedInts(40)
	ds, err := storedOrders(200).BuildStored(StoredIDs{"users": ids})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := storedOrders(200).BuildStored(StoredIDs{"users": storedInts(40)})
	c, c2 := ds.Collection("orders"), again.Collection("orders")
	seen := map[int32]bool{}
	for i := int64(0); i < 200; i++ {
		d := c.Doc(i)
		v := d[indexOf(d, "userId")].Value.(bson.RawValue)
		n := v.Int32()
		if n%10 != 0 || n < 0 || n >= 400 {
			t.Fatalf("document %d: userId %v is not a stored _id", i, v)
		}
		seen[n] = true
		raw, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		raw2, _ := bson.Marshal(c2.Doc(i))
		if string(raw) != string(raw2) {
			t.Fatalf("document %d differs between two builds of the same _ids", i)
		}
		w := c.NewWorker()
		if b, ok := w.appendRaw(nil, i); ok && string(b) != string(raw) {
			t.Fatalf("document %d: raw\n%v\nexpected\n%v", i, bson.Raw(b), bson.Raw(raw))
		}
	}
	if len(seen) < 10 {
		t.Errorf("200 orders refer to %d of 40 users", len(seen))
	}
	if sets := ds.StoredSets(); len(sets) != 1 || sets[0].Count != 40 || sets[0].Collection != "users" {
		t.Errorf("StoredSets = %+v", sets)
	}
}

func TestBuildStoredNothingToDraw(t *testing.T) {
	for _, stored := range []StoredIDs{nil, {"users": nil}} {
		_, err := storedOrders(3).BuildStored(stored)
		var sre *StoredRefError
		if !errors.As(err, &sre) || !errors.Is(err, ErrNoStoredIDs) || sre.Field != "userId" || sre.To != "users" || sre.Read != (stored != nil) {
			t.Errorf("BuildStored(%v) = %v", stored, err)
		}
	}
	if _, err := storedOrders(0).BuildStored(StoredIDs{"users": nil}); err != nil {
		t.Errorf("no orders, no users: %v", err)
	}
}

func TestStoredDiff(t *testing.T) {
	a := StoredSetsOf(StoredIDs{"users": storedInts(3)})
	b := StoredSetsOf(StoredIDs{"users": storedInts(2)})
	if d := StoredDiff(a, a); d != nil {
		t.Errorf("same: %+v", d)
	}
	if d := StoredDiff(a, b); d == nil || d.Collection != "users" || d.Old != "3 _ids" || d.New != "2 _ids" {
		t.Errorf("changed: %+v", d)
	}
	if d := StoredDiff(nil, b); d == nil || d.Old != "not read" {
		t.Errorf("new: %+v", d)
	}
}

func TestPlanOptionsRefs(t *testing.T) {
	p, err := NewPlan(PlanOptions{Kind: "order", Count: 10, ID: "objectid", Refs: []string{"userId=people"}, Given: map[Setting]bool{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.StoredTargets(); len(got) != 1 || got[0] != "people" {
		t.Errorf("StoredTargets = %v", got)
	}
	for _, cs := range p.Collections {
		if cs.Name == "users" {
			t.Errorf("the users only referred to are still in the plan: %+v", p.Collections)
		}
	}
	_, err = NewPlan(PlanOptions{Kind: "order", Count: 10, ID: "objectid", Refs: []string{"x=people"}, Given: map[Setting]bool{}})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Setting != SettingRef {
		t.Errorf("unknown field: %v", err)
	}
}
