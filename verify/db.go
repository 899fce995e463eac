package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/rules"
)

// DBOptions tune VerifyDB.
type DBOptions struct {
	// Profile is what the server can do (rules.Detect); the zero Profile
	// is read as MongoDB. Without $toDate the server-side timestamp row
	// is skipped with that reason; a server that sorts in memory has the
	// collection read in natural order and the
	// _id order checked on the client, on that same read (see orderCheck),
	// for collections of any size.
	Profile rules.Profile
	// Batch is the cursor batch size; 0 means 1000.
	Batch int32
	// Progress, if set, is called from time to time (never concurrently).
	Progress func(DBProgress)
}

// DBProgress is a snapshot of a running VerifyDB.
type DBProgress struct {
	Collection string
	Phase      string // "read", "server", "references", "details", "indexes"
	Done       int64
	Total      int64 // 0 when unknown
	Elapsed    time.Duration
}

// ExpectedSet is the expected content of the collections of a plan: the
// ones to verify, and the ones only referred to.
type ExpectedSet struct {
	Verify []*Expected
	// Referenced are collections the verified ones refer to but that are
	// not verified themselves (a plan's RefOnly collections): references
	// into them are checked against what the database holds.
	Referenced []*Expected
	// Notes are shown under the report (what the set could not expect).
	Notes []string
}

// VerifyDB reads each collection of set.Verify and compares it with what it
// should hold, one group of report rows per collection (named
// "collection: check"). It returns an error only when the check could not
// run (the server failed, a fixture file changed into a bad one:
// *fixtures.LineError); a mismatch is a failed row.
func VerifyDB(ctx context.Context, client *mongo.Client, set ExpectedSet, opts DBOptions) (*Report, error) {
	if opts.Batch <= 0 {
		opts.Batch = 1000
	}
	title := "verify db"
	for k, e := range set.Verify {
		sep := ", "
		if k == 0 {
			sep = " "
		}
		title += sep + e.DB + "." + e.Collection
	}
	rep := NewReport(title)
	v := &dbVerifier{client: client, opts: opts, rep: rep, start: time.Now(), states: map[string]*collState{}}
	for _, e := range set.Referenced {
		v.states[e.DB+"."+e.Collection] = &collState{e: e, refOnly: true}
	}
	for _, e := range set.Verify {
		v.states[e.DB+"."+e.Collection] = &collState{e: e}
	}
	// Collections referred to are read first, so that references are
	// checked while the referring collection is read.
	order := referenceOrder(set.Verify)
	for _, e := range order {
		if err := v.collection(ctx, v.states[e.DB+"."+e.Collection]); err != nil {
			return rep, err
		}
	}
	// References not checked while reading (into a collection read later,
	// or only referred to) are checked now that every collection is read.
	for _, e := range order {
		st := v.states[e.DB+"."+e.Collection]
		if err := v.finishReferences(ctx, st); err != nil {
			return rep, err
		}
		st.finish()
	}
	if opts.Profile.SortsInMemory() {
		rep.Note("the server sorts in memory, so collections are read in natural order and the _id order is checked on the client, on that read")
	}
	for _, n := range set.Notes {
		rep.Note("%s", n)
	}
	// The share of references that resolve, per reference field.
	for _, e := range order {
		st := v.states[e.DB+"."+e.Collection]
		for k, ref := range e.refs {
			if row := st.rows.refs[k]; row.Cases > 0 {
				rep.Note("%s.%s: %d of %d resolve to %s", e.Collection, ref.Field, row.Cases-row.Mismatches, row.Cases, ref.To)
			}
		}
	}
	return rep, nil
}

// referenceOrder puts the collections a collection refers to before it,
// where the references allow (a cycle keeps the given order).
func referenceOrder(es []*Expected) []*Expected {
	byName := map[string]*Expected{}
	for _, e := range es {
		byName[e.Collection] = e
	}
	var out []*Expected
	state := map[*Expected]int{} // 1 visiting, 2 done
	var visit func(e *Expected)
	visit = func(e *Expected) {
		if state[e] != 0 {
			return
		}
		state[e] = 1
		for _, r := range e.refs {
			if t := byName[r.To]; t != nil && t != e {
				visit(t)
			}
		}
		state[e] = 2
		out = append(out, e)
	}
	for _, e := range es {
		visit(e)
	}
	return out
}

type dbVerifier struct {
	client *mongo.Client
	opts   DBOptions
	rep    *Report
	start  time.Time
	states map[string]*collState
}

func (v *dbVerifier) progress(coll, phase string, done, total int64) {
	if v.opts.Progress != nil {
		v.opts.Progress(DBProgress{Collection: coll, Phase: phase, Done: done, Total: total, Elapsed: time.Since(v.start)})
	}
}

// aggregate runs a server-side check. A server that refuses the command
// skips row, naming what it refused (a nil cursor and no error); any other
// failure is an error that starts with failed ("$toDate on").
func (v *dbVerifier) aggregate(ctx context.Context, coll *mongo.Collection, pipeline mongo.Pipeline, row *Row, what, failed string) (*mongo.Cursor, error) {
	cur, err := coll.Aggregate(ctx, pipeline, options.Aggregate().SetBatchSize(v.opts.Batch))
	if err == nil {
		return cur, nil
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		row.Skip("server refused " + what + ": " + ce.Message)
		return nil, nil
	}
	return nil, fmt.Errorf("%s %s.%s: %w", failed, coll.Database().Name(), coll.Name(), err)
}
