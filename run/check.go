package run

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

// checkBeforeWriting runs every check that needs no write, before the first
// write (and so before any drop): the target's rules on each template's
// shape; without Resume and Drop, a run of the same plan already there;
// with Drop, the target's rules on every document; without Drop, the
// run's _ids and unique keys against the stored documents. It returns
// what it read of the stored documents, for the inserts.
func checkBeforeWriting(ctx context.Context, db *mongo.Database, ds *seed.Dataset, written []*seed.Collection, opts Options) (storedIDs, error) {
	seen := storedIDs{}
	err := checkAll(ctx, db, ds, written, opts, seen)
	return seen, err
}

func checkAll(ctx context.Context, db *mongo.Database, ds *seed.Dataset, written []*seed.Collection, opts Options, seen storedIDs) error {
	for _, col := range written {
		if err := col.CheckShape(opts.Profile.Check); err != nil {
			return &RefusedError{DB: ds.DB, Shape: true, Before: true, Err: err}
		}
	}
	if !opts.Resume && !opts.Drop {
		for _, col := range written {
			if err := sameRunThere(ctx, db, ds, col, opts.Part); err != nil {
				return err
			}
		}
	}
	for _, col := range written {
		if err := mongowrite.CheckIndexes(ctx, db.Collection(col.Name()), col.Spec().Indexes, opts.Drop); err != nil {
			return &IndexError{DB: ds.DB, Collection: col.Name(), Stage: IndexCheck, Err: err}
		}
	}
	if !opts.Drop {
		for _, col := range written {
			if err := idsBeforeWriting(ctx, db, ds, col, opts, seen); err != nil {
				return err
			}
			if err := uniqueBeforeWriting(ctx, db, ds, col, opts); err != nil {
				return err
			}
		}
		return nil
	}
	// Generating is a few percent of a seed's cost: checking every
	// document first keeps the collection intact when one is refused.
	for _, col := range written {
		if err := col.CheckAll(ctx, seed.StreamOptions{Batch: opts.Batch, Check: opts.Profile.Check}); err != nil {
			return &RefusedError{DB: ds.DB, Before: true, Err: err}
		}
	}
	return nil
}

// uniqueBeforeWriting checks the documents col writes into a collection
// that already holds some against each other and against the stored ones,
// in every unique index of the collection and of the plan
// (mongowrite.CheckUnique): a key twice among them, or one held by a stored
// document with another _id, is an *IndexError of IndexUnique, nothing
// written. An empty
// collection has nothing to clash with, and its indexes are built after
// its documents, which the server judges then.
func uniqueBeforeWriting(ctx context.Context, db *mongo.Database, ds *seed.Dataset, col *seed.Collection, opts Options) error {
	coll := db.Collection(col.Name())
	n, err := coll.EstimatedDocumentCount(ctx)
	if err != nil || n == 0 {
		return err
	}
	r := opts.Part.Range(col.Len())
	doc := func(i int64) (bson.Raw, error) { return bson.Marshal(col.Doc(r.From + i)) }
	place := func(i int64) string { return fmt.Sprintf("document %d", r.From+i) }
	unchecked, err := mongowrite.CheckUnique(ctx, coll, col.Spec().Indexes, opts.Profile, r.Len(), doc, place)
	if opts.Unchecked != nil {
		for _, u := range unchecked {
			opts.Unchecked(ds.DB, u)
		}
	}
	var ue *mongowrite.UniqueInputError
	var uc *mongowrite.UniqueClashError
	if errors.As(err, &ue) || errors.As(err, &uc) {
		return &IndexError{DB: ds.DB, Collection: col.Name(), Stage: IndexUnique, Err: err}
	}
	return err
}

// sameRunThere refuses to write a plan whose run manifest says it was
// written already (or started): the inserts would only repeat duplicate
// _ids.
func sameRunThere(ctx context.Context, db *mongo.Database, ds *seed.Dataset, col *seed.Collection, part seed.Part) error {
	m, err := mongowrite.ReadPartManifest(ctx, db, col.Name(), part)
	want := seed.NewPlanRecord(ds)
	switch {
	case errors.Is(err, mongowrite.ErrNoManifest):
		return nil
	case err != nil:
		return err
	case m.Diff(&want) != nil:
		return nil
	}
	return &SameRunError{DB: ds.DB, Collection: col.Name(), Part: part, Manifest: m}
}
