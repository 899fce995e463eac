package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	ucli "github.com/urfave/cli/v2"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// manifestEvery bounds how often a run saves its manifest while batches
// are acknowledged: often enough that a resumed run redoes little, rarely
// enough that saving costs nothing next to inserting.
const manifestEvery = 200 * time.Millisecond

// afterTimeout bounds what a run still asks the server after it stopped
// (interrupted, timed out): the manifest's final state and the count.
const afterTimeout = 5 * time.Second

// checkBeforeWriting runs every check that needs no write, before the first
// write (and so before any drop): the target's rules on each template's
// shape; without --resume and --drop, a run of the same plan already
// there; with --drop, the target's rules on every document.
func checkBeforeWriting(ctx context.Context, c *ucli.Context, db *mongo.Database, ds *seed.Dataset, written []*seed.Collection, profile rules.Profile, batch int, part seed.Part) error {
	for _, col := range written {
		if err := col.CheckShape(profile.Check); err != nil {
			return usageErrorf("%s.%v; nothing was written", ds.DB, err)
		}
	}
	if !c.Bool(flagResume) && !c.Bool(flagDrop) {
		for _, col := range written {
			if err := sameRunThere(ctx, db, ds, col, part); err != nil {
				return err
			}
		}
	}
	if !c.Bool(flagDrop) {
		if err := indexConflicts(ctx, db, ds, written); err != nil {
			return err
		}
	}
	if err := probeIndexes(ctx, db, ds, written); err != nil {
		return err
	}
	if !c.Bool(flagDrop) {
		for _, col := range written {
			if err := uniqueBeforeWriting(ctx, c, db, ds, col, profile, part); err != nil {
				return err
			}
		}
	}
	if c.Bool(flagDrop) {
		// Generating is a few percent of a seed's cost: checking every
		// document first keeps the collection intact when one is refused.
		for _, col := range written {
			if err := col.CheckAll(ctx, seed.StreamOptions{Batch: batch, Check: profile.Check}); err != nil {
				return refusedDoc(ds.DB, err, "nothing was dropped or written")
			}
		}
	}
	return nil
}

// uniqueBeforeWriting checks the documents col writes into a collection
// that already holds some against each other and against the stored ones,
// in every unique index of the collection and of the plan
// (fixtures.CheckUnique): a key twice among them is bad input (exit 2), one
// held by a stored document with another _id a failure (exit 1), nothing
// written in either case. An empty collection has nothing to clash with,
// and its indexes are built after its documents, which the server judges
// then.
func uniqueBeforeWriting(ctx context.Context, c *ucli.Context, db *mongo.Database, ds *seed.Dataset, col *seed.Collection, profile rules.Profile, part seed.Part) error {
	coll := db.Collection(col.Name())
	n, err := coll.EstimatedDocumentCount(ctx)
	if err != nil || n == 0 {
		return failureIf(err)
	}
	r := part.Range(col.Len())
	doc := func(i int64) (bson.Raw, error) { return bson.Marshal(col.Doc(r.From + i)) }
	place := func(i int64) string { return fmt.Sprintf("document %d", r.From+i) }
	unchecked, err := fixtures.CheckUnique(ctx, coll, col.Spec().Indexes, profile.IsFerretDB(), r.Len(), doc, place)
	for _, u := range unchecked {
		fmt.Fprintf(c.App.ErrWriter, "%s%s%s.%s: unique index %s not checked before writing (%s); the server refuses such documents while writing\n", msgPrefix, msgWarning, ds.DB, u.Collection, u.Index, u.Reason)
	}
	var ue *fixtures.UniqueInputError
	var uc *fixtures.UniqueClashError
	switch {
	case errors.As(err, &ue):
		sayListed(c.App.ErrWriter, ds.DB+"."+col.Name(), ue.Listed, ue.Count)
		return usageErrorf("%s.%s: %d documents of the plan repeat the key of a unique index (listed above); nothing was written", ds.DB, col.Name(), ue.Count)
	case errors.As(err, &uc):
		sayListed(c.App.ErrWriter, ds.DB+"."+col.Name(), uc.Listed, uc.Count)
		return failuref("%s.%s: %d documents clash in a unique index with documents already stored (listed above); nothing was written", ds.DB, col.Name(), uc.Count)
	}
	return failureIf(err)
}

// sayListed writes each listed problem of coll on w, and how many of count
// were not listed.
func sayListed[T fmt.Stringer](w io.Writer, coll string, listed []T, count int) {
	for _, p := range listed {
		fmt.Fprintf(w, "%s%s %v\n", msgPrefix, coll, p)
	}
	if count > len(listed) {
		fmt.Fprintf(w, "%s... and %d more\n", msgPrefix, count-len(listed))
	}
}

// failureIf is err as a failure (exit 1), or nil.
func failureIf(err error) error {
	if err == nil {
		return nil
	}
	return failure(err)
}

// sameRunThere refuses to write a plan whose run manifest says it was
// written already (or started): the inserts would only repeat duplicate
// _ids.
func sameRunThere(ctx context.Context, db *mongo.Database, ds *seed.Dataset, col *seed.Collection, part seed.Part) error {
	m, err := seed.ReadPartManifest(ctx, db, col.Name(), part)
	switch {
	case errors.Is(err, seed.ErrNoManifest):
		return nil
	case err != nil:
		return failure(err)
	case m.Diff(seed.NewManifest(ds, col, "")) != nil:
		return nil
	case m.State == seed.StateDone:
		return failuref("%s.%s%s: the %d documents of this run are already there (written %s); re-run with %s to add any that are missing, or %s to write them again", ds.DB, col.Name(), partNote(part), m.Scope().Len(), m.Updated.Format(time.RFC3339), arg(flagResume), arg(flagDrop))
	}
	return failuref("%s.%s%s: a run of this plan stopped (%s) after %d of %d documents; re-run with %s to finish it, or %s to start over", ds.DB, col.Name(), partNote(part), m.State, m.AckedCount, m.Scope().Len(), arg(flagResume), arg(flagDrop))
}

// refusedDoc is a document the target's rules refuse: bad input (exit 2)
// naming the collection, document number, field path and reason.
func refusedDoc(db string, err error, nothing string) error {
	var de *seed.DocError
	var v *rules.Violation
	if errors.As(err, &de) && errors.As(err, &v) {
		return usageErrorf("%s.%s document %d: %v; %s", db, de.Collection, de.Index, v, nothing)
	}
	return failure(err)
}

// collWrite writes one collection of a seed run and keeps its manifest.
type collWrite struct {
	db    *mongo.Database
	coll  *mongo.Collection
	col   *seed.Collection
	m     *seed.Manifest
	prior int64 // documents acknowledged by earlier runs
	saved time.Time
	opts  seed.InsertOptions
}

// insert saves the manifest as running, inserts the documents it does not
// list as acknowledged, saving it as batches are, and saves its final state
// (also after an interruption).
func (w *collWrite) insert(ctx context.Context, opts seed.InsertOptions) (seed.InsertResult, error) {
	w.m.State, w.m.Error = seed.StateRunning, ""
	if err := w.m.Save(ctx, w.db); err != nil {
		return seed.InsertResult{}, err
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
			saving = w.m.Save(sctx, w.db) == nil
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
		return check(doc)
	}
	w.opts = opts
	res, err := seed.Insert(context.WithoutCancel(ctx), w.coll, w.col, opts)
	w.m.State = seed.StateDone
	if err != nil {
		w.m.State, w.m.Error = seed.StateFailed, err.Error()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), afterTimeout)
	defer cancel()
	if serr := w.m.Save(sctx, w.db); serr != nil && err == nil {
		err = serr
	}
	res.Skipped += w.prior
	return res, err
}

// explain turns a failed write into the CLI's error: a refused document is
// bad input; otherwise how many documents of the run the server holds
// (counted after the failure when it answers, else the acknowledged ones,
// "at least") and how to go on.
//
// It also returns that count (-1 when it does not apply), so that the
// summary line on stdout says the same number.
func (w *collWrite) explain(ctx context.Context, err error, display string, resume bool) (int64, error) {
	name := w.m.DB + "." + w.col.Name() + partNote(w.m.Part)
	var de *seed.DocError
	if errors.As(err, &de) && !errors.Is(err, context.Canceled) {
		return -1, refusedDoc(w.m.DB, err, "refused before its batch was sent")
	}
	var we *mongowrite.WriteError
	if !errors.As(err, &we) {
		return -1, failure(fmt.Errorf("%s on %s: %w", name, display, err))
	}
	if !resume && we.Doc != nil && mongo.IsDuplicateKeyError(we.Err) {
		return -1, failuref("%s on %s: %s is already there, and so probably are the other documents of this run; re-run with %s to add only what is missing, or %s to write them again", name, display, we.Doc, arg(flagResume), arg(flagDrop))
	}
	held, note := w.held(ctx, we), ""
	if held < 0 {
		held, note = w.prior+we.Written, " (at least: the server did not answer a count)"
	}
	hint := "re-run with " + arg(flagResume)
	if !w.m.Seeded {
		hint = "this run cannot be resumed (a template reads the clock)"
	}
	return held, failure(fmt.Errorf("%s on %s: inserted %d of %d%s; %s: %s", name, display, held, w.m.Scope().Len(), note, hint, describeStop(we)))
}

// held counts the documents of the run the server holds, with a fresh
// context (the run's may be cancelled): those acknowledged, plus those of
// the batches in flight when the run stopped that did get in. Batches are
// taken in order and each inserter holds one, so the batches in flight are
// among the first Workers not acknowledged. It returns -1 when the server
// does not answer.
func (w *collWrite) held(ctx context.Context, we *mongowrite.WriteError) int64 {
	known := max(w.m.AckedCount, w.prior+we.Written)
	// An interruption stops generation and lets the inserters finish their
	// batches: none is in flight, and asking would cost a scan of the
	// collection on FerretDB.
	if errors.Is(we.Err, context.Canceled) {
		return known
	}
	var ids []any
	for _, r := range w.unacked() {
		for i := r.From; i < r.To; i++ {
			ids = append(ids, w.col.ID(i))
		}
	}
	if len(ids) == 0 {
		return known
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), afterTimeout)
	defer cancel()
	cur, err := w.coll.Find(cctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return -1
	}
	defer cur.Close(cctx)
	var in int64
	for cur.Next(cctx) {
		in++
	}
	if cur.Err() != nil {
		return -1
	}
	return max(w.m.AckedCount+in, known)
}

// unacked is the first Workers batches of the run not acknowledged.
func (w *collWrite) unacked() []seed.Range {
	size, workers := int64(w.opts.Batch), w.opts.Workers
	if size <= 0 {
		size = seed.DefaultBatch
	}
	var out []seed.Range
	for _, r := range w.opts.Ranges {
		for from := r.From; from < r.To && len(out) < workers; from += size {
			b := seed.Range{From: from, To: min(from+size, r.To)}
			if !w.m.Acknowledged(b) {
				out = append(out, b)
			}
		}
	}
	return out
}
