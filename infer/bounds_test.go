package infer

import (
	"math"
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
		doc, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "userId", Value: int64(i)}, {Key: "twiceId", Value: int64(i % (n / 2))}})
		if err := p.Add(doc); err != nil {
			t.Fatal(err)
		}
	}
	p.Finish()
	u, twice := p.Field("userId"), p.Field("twiceId")
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
	// Repeats: the counts kept are bounded, and exact for the part kept.
	for _, f := range []*Field{u, twice} {
		if len(f.repeats.n) > maxRefCounts || f.repeats.bits == 0 {
			t.Errorf("%s: %d values counted at rate 2^-%d; want at most %d, fewer than all", f.Path, len(f.repeats.n), f.repeats.bits, maxRefCounts)
		}
	}
	for _, n := range twice.repeats.n {
		if n != 2 {
			t.Fatalf("twice: a value counted %d times, want 2", n)
		}
	}
	// Thinned to half, a count of 2 is 1 twice as often as 2 (the 0s unseen).
	h := twice.repeats.histogram(0.5)
	if one, two := h[1]/(h[1]+h[2]), h[2]/(h[1]+h[2]); math.Abs(one-2.0/3) > 1e-9 || math.Abs(two-1.0/3) > 1e-9 {
		t.Errorf("counts of 2 thinned to half: shares %v of 1 and %v of 2, want 2/3 and 1/3", one, two)
	}
	if d := repeats(u.repeats, twice.repeats, 1, 1); math.Abs(d-1) > 1e-9 {
		t.Errorf("repeats of values each once against values each twice: %v, want 1", d)
	}
	if d := repeats(u.repeats, u.repeats, 1, 1); d != -1 {
		t.Errorf("repeats of a unique field: %v, want -1", d)
	}
}
