package integration

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Scenario 4: two seed processes write into one collection at the same time
// with different seeds. Both complete; the collection holds both sets, every
// _id once; the two runs' ObjectIDs carry different process-unique (random)
// values, so they cannot collide.
func TestConcurrentSeeds(t *testing.T) {
	t.Parallel()
	if suite.stubs["seed"] {
		t.Skip(`skipped: "seed" is not built yet`)
	}
	s := newServer(t)
	a := gen{db: s.DB, coll: "shared", kind: "user", n: 8000, seed: 101, span: time.Hour}
	b := gen{db: s.DB, coll: "shared", kind: "user", n: 6000, seed: 202, span: time.Hour}
	base := []string{"seed", "--uri", s.URI(), "--quiet", "--timeout", "60s"}
	pa := start(t, 5*time.Minute, nil, append(append([]string{}, base...), a.flags()...)...)
	pb := start(t, 5*time.Minute, nil, append(append([]string{}, base...), b.flags()...)...)
	ra, rb := pa.Wait(), pb.Wait()
	if ra.code != 0 || rb.code != 0 {
		t.Fatalf("both concurrent seeds should complete:\n%s\n\n%s", ra, rb)
	}
	// The two runs overlapped (otherwise this tests nothing new).
	if pb.start.After(pa.start.Add(ra.elapsed)) || pa.start.After(pb.start.Add(rb.elapsed)) {
		t.Fatalf("the two seeds did not overlap in time (%v and %v)", ra.elapsed, rb.elapsed)
	}
	ea := expectCollection(t, a.dataset(t).Collection("shared"))
	eb := expectCollection(t, b.dataset(t).Collection("shared"))
	// Different process-unique values: no random part is shared.
	randA := map[[5]byte]bool{}
	for _, k := range ea.order {
		id, _ := ea.docs[k].Lookup("_id").ObjectIDOK()
		randA[[5]byte(id[4:9])] = true
	}
	for _, k := range eb.order {
		id, _ := eb.docs[k].Lookup("_id").ObjectIDOK()
		if randA[[5]byte(id[4:9])] {
			t.Fatalf("seeds %d and %d share the ObjectID random value %x", a.seed, b.seed, id[4:9])
		}
	}
	// One expectation holding both sets: compareExact then checks count,
	// duplicates, unexpected and missing _ids, and every document's bytes.
	both := &expected{name: "shared (both seeds)", docs: map[string]bson.Raw{}}
	for _, e := range []*expected{ea, eb} {
		for _, k := range e.order {
			if _, dup := both.docs[k]; dup {
				t.Fatalf("the two seeds generate the same _id %s", e.docs[k].Lookup("_id"))
			}
			both.order = append(both.order, k)
			both.docs[k] = e.docs[k]
		}
	}
	c := s.Client()
	compareExact(t, both, readAll(t, s.Coll(c, "shared")))
}
