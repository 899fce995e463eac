package mongowrite

// The write phase of a seed run, once its plan is built: every check
// before writing, the drop, the indexes before or after the documents, the
// inserts with their run manifest, and what a stopped write left.

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
)

// WriteOptions tune WriteDataset; they are run.Options too.
type WriteOptions struct {
	// Part is the part of every collection written; the zero Part is all.
	Part parts.Part
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
	Part           parts.Part // the part written (WriteOptions.Part)
	InsertResult
	Indexes []indexes.Index // created after the documents
	Err     error
}

// Where names the collection and part written: "oidkit.users part 0/2".
func (r CollectionResult) Where() string { return where(r.DB, r.Collection, r.Part) }

// WriteResult is what WriteDataset did.
type WriteResult struct {
	Collections []CollectionResult
	Inserted    int64
	Skipped     int64
	Earlier     int64         // of Skipped, what earlier runs acknowledged (InsertResult.Earlier)
	Elapsed     time.Duration // from the first write, after the checks; zero when a collection stopped
}

// WriteDataset writes part opts.Part of the collections ds writes into db,
// keeping a run manifest of each, in the order Prepare gives every writer:
// the checks of the indexes, then every other check that needs no write
// (checkAll), then the drop, or the indexes of the collections that hold
// documents; then the manifest of every collection, saved before the
// first document (so a run stopped early still names all it writes);
// then per collection the inserts and the indexes after
// (Prepared.After). A check that fails before anything is written is a
// *RefusedError, *AlreadyStoredError or *IndexError (of IndexCheck, or of
// IndexUnique: keys of unique indexes), with a nil result; a failed drop
// or count a *CollectionError; an index refused before the documents an
// *IndexError of IndexBefore, nothing written; a write that stopped an
// *InsertError; indexes that failed after the documents an *IndexError of
// IndexAfter. The result then counts what was written until then. The
// errors name the database ds.DB.
func WriteDataset(ctx context.Context, db *mongo.Database, ds *Dataset, opts WriteOptions) (*WriteResult, error) {
	if opts.Profile.Name() == "" {
		opts.Profile = rules.MongoDB
	}
	if opts.Workers == 0 {
		opts.Workers = WorkersFor(opts.Profile)
	}
	written := ds.Collections
	targets := make([]Target, len(written))
	for i, col := range written {
		targets[i] = Target{Coll: db.Collection(col.Name()), Indexes: col.Indexes()}
	}
	seen := storedIDs{}
	order, err := Prepare(ctx, targets, opts.Drop, func(ctx context.Context, have [][]indexes.Index) error {
		return checkAll(ctx, db, ds, written, have, opts, seen)
	})
	if err != nil {
		return nil, inDB(err, ds.DB)
	}
	w := &datasetWrite{db: db, ds: ds, opts: opts, seen: seen}
	if err := w.manifests(ctx); err != nil {
		return nil, err
	}
	res := &WriteResult{}
	start := time.Now()
	for i, col := range written {
		cr, err := w.collection(ctx, col)
		if err == nil {
			err = indexesAfter(ctx, order, i, col, cr)
		}
		res.Collections = append(res.Collections, *cr)
		if opts.Written != nil {
			opts.Written(*cr)
		}
		if err != nil {
			return res, err
		}
		res.Inserted += cr.Inserted
		res.Skipped += cr.Skipped
		res.Earlier += cr.Earlier
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// inDB names db in err, an error of Prepare, where it names none: a failed
// drop's *CollectionError names only the collection.
func inDB(err error, db string) error {
	var ce *CollectionError
	if errors.As(err, &ce) && ce.DB == "" {
		ce.DB = db
	}
	return err
}

// datasetWrite is WriteDataset once Prepare passed: what each collection's
// write needs.
type datasetWrite struct {
	db   *mongo.Database
	ds   *Dataset
	opts WriteOptions
	seen storedIDs            // what checkAll read of the stored documents
	ms   map[string]*Manifest // each collection's, by name (manifests)
}

// manifests gives every collection of the write its manifest before the
// first document: the resumed run's (WriteOptions.Manifests), else a new
// one, saved now in state running unless NoManifest. So a run stopped in
// its first collection is known whole: its manifests name every
// collection it writes, and a resume or a verify of it takes them all,
// not only those it had reached. A failed save is returned as it is,
// nothing written.
func (d *datasetWrite) manifests(ctx context.Context) error {
	d.ms = map[string]*Manifest{}
	for _, col := range d.ds.Collections {
		m := d.opts.Manifests[col.Name()]
		if m == nil {
			m = NewManifest(d.ds, col)
			m.Part = d.opts.Part
			if !d.opts.NoManifest {
				if err := SaveManifest(ctx, d.db, m); err != nil {
					return err
				}
			}
		}
		d.ms[col.Name()] = m
	}
	return nil
}

// collection inserts col (dropped, or with its indexes already there if
// it held documents: Prepare); indexesAfter follows. The result is never
// nil: its Err is the error returned.
func (d *datasetWrite) collection(ctx context.Context, col Source) (*CollectionResult, error) {
	opts := d.opts
	coll := d.db.Collection(col.Name())
	w := &collWrite{db: d.db, coll: coll, col: col, m: d.ms[col.Name()], keep: !opts.NoManifest, seeded: d.ds.Seeded}
	io := insertOptions(w, opts)
	io.Stored = d.seen[col.Name()]
	res, err := w.insert(ctx, io)
	if opts.Progress != nil {
		opts.Progress(CollectionProgress{Collection: col.Name(), Done: true})
	}
	cr := &CollectionResult{DB: d.ds.DB, Collection: col.Name(), Part: opts.Part, InsertResult: res}
	if err != nil {
		ie := w.failed(ctx, err, res, opts.Resume)
		if ie.Held >= 0 {
			cr.Inserted = max(ie.Held-cr.Skipped, 0) // the count the error gives
		}
		cr.Err = ie
		return cr, ie
	}
	return cr, nil
}

// indexesAfter creates the indexes of col, target i of order, once its
// documents are in (Prepared.After: also after a resumed or finished run,
// so what a killed run did not index is indexed now), and records them in
// cr, or the error.
func indexesAfter(ctx context.Context, order *Prepared, i int, col Source, cr *CollectionResult) error {
	want := col.Indexes()
	if len(want) == 0 {
		return nil
	}
	if err := order.After(ctx, i, cr.Inserted+cr.Skipped); err != nil {
		cr.Err = err
		return err
	}
	cr.Indexes = want
	return nil
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

// collWrite writes one collection of a seed run and keeps its manifest.
type collWrite struct {
	db     *mongo.Database
	coll   *mongo.Collection
	col    Source
	m      *Manifest
	prior  int64 // documents acknowledged by earlier runs
	keep   bool  // the manifest is saved (WriteOptions.NoManifest unset)
	seeded bool  // the run makes the same documents again (Dataset.Seeded)
}

// insert inserts the documents the manifest does not list as
// acknowledged, keeping it (InsertKeeping); prior is what it
// listed before.
func (w *collWrite) insert(ctx context.Context, opts InsertOptions) (InsertResult, error) {
	w.prior = w.m.AckedCount
	return InsertKeeping(ctx, w.db, w.coll, w.col, w.m, opts, w.keep)
}

// failed is the *InsertError of a write that stopped with err: how many
// documents of the run the server holds, where that applies.
func (w *collWrite) failed(ctx context.Context, err error, res InsertResult, resume bool) *InsertError {
	ie := &InsertError{DB: w.db.Name(), Collection: w.col.Name(), Part: w.m.Part, Held: -1, Total: w.m.Scope().Len(), Seeded: w.seeded, Err: err}
	var de *parts.DocError
	var we *WriteError
	switch {
	case errors.As(err, &de) && !errors.Is(err, context.Canceled):
	case !errors.As(err, &we):
	default:
		if !resume && we.Doc != nil && mongo.IsDuplicateKeyError(we.Err) {
			// Already there, or not this document: another one under
			// its _id, or a key of another unique index.
			we.Err = w.duplicate(ctx, we)
		}
		ie.Held = w.held(ctx, we, res.Unsettled)
		if ie.Held < 0 {
			ie.Held, ie.AtLeast = w.prior+we.Written, true
		}
	}
	return ie
}

// held counts the documents of the run the server holds, with a fresh
// context (the run's may be cancelled): those acknowledged, plus those of
// the batches in flight when the run stopped (Insert's Unsettled) that
// it holds as they were generated. It returns -1 when the server does not
// answer.
func (w *collWrite) held(ctx context.Context, we *WriteError, unsettled []parts.Range) int64 {
	known := max(w.m.AckedCount, w.prior+we.Written)
	// An interruption stops generation and lets the inserters finish their
	// batches: none is in flight, and asking would cost a scan of the
	// collection on a server whose queries read the whole collection.
	if errors.Is(we.Err, context.Canceled) {
		return known
	}
	// A document counts as held only when it is stored as it was
	// generated: one refused as a duplicate key may have its _id held by
	// another document, whether or not the server could be asked why.
	var docs []bson.Raw
	for _, r := range unsettled {
		for i := r.From; i < r.To; i++ {
			raw, err := w.col.Raw(i)
			if err != nil {
				return -1
			}
			docs = append(docs, raw)
		}
	}
	if len(docs) == 0 {
		return known
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), AfterStop)
	defer cancel()
	same, _, err := StoredSame(cctx, w.coll, docs)
	if err != nil {
		return -1
	}
	var in int64
	for _, s := range same {
		if s {
			in++
		}
	}
	return max(w.m.AckedCount+in, known)
}

// duplicate is the reason for the refusal we of a document as a duplicate
// key: the server's own when the collection holds it as it is, or when
// the server cannot be asked; else NotStored.
func (w *collWrite) duplicate(ctx context.Context, we *WriteError) error {
	raw, err := w.col.Raw(we.Doc.Index)
	if err != nil {
		return we.Err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), AfterStop)
	defer cancel()
	same, there, err := StoredSame(cctx, w.coll, []bson.Raw{raw})
	if err != nil || same[0] {
		return we.Err
	}
	return NotStored(there[0])
}
