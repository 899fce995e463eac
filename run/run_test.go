package run_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

func TestPartsDoneNamesEachPartNotDone(t *testing.T) {
	ms := []*mongowrite.Manifest{
		{Collection: "users", Part: parts.Part{I: 0, N: 3}, Count: 30, Acked: []parts.Range{{From: 0, To: 10}}, AckedCount: 10, State: mongowrite.StateDone},
		{Collection: "users", Part: parts.Part{I: 2, N: 3}, Count: 30, Acked: []parts.Range{{From: 20, To: 25}}, AckedCount: 5, State: mongowrite.StateFailed},
		{Collection: "orders", Count: 5, State: mongowrite.StateRunning}, // whole: not a part
	}
	var pe *run.PartsError
	if err := run.PartsDone(ms); !errors.As(err, &pe) {
		t.Fatalf("PartsDone = %v, expected a *PartsError", err)
	}
	got := pe.Error()
	want := "the run was written in parts, not all done: users part 1/3: not started (no run manifest); users part 2/3: failed, 5 of 10 documents"
	if got != want {
		t.Errorf("PartsDone:\n got %s\nwant %s", got, want)
	}
	if err := run.PartsDone(ms[:1]); err == nil {
		t.Error("PartsDone of part 0/3 alone: nil, expected parts 1 and 2 not started")
	}
}

func TestSeedTwiceIsSameRun(t *testing.T) {
	_, client := mongotest.Start(t)
	ctx := context.Background()
	db := client.Database("twice")
	plan := func() *seed.Plan {
		return &seed.Plan{DB: "twice", Seed: 3, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 20}}}
	}
	if _, err := run.Seed(ctx, db, plan(), run.Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := run.Seed(ctx, db, plan(), run.Options{})
	var sr *run.AlreadyStoredError
	if !errors.As(err, &sr) || sr.Manifest.State != mongowrite.StateDone || res != nil {
		t.Fatalf("second Seed = %v, %v; expected an *AlreadyStoredError of a done run and no result", res, err)
	}
	if strings.Contains(err.Error(), "--") {
		t.Errorf("error %q names a flag", err)
	}
	// Resume finds nothing missing: every document is already there.
	r, err := run.Resume(ctx, db, parts.Part{}, "users")
	if err != nil {
		t.Fatal(err)
	}
	res, err = run.Seed(ctx, db, r.Plan, run.Options{Resume: true, Manifests: r.Manifests})
	if err != nil || res.Inserted != 0 || res.Skipped != 20 || res.Earlier != 20 || res.Collections[0].Earlier != 20 {
		t.Fatalf("resumed Seed = %+v, %v; expected 0 inserted, 20 skipped, all 20 acknowledged by the earlier run", res, err)
	}
	// Another part than the run's is refused.
	var pm *run.PartMismatchError
	if _, err := run.Resume(ctx, db, parts.Part{I: 0, N: 2}, "users"); errors.As(err, &pm) {
		t.Fatalf("Resume of part 0/2 = %v, expected no such manifest", err)
	} else if !errors.Is(err, mongowrite.ErrNoManifest) {
		t.Fatalf("Resume of part 0/2 = %v, expected mongowrite.ErrNoManifest", err)
	}
}

// A run of another document format cannot be rebuilt: PlanOf says which
// format, in an error with fields.
func TestPlanOfAnotherFormat(t *testing.T) {
	plan, err := bson.Marshal(seed.PlanRecord{DB: "old", Seeded: true, Seed: "1", Format: 1, Oidkit: "v0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	m := &mongowrite.Manifest{Collection: "users", Plan: plan}
	_, err = run.PlanOf([]*mongowrite.Manifest{m})
	var pe *seed.PlanError
	want := fmt.Sprintf("invalid plan: run manifest of old.users: the run was written by oidkit v0.1.0 in document format 1; this oidkit makes format %d, so it cannot rebuild that run's documents", seed.DocumentFormat)
	if !errors.As(err, &pe) || pe.Setting != seed.SettingFormat || pe.Value != "1" || !errors.Is(err, seed.ErrPlan) || err.Error() != want {
		t.Fatalf("PlanOf = %v; expected a *seed.PlanError of format 1 wrapping ErrPlan:\n%s", err, want)
	}
}

// A seed with Drop drops the collection's pending replacements too, as a
// load with Drop does: left behind, the next load into the collection
// would put documents no run wrote back into it.
func TestSeedDropDropsPendingReplacements(t *testing.T) {
	_, client := mongotest.Start(t)
	ctx := context.Background()
	db := client.Database("dropped")
	pending := mongowrite.Pending(db.Collection("users"))
	if _, err := pending.InsertOne(ctx, bson.D{{Key: "_id", Value: -1}, {Key: "name", Value: "left by a killed load"}}); err != nil {
		t.Fatal(err)
	}
	plan := &seed.Plan{DB: "dropped", Seed: 3, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 5}}}
	if _, err := run.Seed(ctx, db, plan, run.Options{Drop: true}); err != nil {
		t.Fatal(err)
	}
	names, err := db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: pending.Name()}})
	if err != nil || len(names) != 0 {
		t.Fatalf("collections named %s after a seed with Drop: %v, %v; expected none", pending.Name(), names, err)
	}
}

// Summary's rate is of the documents the write sent: those an earlier
// run acknowledged count as skipped, not as work done now.
func TestSummaryRateLeavesOutEarlierRuns(t *testing.T) {
	cases := []struct {
		inserted, skipped, earlier int64
		want                       string
	}{
		{1000, 0, 0, "inserted 1000, skipped 0 (already there), 2s, 500 docs/s"},
		{600, 400, 400, "inserted 600, skipped 400 (already there), 2s, 300 docs/s"},
		{0, 200000, 200000, "inserted 0, skipped 200000 (already there), 2s, 0 docs/s"},
		{0, 50, 10, "inserted 0, skipped 50 (already there), 2s, 20 docs/s"},
	}
	for _, c := range cases {
		if got := run.Summary(c.inserted, c.skipped, c.earlier, 2*time.Second); got != c.want {
			t.Errorf("Summary(%d, %d, %d, 2s) = %q, want %q", c.inserted, c.skipped, c.earlier, got, c.want)
		}
	}
}
