package run_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/run"
)

// Two resumes of one interrupted run at once, each with its own client:
// both finish; the collection then holds every document of the run once,
// as generated; each counts every document of the run (written by it, or
// already there), no document is counted as written by both, and the run
// manifest ends done with every document acknowledged.
func TestTwoResumesOfOneRunAtOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "data")
	s := startSeedServer(t, dir)
	other := startClient(t, s.s.URI())
	profile, err := rules.Detect(ctx, s.client)
	if err != nil {
		t.Fatal(err)
	}
	db := s.client.Database("matrix")
	ictx, interrupt := context.WithCancel(ctx)
	_, err = run.Seed(ictx, db, seedMatrixPlan(), run.Options{Profile: profile, Batch: 100, Progress: func(p run.Progress) {
		if p.Inserted >= 600 {
			interrupt()
		}
	}})
	if err == nil {
		t.Fatal("the first run was not interrupted")
	}
	before, err := db.Collection("users").CountDocuments(ctx, bson.D{})
	if err != nil || before == 0 || before >= seedMatrixCount {
		t.Fatalf("%d documents after the interrupted run (%v)", before, err)
	}
	results := make([]*run.Result, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for k, c := range []*seedServer{s, {client: other}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := c.client.Database("matrix")
			r, err := run.Resume(ctx, d, parts.Part{})
			if err != nil {
				errs[k] = err
				return
			}
			results[k], errs[k] = run.Seed(ctx, d, r.Plan, run.Options{Profile: profile, Batch: 100, Resume: true, Manifests: r.Manifests})
		}()
	}
	wg.Wait()
	var inserted int64
	for k := range 2 {
		if errs[k] != nil {
			t.Fatalf("resume %d: %v", k, errs[k])
		}
		r := results[k]
		t.Logf("resume %d: inserted %d, skipped %d", k, r.Inserted, r.Skipped)
		if r.Inserted+r.Skipped != seedMatrixCount {
			t.Errorf("resume %d counts %d documents; the run has %d", k, r.Inserted+r.Skipped, seedMatrixCount)
		}
		inserted += r.Inserted
	}
	coll := db.Collection("users")
	ds, err := seedMatrixPlan().Build()
	if err != nil {
		t.Fatal(err)
	}
	held := seedHeld(t, ctx, coll, ds.Collection("users"))
	n, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil || held != seedMatrixCount || n != seedMatrixCount {
		t.Fatalf("the collection holds %d documents, %d of them as generated (%v); want %d", n, held, err, seedMatrixCount)
	}
	if inserted != seedMatrixCount-before {
		t.Errorf("the resumes say they wrote %d documents; %d were missing", inserted, seedMatrixCount-before)
	}
	m, err := mongowrite.ReadManifest(ctx, db, "users")
	if err != nil {
		t.Fatal(err)
	}
	if m.State != mongowrite.StateDone || m.AckedCount != seedMatrixCount {
		t.Errorf("manifest %s, %d of %d acknowledged; want done, all", m.State, m.AckedCount, seedMatrixCount)
	}
}

// startClient is a second client of the server at uri, disconnected at
// the end of the test.
func startClient(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(2 * time.Second).SetTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}
