package mongowrite

// The write phase of a seed run, once its plan is built: every check
// before writing, the drop, the indexes before or after the documents, the
// inserts with their run manifest, and what a stopped write left.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// WriteOptions tune WriteDataset; they are run.Options too.
type WriteOptions struct {
	// Part is the part of every collection written; the zero Part is all.
	Part seed.Part
	// Resume inserts only what Manifests does not list as acknowledged
	// (duplicate keys count as already there); without Manifests of a
	// collection its documents are all inserted so.
	Resume bool
	// Manifests are the manifests of the run resumed, by collection
	// (run.Resumed.Manifests).
	Manifests map[string]*Manifest
	// Drop drops each collection before writing it, once every document
	// passed the target's rules.
	Drop bool
	// NoManifest keeps no run manifest; the checks are those of any run.
	NoManifest bool
	// Profile is the target's rules; the zero Profile is rules.MongoDB.
	Profile rules.Profile
	// Batch and Workers are InsertOptions'; Workers 0 is
	// WorkersFor(Profile).
	Batch, Workers int
	// Progress, if set, is called when a collection's inserts start (with
	// Start, Total the documents to insert), after every batch, and once
	// with Done (and no counts) when they end.
	Progress func(CollectionProgress)
	// Written, if set, is called when a collection's inserts and indexes
	// are done, or stopped (then Err is what WriteDataset returns).
	Written func(CollectionResult)
	// Unchecked, if set, is told of each unique index whose keys could not
	// be checked before writing (the server refuses such documents while
	// writing).
	Unchecked func(db string, u Unchecked)
}

// CollectionProgress is a collection's inserts.
type CollectionProgress struct {
	Collection string
	Progress
	Start, Done bool
}

// CollectionResult is what WriteDataset did to one collection.
type CollectionResult struct {
	DB, Collection string
	Part           seed.Part // the part written (WriteOptions.Part)
	InsertResult
	Indexes []indexes.Index // created after the documents
	Err     error
}

// Where names the collection and part written: "oidkit.users part 0/2".
func (r CollectionResult) Where() string { return r.DB + "." + r.Collection + PartNote(r.Part) }

// WriteResult is what WriteDataset did.
type WriteResult struct {
	Collections []CollectionResult
	Inserted    int64
	Skipped     int64
	Elapsed     time.Duration // from the first write, after the checks; zero when a collection stopped
}

// WriteDataset writes part opts.Part of the collections ds writes into db,
// keeping a run manifest of each: every check that needs no write first
// (checkBeforeWriting), the indexes of collections that hold documents
// (indexesBeforeWriting), then per collection the drop, the inserts and
// the indexes after. A check that fails before anything is written is a
// *RefusedError, *AlreadyStoredError or *IndexError (of IndexUnique: keys
// of unique indexes), with a nil result; a failed drop or count a
// *CollectionError; a write that stopped an *InsertError; indexes that
// failed after the documents an *IndexError of IndexAfter. The result then
// counts what was written until then.
func WriteDataset(ctx context.Context, db *mongo.Database, ds *seed.Dataset, opts WriteOptions) (*WriteResult, error) {
	if opts.Profile.Name() == "" {
		opts.Profile = rules.MongoDB
	}
	if opts.Workers == 0 {
		opts.Workers = WorkersFor(opts.Profile)
	}
	written := ds.Written()
	seen, err := checkBeforeWriting(ctx, db, ds, written, opts)
	if err != nil {
		return nil, err
	}
	if err := indexesBeforeWriting(ctx, db, ds, written, opts); err != nil {
		return nil, err
	}
	res := &WriteResult{}
	start := time.Now()
	name := fmt.Sprintf("%s seed %d", time.Now().UTC().Format(time.RFC3339Nano), ds.Seed)
	if !opts.Part.Whole() {
		// The parts' processes name one run without talking to each other.
		name = fmt.Sprintf("seed %d in %d parts", ds.Seed, opts.Part.N)
	}
	for _, col := range written {
		cr, err := writeCollection(ctx, db, ds, col, name, opts, seen[col.Name()])
		if cr != nil {
			res.Collections = append(res.Collections, *cr)
			if opts.Written != nil {
				opts.Written(*cr)
			}
		}
		if err != nil {
			return res, err
		}
		res.Inserted += cr.Inserted
		res.Skipped += cr.Skipped
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// indexesBeforeWriting creates, before any document of the run is written,
// the plan's indexes of each written collection that already holds
// documents (not with Drop, which empties them): the server judges the
// stored documents first, and a unique index their keys repeat is refused
// before anything is added. A refusal is an *IndexError of IndexBefore,
// and every index created here is dropped again: a refused run leaves the
// target as it was.
func indexesBeforeWriting(ctx context.Context, db *mongo.Database, ds *seed.Dataset, written []*seed.Collection, opts WriteOptions) error {
	if opts.Drop {
		return nil
	}
	type made struct {
		coll *mongo.Collection
		list []indexes.Index
	}
	var done []made
	for _, col := range written {
		coll := db.Collection(col.Name())
		list, err := createFirst(ctx, coll, ds, col)
		if err != nil {
			for _, m := range done {
				indexes.DropCreated(ctx, m.coll, m.list)
			}
			return err
		}
		done = append(done, made{coll, list})
	}
	return nil
}

// createFirst creates the plan's indexes of col that coll lacks when it
// holds documents, and returns those it created.
func createFirst(ctx context.Context, coll *mongo.Collection, ds *seed.Dataset, col *seed.Collection) ([]indexes.Index, error) {
	want := col.Spec().Indexes
	first, err := indexesFirst(ctx, coll, want)
	if err != nil {
		return nil, &CollectionError{DB: ds.DB, Collection: col.Name(), Op: OpCount, Err: err}
	}
	if !first {
		return nil, nil
	}
	list, err := indexes.CreateMissing(ctx, coll, want)
	if err != nil {
		return nil, &IndexError{DB: ds.DB, Collection: col.Name(), Stage: IndexBefore, Err: err}
	}
	return list, nil
}

// writeCollection drops col's collection (with Drop), inserts (the indexes
// of a collection that held documents are there: indexesBeforeWriting)
// and creates the indexes after. The result is nil when nothing was
// inserted.
func writeCollection(ctx context.Context, db *mongo.Database, ds *seed.Dataset, col *seed.Collection, run string, opts WriteOptions, stored *Digests) (*CollectionResult, error) {
	coll := db.Collection(col.Name())
	if opts.Drop {
		if err := Drop(ctx, coll); err != nil {
			var ce *CollectionError
			if errors.As(err, &ce) {
				ce.DB = ds.DB // named in the seed run's messages
			}
			return nil, err
		}
	}
	want := col.Spec().Indexes
	w := &collWrite{db: db, coll: coll, col: col, m: opts.Manifests[col.Name()], keep: !opts.NoManifest}
	if w.m == nil {
		w.m = NewManifest(ds, col, run)
		w.m.Part = opts.Part
	}
	io := insertOptions(w, opts)
	io.Stored = stored
	res, err := w.insert(ctx, io)
	if opts.Progress != nil {
		opts.Progress(CollectionProgress{Collection: col.Name(), Done: true})
	}
	cr := &CollectionResult{DB: ds.DB, Collection: col.Name(), Part: opts.Part, InsertResult: res}
	if err != nil {
		ie := w.failed(ctx, err, res, opts.Resume)
		if ie.Held >= 0 {
			cr.Inserted = max(ie.Held-cr.Skipped, 0) // the count the error gives
		}
		cr.Err = ie
		return cr, ie
	}
	if len(want) > 0 {
		// Also after a resumed or finished run: what a killed run did
		// not index is indexed now.
		if err := indexes.Create(ctx, coll, want); err != nil {
			cr.Err = &IndexError{DB: ds.DB, Collection: col.Name(), Stage: IndexAfter, Written: res.Inserted + res.Skipped, Err: err}
			return cr, cr.Err
		}
		cr.Indexes = want
	}
	return cr, nil
}

// insertOptions are Insert's options for w, the progress told first.
func insertOptions(w *collWrite, opts WriteOptions) InsertOptions {
	io := InsertOptions{Batch: opts.Batch, Workers: opts.Workers, Resume: opts.Resume, ReadStored: !opts.Profile.QueriesUseIndexes(), Check: opts.Profile.Check}
	if opts.Progress != nil {
		name := w.col.Name()
		var total int64
		for _, r := range w.m.Missing() {
			total += r.Len()
		}
		opts.Progress(CollectionProgress{Collection: name, Progress: Progress{Total: total}, Start: true})
		io.Progress = func(p Progress) { opts.Progress(CollectionProgress{Collection: name, Progress: p}) }
	}
	return io
}

// indexesFirst says whether the plan's indexes of coll are created before
// its documents are inserted: when it already holds documents (a resumed
// run, or other data), so that the server judges those first and refuses
// before anything is added; an empty collection is indexed after the
// insert, which is faster (docs/benchmarks.md, Index order).
func indexesFirst(ctx context.Context, coll *mongo.Collection, want []indexes.Index) (bool, error) {
	if len(want) == 0 {
		return false, nil
	}
	n, err := coll.EstimatedDocumentCount(ctx)
	if err != nil {
		return false, err
	}
	return n > 0, nil
}
