package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/seed"
)

// Options tune Seed: those of its write phase (mongowrite.WriteOptions:
// Part, Resume, Manifests, Drop, NoManifest, Profile, Batch, Workers and
// the Progress, Written and Unchecked hooks). NoManifest is for a database
// that is never resumed nor verified from its manifests (oidkittest builds
// one once and copies it for every test).
type Options = mongowrite.WriteOptions

// Progress is a collection's inserts (Options.Progress).
type Progress = mongowrite.CollectionProgress

// CollectionResult is what Seed did to one collection (Options.Written,
// Result.Collections).
type CollectionResult = mongowrite.CollectionResult

// Result is what Seed did.
type Result struct {
	Dataset     *seed.Dataset // the plan's, as built
	Drawn       bool          // SeedSettings drew the plan's seed
	Collections []CollectionResult
	Inserted    int64
	Skipped     int64
	Earlier     int64 // of Skipped, what earlier runs acknowledged: not sent again
	Elapsed     time.Duration
}

// Seed writes part opts.Part of the collections plan writes into db,
// keeping a run manifest of each (see the package doc). The stored
// references of plan draw from the _ids db holds (ReadStored). A plan
// error is a *StepError of StepPlan, a stored reference with nothing to
// draw from a *seed.StoredRefError, a resume whose stored references
// would draw from other _ids an *OtherRunError (of seed.SettingStored); a check that fails
// before anything is written a *RefusedError, *AlreadyStoredError or *IndexError
// (of IndexUnique: keys of unique indexes); a failed drop or count a
// *mongowrite.CollectionError; a write that stopped an *InsertError;
// indexes that failed after the documents an *IndexError of IndexAfter.
// The result counts what was written until then.
func Seed(ctx context.Context, db *mongo.Database, plan *seed.Plan, opts Options) (*Result, error) {
	ds, err := buildStored(ctx, db, plan)
	if err != nil {
		return nil, err
	}
	return seedDataset(ctx, db, ds, opts)
}

// seedDataset is Seed of ds, its plan built: with Resume, the stored _ids
// its references draw from checked against the manifests, then the write
// phase (mongowrite.WriteDataset).
func seedDataset(ctx context.Context, db *mongo.Database, ds *seed.Dataset, opts Options) (*Result, error) {
	if opts.Resume {
		if err := storedSame(ds, opts.Manifests); err != nil {
			return nil, err
		}
	}
	w, err := ToWrite(ds, opts.Part)
	if err != nil {
		return nil, err
	}
	wr, err := mongowrite.WriteDataset(ctx, db, w, opts)
	if wr == nil {
		return nil, err
	}
	return &Result{Dataset: ds, Collections: wr.Collections, Inserted: wr.Inserted, Skipped: wr.Skipped, Earlier: wr.Earlier, Elapsed: wr.Elapsed}, err
}

// ToWrite is what mongowrite.WriteDataset writes of part p of ds: its
// written collections (each a *seed.Collection), the record of its plan
// that their manifests keep (seed.NewPlanRecord), and the run's name: its
// start and seed, or for a part its seed and parts, which every part's
// process gives alike without talking to the others. A manifest is of
// the same run when its record has no Diff with ds's.
func ToWrite(ds *seed.Dataset, p parts.Part) (*mongowrite.Dataset, error) {
	rec := seed.NewPlanRecord(ds)
	plan, err := bson.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("the plan of %s: %w", ds.DB, err)
	}
	w := &mongowrite.Dataset{DB: ds.DB, Plan: plan, Seeded: ds.Seeded,
		Run: fmt.Sprintf("%s seed %d", time.Now().UTC().Format(time.RFC3339Nano), ds.Seed),
		Same: func(m *mongowrite.Manifest) bool {
			r, err := Record(m)
			return err == nil && r.Diff(&rec) == nil
		}}
	if !p.Whole() {
		w.Run = fmt.Sprintf("seed %d in %d parts", ds.Seed, p.N)
	}
	for _, c := range ds.Written() {
		w.Collections = append(w.Collections, c)
	}
	return w, nil
}

// Record is the plan record m keeps (mongowrite.Manifest.Plan), as the
// seed run that wrote m made it (seed.PlanRecord).
func Record(m *mongowrite.Manifest) (*seed.PlanRecord, error) {
	var r seed.PlanRecord
	if err := bson.Unmarshal(m.Plan, &r); err != nil {
		return nil, fmt.Errorf("run manifest of %s: its plan: %w", m.Key, err)
	}
	return &r, nil
}

// IDCheckReadMax is the most stored documents read to check the _ids of a
// run before writing on a server whose every _id query reads the whole
// collection: mongowrite.IDCheckReadMax.
const IDCheckReadMax = mongowrite.IDCheckReadMax

// Summary is what a seed of inserted and skipped documents in elapsed did,
// in words: "inserted 1000, skipped 0 (already there), 35ms, 28571 docs/s".
// The rate is of the documents the write sent: not the earlier ones of
// skipped, which an earlier run's manifest lists (Result.Earlier).
func Summary(inserted, skipped, earlier int64, elapsed time.Duration) string {
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(inserted+skipped-earlier) / s
	}
	return fmt.Sprintf("inserted %d, skipped %d (already there), %s, %.0f docs/s",
		inserted, skipped, elapsed.Round(time.Millisecond), rate)
}

// References to stored documents: their _ids are read here, where the
// database is, and handed to seed as data.

// ReadStored reads the _ids of the collections that the stored references
// of plan draw from (seed.Plan.StoredTargets), each sorted by _id: what
// seed.Plan.BuildStored takes. A missing collection reads as empty. A
// failed read is a *mongowrite.CollectionError of OpReadIDs.
func ReadStored(ctx context.Context, db *mongo.Database, plan *seed.Plan) (seed.StoredIDs, error) {
	names := plan.StoredTargets()
	if len(names) == 0 {
		return nil, nil
	}
	out := seed.StoredIDs{}
	for _, name := range names {
		ids, err := readSortedIDs(ctx, db.Collection(name))
		if err != nil {
			return nil, &mongowrite.CollectionError{DB: db.Name(), Collection: name, Op: mongowrite.OpReadIDs, Err: err}
		}
		out[name] = ids
	}
	return out, nil
}

// readSortedIDs is every _id of coll, in _id order.
func readSortedIDs(ctx context.Context, coll *mongo.Collection) ([]bson.RawValue, error) {
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).SetSort(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(10000))
	if err != nil {
		return nil, err
	}
	defer cur.Close(context.WithoutCancel(ctx))
	ids := []bson.RawValue{}
	for cur.Next(ctx) {
		v, err := cur.Current.LookupErr("_id")
		if err != nil {
			continue
		}
		ids = append(ids, bson.RawValue{Type: v.Type, Value: slices.Clone(v.Value)})
	}
	return ids, cur.Err()
}

// buildStored builds plan with the _ids its stored references draw from,
// read from db. A stored reference with nothing to draw from is returned
// as the *seed.StoredRefError it is; any other plan error is a *StepError
// of StepPlan.
func buildStored(ctx context.Context, db *mongo.Database, plan *seed.Plan) (*seed.Dataset, error) {
	stored, err := ReadStored(ctx, db, plan)
	if err != nil {
		return nil, err
	}
	ds, err := plan.BuildStored(stored)
	var sre *seed.StoredRefError
	switch {
	case errors.As(err, &sre):
		return nil, err
	case err != nil:
		return nil, &StepError{Step: StepPlan, Err: err}
	}
	return ds, nil
}

// storedSame checks that the stored _ids ds draws from are those each
// manifest recorded: other ones would make other documents, so the run
// cannot be resumed (an *OtherRunError of seed.SettingStored).
func storedSame(ds *seed.Dataset, ms map[string]*mongowrite.Manifest) error {
	for name, m := range ms {
		if m == nil {
			continue
		}
		r, err := Record(m)
		if err != nil {
			return err
		}
		if d := seed.StoredDiff(r.Stored, ds.StoredSets()); d != nil {
			return &OtherRunError{DB: ds.DB, Collection: name, Diff: d}
		}
	}
	return nil
}
