package run

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

// manifestEvery bounds how often a run saves its manifest while batches
// are acknowledged: often enough that a resumed run redoes little, rarely
// enough that saving costs nothing next to inserting.
const manifestEvery = 200 * time.Millisecond

// afterTimeout bounds what a run still asks the server after it stopped
// (interrupted, timed out): the manifest's final state and the count.
const afterTimeout = 5 * time.Second

// collWrite writes one collection of a seed run and keeps its manifest.
type collWrite struct {
	db    *mongo.Database
	coll  *mongo.Collection
	col   *seed.Collection
	m     *mongowrite.Manifest
	prior int64 // documents acknowledged by earlier runs
	saved time.Time
	keep  bool // the manifest is saved (Options.NoManifest unset)
}

// save saves the manifest, when the run keeps one.
func (w *collWrite) save(ctx context.Context) error {
	if !w.keep {
		return nil
	}
	return mongowrite.SaveManifest(ctx, w.db, w.m)
}

// insert saves the manifest as running, inserts the documents it does not
// list as acknowledged, saving it as batches are, and saves its final state
// (also after an interruption).
func (w *collWrite) insert(ctx context.Context, opts mongowrite.InsertOptions) (mongowrite.InsertResult, error) {
	w.m.State, w.m.Error = mongowrite.StateRunning, ""
	if err := w.save(ctx); err != nil {
		return mongowrite.InsertResult{}, err
	}
	w.prior, w.saved = w.m.AckedCount, time.Now()
	opts.Ranges = w.m.Missing()
	saving := true
	opts.Acked = func(r seed.Range) {
		w.m.Ack(r)
		if saving && time.Since(w.saved) >= manifestEvery {
			w.saved = time.Now()
			// A server in trouble fails the inserts too; the run must not
			// wait on it twice, so saving stops until the final save.
			sctx, cancel := context.WithTimeout(ctx, afterTimeout)
			saving = w.save(sctx) == nil
			cancel()
		}
	}
	// An interruption stops generation, not the batches already sent: the
	// inserters finish those, so what was acknowledged is what is there.
	check := opts.Check
	opts.Check = func(doc bson.Raw) error {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		if check == nil {
			return nil
		}
		return check(doc)
	}
	res, err := mongowrite.Insert(context.WithoutCancel(ctx), w.coll, w.col, opts)
	w.m.State = mongowrite.StateDone
	if err != nil {
		w.m.State, w.m.Error = mongowrite.StateFailed, err.Error()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), afterTimeout)
	defer cancel()
	if serr := w.save(sctx); serr != nil && err == nil {
		err = serr
	}
	res.Skipped += w.prior
	return res, err
}

// failed is the *InsertError of a write that stopped with err: how many
// documents of the run the server holds, where that applies.
func (w *collWrite) failed(ctx context.Context, err error, res mongowrite.InsertResult, resume bool) *InsertError {
	ie := &InsertError{DB: w.m.DB, Collection: w.col.Name(), Part: w.m.Part, Held: -1, Total: w.m.Scope().Len(), Seeded: w.m.Seeded, Err: err}
	var de *seed.DocError
	var we *mongowrite.WriteError
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
// the batches in flight when the run stopped (mongowrite.Insert's Unsettled) that
// it holds as they were generated. It returns -1 when the server does not
// answer.
func (w *collWrite) held(ctx context.Context, we *mongowrite.WriteError, unsettled []seed.Range) int64 {
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
			raw, err := bson.Marshal(w.col.Doc(i))
			if err != nil {
				return -1
			}
			docs = append(docs, raw)
		}
	}
	if len(docs) == 0 {
		return known
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), afterTimeout)
	defer cancel()
	same, _, err := mongowrite.StoredSame(cctx, w.coll, docs)
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
// the server cannot be asked; else mongowrite.NotStored.
func (w *collWrite) duplicate(ctx context.Context, we *mongowrite.WriteError) error {
	raw, err := bson.Marshal(w.col.Doc(we.Doc.Index))
	if err != nil {
		return we.Err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), afterTimeout)
	defer cancel()
	same, there, err := mongowrite.StoredSame(cctx, w.coll, []bson.Raw{raw})
	if err != nil || same[0] {
		return we.Err
	}
	return mongowrite.NotStored(there[0])
}
