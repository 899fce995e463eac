package audit_test

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/audit"
	"github.com/oidkit/oidkit/seed"
)

func rawValue(t *testing.T, v any) bson.RawValue {
	t.Helper()
	typ, b, err := bson.MarshalValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return bson.RawValue{Type: typ, Value: b}
}

func wantCount(t *testing.T, what string, got, want int64) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %d, want %d", what, got, want)
	}
}

// ascendingPairs counts consecutive IDs where the later sorts higher, by
// bytes: the order a range shard key on _id sees.
func ascendingPairs(in []timed) int64 {
	var n int64
	for i := 1; i < len(in); i++ {
		if bytes.Compare(in[i].id[:], in[i-1].id[:]) > 0 {
			n++
		}
	}
	return n
}

func TestAuditAnomalies(t *testing.T) {
	in := anomalies()
	a := audit.New(audit.Options{Now: now})
	for _, x := range in {
		a.AddID(x.id, x.at)
	}
	for _, v := range []any{int32(7), int64(8), int64(9), "alice", "bob", bson.Binary{Subtype: 4, Data: make([]byte, 16)}, 3.5} {
		a.Add(rawValue(t, v), time.Time{})
	}
	r := a.Report()

	wantCount(t, "total", r.Total, 219)
	kinds := map[audit.Kind]int64{}
	for _, ts := range r.Types {
		kinds[ts.Kind] = ts.Count
	}
	for k, want := range map[audit.Kind]int64{audit.KindObjectID: 212, audit.KindInt: 3, audit.KindString: 2, audit.KindUUID: 1, audit.KindOther: 1} {
		wantCount(t, "type "+k.String(), kinds[k], want)
	}

	for name, want := range map[string]int64{"future": 5, "before2009": 1, "atZero": 1, "zeroTailed": 3, "near2106": 1} {
		wantCount(t, "time "+name, r.Time.Findings[name].Count, want)
	}
	if got := r.Time.Findings["atZero"].Examples; len(got) != 1 || got[0] != "000000000000000000000000" {
		t.Errorf("atZero examples: %v", got)
	}
	if len(r.Time.Days) != 5 || r.Time.Days[2].Day != "2026-05-01" || r.Time.Days[2].Count != 205 {
		t.Errorf("days: %+v", r.Time.Days)
	}

	wantCount(t, "writers tracked (zero-tailed IDs have none)", int64(r.Writers.Tracked), 7)
	wantCount(t, "counter wraps", r.Writers.Wraps.Count, 1)
	wantCount(t, "counters not rising", r.Writers.NotRising.Count, 1)
	wantCount(t, "time backwards", r.Writers.Backwards.Count, 1)
	if got := r.Writers.Wraps.Examples; len(got) != 1 || got[0][18:] != "000000" {
		t.Errorf("wrap example: %v", got)
	}
	byRandom := map[string]audit.Writer{}
	for _, w := range r.Writers.Top {
		byRandom[w.Random] = w
	}
	if w := byRandom["1111111111"]; w.Count != 100 || !w.Rising || w.Wraps != 1 || w.CounterMin != 0 || w.CounterMax != 0xffffff {
		t.Errorf("writer A: %+v", w)
	}
	if w := byRandom["3333333333"]; w.Rising || w.Backwards != 1 || w.NotRising != 1 {
		t.Errorf("writer C: %+v", w)
	}

	// Writers A to D are modern, the two hosts legacy: a mix.
	l := r.Layout
	if l.Kind != audit.LayoutMixed || l.Mix == nil {
		t.Fatalf("layout: %s", l.Kind)
	}
	if want := (audit.Mix{Modern: 164, ModernWriters: 4, Legacy: 45, LegacyWriters: 3, ZeroTailed: 3, OtherTypes: 7}); *l.Mix != want {
		t.Errorf("mix: got %+v, want %+v", *l.Mix, want)
	}
	if l.Machines != 2 || l.PIDs != 2 {
		t.Errorf("legacy machines %d, PIDs %d; want 2 and 2", l.Machines, l.PIDs)
	}
	if len(l.PIDsSharedByMachines) != 1 || l.PIDsSharedByMachines[0].PID != 1 || l.PIDsSharedByMachines[0].IDs != 40 ||
		len(l.PIDsSharedByMachines[0].Machines) != 2 {
		t.Errorf("PIDs on several machines: %+v", l.PIDsSharedByMachines)
	}
	if len(l.MachinesSharedByPIDs) != 1 || l.MachinesSharedByPIDs[0].Hash != "aabbcc" || l.MachinesSharedByPIDs[0].IDs != 25 {
		t.Errorf("machines with several PIDs: %+v", l.MachinesSharedByPIDs)
	}

	wantCount(t, "random hex", r.Random.Count, 0)
	wantCount(t, "timed", r.Clock.Timed, 150)
	wantCount(t, "untimed", r.Clock.Untimed, 62)
	wantCount(t, "skewed writers", r.Clock.SkewedWriters.Count, 1)
	wantCount(t, "skewed IDs", r.Clock.SkewedIDs, 50)
	wantCount(t, "backward writers", r.Clock.BackwardWriters.Count, 1)
	if w := byRandom["2222222222"]; w.Skew == nil || w.Skew.Mean != 120 || !w.Skew.Skewed {
		t.Errorf("writer B skew: %+v", w.Skew)
	}
	if got := r.Clock.SkewedWriters.Examples; len(got) != 1 || got[0] != "2222222222" {
		t.Errorf("skewed examples: %v", got)
	}

	wantCount(t, "pairs", r.Shard.Pairs, 211)
	wantCount(t, "ascending", r.Shard.Ascending, ascendingPairs(in))
	if !r.Shard.Monotonic { // 204 of 211: over the 90% of the rule
		t.Errorf("not monotonic with %d of %d ascending", r.Shard.Ascending, r.Shard.Pairs)
	}
}

func TestAuditRandomHex(t *testing.T) {
	a := audit.New(audit.Options{Now: now})
	for _, id := range randomHex(rand.New(rand.NewPCG(1, 2)), 1000) {
		a.AddID(id, time.Time{})
	}
	r := a.Report()
	wantCount(t, "random hex", r.Random.Count, 1000)
	if r.Layout.Kind != audit.LayoutNotSpec || len(r.Random.Examples) != 3 {
		t.Errorf("layout %s, examples %v", r.Layout.Kind, r.Random.Examples)
	}
	if r.Shard.Monotonic {
		t.Error("random IDs reported monotonic")
	}
}

// TestAuditBoundedWriters: more writers than the table holds are counted,
// not kept, and the random-hex rule still sees every singleton.
func TestAuditBoundedWriters(t *testing.T) {
	a := audit.New(audit.Options{Now: now, MaxWriters: 64})
	for _, id := range randomHex(rand.New(rand.NewPCG(3, 4)), 10_000) {
		a.AddID(id, time.Time{})
	}
	r := a.Report()
	if r.Writers.Tracked > 64 {
		t.Errorf("tracked %d writers, bound 64", r.Writers.Tracked)
	}
	wantCount(t, "tracked + untracked IDs", int64(r.Writers.Tracked)+r.Writers.Untracked, 10_000)
	wantCount(t, "random hex", r.Random.Count, 10_000)
}

// TestAuditSeeded: oidkit's own seeded users are spec-made, modern,
// monotonic, with no clock skew and no time finding.
func TestAuditSeeded(t *testing.T) {
	const n = 5000
	p := &seed.Plan{Seed: 42, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: n}}}
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Collection("users")
	a := audit.New(audit.Options{})
	for i := range int64(n) {
		a.AddID(c.ObjectID(i), c.Time(i))
	}
	r := a.Report()
	wantCount(t, "objectIds", r.Types[0].Count, n)
	for name, f := range r.Time.Findings {
		wantCount(t, "time "+name, f.Count, 0)
	}
	var ids int64
	for _, w := range r.Writers.Top {
		ids += w.Count
		if !w.Rising || w.Backwards != 0 {
			t.Errorf("writer %+v", w)
		}
	}
	wantCount(t, "IDs of the writers", ids, n)
	wantCount(t, "not rising", r.Writers.NotRising.Count, 0)
	wantCount(t, "backwards", r.Writers.Backwards.Count, 0)
	wantCount(t, "random hex", r.Random.Count, 0)
	wantCount(t, "skewed", r.Clock.SkewedWriters.Count, 0)
	wantCount(t, "timed", r.Clock.Timed, n)
	wantCount(t, "ascending", r.Shard.Ascending, n-1)
	if r.Layout.Kind != audit.LayoutModern || !r.Shard.Monotonic {
		t.Errorf("layout %s, monotonic %v", r.Layout.Kind, r.Shard.Monotonic)
	}
}
