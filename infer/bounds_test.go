package infer

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// What a profile keeps per field stays bounded however many documents it
// sees, and uniqueness is still told apart: 200,000 distinct values are
// unique, the same values each twice (far apart) are not.
func TestProfileBoundsUniqueness(t *testing.T) {
	const n = 200000
	p := NewProfile("c", Options{})
	for i := range n {
		doc, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "u", Value: int64(i)}, {Key: "twice", Value: int64(i % (n / 2))}})
		if err := p.Add(doc); err != nil {
			t.Fatal(err)
		}
	}
	p.Finish()
	u, twice := p.Field("u"), p.Field("twice")
	if !u.Unique() {
		t.Error("200,000 distinct values: not unique")
	}
	if twice.Unique() {
		t.Error("100,000 values each twice: unique")
	}
	for _, f := range p.Fields {
		if len(f.hashes) > maxHashes || len(f.Cats) > maxDistinct {
			t.Errorf("%s: %d hashes, %d counted values kept; want at most %d and %d", f.Path, len(f.hashes), len(f.Cats), maxHashes, maxDistinct)
		}
		for typ, r := range f.Nums {
			if len(r.vals) > reservoirSize {
				t.Errorf("%s %s: %d values kept, want at most %d", f.Path, typ, len(r.vals), reservoirSize)
			}
		}
	}
	if u.hashBits == 0 {
		t.Error("200,000 hashes kept in one field: the bound was not applied")
	}
}
