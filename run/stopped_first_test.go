package run_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// A run stopped in its first collection is resumed whole: its manifests
// name every collection it writes from before its first document, so the
// latest run read back writes the ones it had not reached too, and then
// holds every document of the plan.
func TestRunStoppedInItsFirstCollectionResumesWhole(t *testing.T) {
	_, client := mongotest.Start(t)
	db := client.Database("stopped")
	plan := &seed.Plan{DB: "stopped", Seed: 4, Seeded: true, Collections: []seed.CollectionSpec{
		{Name: "users", Kind: seed.KindUser, Count: 3000},
		{Name: "products", Kind: seed.KindProduct, Count: 500},
		{Name: "employees", Kind: seed.KindEmployee, Count: 700}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := run.Seed(ctx, db, plan, run.Options{Batch: 100, Workers: 1, Progress: func(p run.Progress) {
		if p.Collection == "users" && p.Inserted >= 500 {
			cancel()
		}
	}})
	if err == nil {
		t.Fatal("the stopped run returned no error")
	}
	ms, err := run.LatestRun(context.Background(), db)
	if err != nil || len(ms) != 3 {
		t.Fatalf("manifests of the stopped run: %d, %v; want one for each of its 3 collections", len(ms), err)
	}
	if ms[1].State != mongowrite.StateRunning || ms[1].AckedCount != 0 {
		t.Fatalf("products, never reached: %s with %d acknowledged; want running with none", ms[1].State, ms[1].AckedCount)
	}
	r, err := run.Resume(context.Background(), db, parts.Part{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Seed(context.Background(), db, r.Plan, run.Options{Resume: true, Manifests: r.Manifests})
	if err != nil || len(res.Collections) != 3 {
		t.Fatalf("resumed: %+v, %v; want the 3 collections written", res, err)
	}
	for _, c := range plan.Collections {
		if n, err := db.Collection(c.Name).CountDocuments(context.Background(), bson.D{}); err != nil || n != c.Count {
			t.Errorf("%s holds %d documents (%v) after the resume; want %d", c.Name, n, err, c.Count)
		}
	}
}
