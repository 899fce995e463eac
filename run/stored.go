package run

// References to stored documents: their _ids are read here, where the
// database is, and handed to seed as data.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

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

// StoredChangedError is a run whose stored references drew from other
// _ids than the target holds now: the same plan and seed would make other
// documents, so the run cannot be resumed.
type StoredChangedError struct {
	DB, Collection string // the collection of the run
	Diff           *seed.PlanDiff
}

func (e *StoredChangedError) Error() string {
	return fmt.Sprintf("%s.%s: its references were drawn from the documents stored in %s.%s (%s then, %s now); the run cannot be continued with other ones",
		e.DB, e.Collection, e.DB, e.Diff.Collection, e.Diff.Old, e.Diff.New)
}

// storedSame checks that the stored _ids ds draws from are those each
// manifest recorded.
func storedSame(ds *seed.Dataset, ms map[string]*mongowrite.Manifest) error {
	for name, m := range ms {
		if m == nil {
			continue
		}
		if d := seed.StoredDiff(m.Stored, ds.StoredSets()); d != nil {
			return &StoredChangedError{DB: ds.DB, Collection: name, Diff: d}
		}
	}
	return nil
}
