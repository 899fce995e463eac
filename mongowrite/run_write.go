package mongowrite

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/seed"
)

// collWrite writes one collection of a seed run and keeps its manifest.
type collWrite struct {
	db    *mongo.Database
	coll  *mongo.Collection
	col   *seed.Collection
	m     *Manifest
	prior int64 // documents acknowledged by earlier runs
	keep  bool  // the manifest is saved (WriteOptions.NoManifest unset)
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
	ie := &InsertError{DB: w.m.DB, Collection: w.col.Name(), Part: w.m.Part, Held: -1, Total: w.m.Scope().Len(), Seeded: w.m.Seeded, Err: err}
	var de *seed.DocError
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
func (w *collWrite) held(ctx context.Context, we *WriteError, unsettled []seed.Range) int64 {
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
	raw, err := bson.Marshal(w.col.Doc(we.Doc.Index))
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
