package engine

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/pipeline"
	"github.com/oidkit/oidkit/embedded/query"
)

// Capped collections and tailable cursors, as the manual describes them:
// a capped collection (create with capped: true, size in bytes and an
// optional max count of documents) keeps its documents in insertion order
// and removes the oldest when an insert goes over either bound; a find
// with tailable: true on it leaves its cursor open after the last
// document, and each getMore returns the documents inserted since
// (waiting up to maxTimeMS, 1 s by default, with awaitData).

// cappedLimits reads a capped collection's bounds from its options: size
// in bytes and max documents (0: no bound). ok is false for a collection
// that is not capped.
func cappedLimits(opts bsoncore.Document) (size, max int64, ok bool) {
	if v, err := opts.LookupErr("capped"); err != nil || !bsonval.Truthy(v) {
		return 0, 0, false
	}
	if v, err := opts.LookupErr("size"); err == nil && bsonval.IsNumber(v) {
		size = int64(bsonval.NumberFloat(v))
	}
	if v, err := opts.LookupErr("max"); err == nil && bsonval.IsNumber(v) {
		max = int64(bsonval.NumberFloat(v))
	}
	return size, max, true
}

// checkCappedOptions validates create's capped options: a capped
// collection needs a positive size (rounded up to 256 bytes, as MongoDB
// does); size and max mean nothing without capped.
func checkCappedOptions(capped, size, max bsoncore.Value) error {
	if capped.Type == 0 || !bsonval.Truthy(capped) {
		if size.Type != 0 && bsonval.IsNumber(size) && bsonval.NumberFloat(size) != 0 {
			return mongoerr.New(mongoerr.InvalidOptions, "the 'size' field is only valid for capped collections")
		}
		return nil
	}
	if size.Type == 0 {
		return mongoerr.New(mongoerr.InvalidOptions, "the 'size' field is required when 'capped' is true")
	}
	if !bsonval.IsNumber(size) || bsonval.NumberFloat(size) <= 0 {
		return mongoerr.New(mongoerr.BadValue, "the 'size' field of a capped collection must be a positive number, not %s", bsonval.Shell(size))
	}
	if max.Type != 0 && !bsonval.IsNumber(max) {
		return mongoerr.New(mongoerr.TypeMismatch, "the 'max' field of a capped collection must be a number, not %s", bsonval.Shell(max))
	}
	return nil
}

// trimCapped removes the oldest documents of a capped collection until
// it is within its bounds again.
func (t *tx) trimCapped(c *collection) {
	size, max, ok := cappedLimits(c.opts)
	if !ok {
		return
	}
	total := dataSize(c)
	for c.natural.Len() > 1 && (max > 0 && int64(c.natural.Len()) > max || size > 0 && total > size) {
		r, _ := c.natural.Min()
		total -= int64(len(r.doc))
		t.deleteDoc(c, r.id)
	}
}

// tailCursor is a tailable cursor on a capped collection.
type tailCursor struct {
	srv     *Server
	db, col string
	filter  *query.Filter
	proj    *pipeline.Projection
	pending []bsoncore.Document // of the first result, not yet returned
	from    uint64              // the next insertion sequence to look at
	await   bool
	dead    bool
}

func (tc *tailCursor) ended() bool                  { return tc.dead }
func (tc *tailCursor) postBatch() bsoncore.Document { return nil }

func (tc *tailCursor) next(c *call, n int, wait time.Duration) ([]bsoncore.Document, error) {
	if len(tc.pending) > 0 {
		out, rest := batch(tc.pending, n)
		tc.pending = rest
		return out, nil
	}
	if !tc.await {
		wait = 0
	}
	deadline := time.Now().Add(wait)
	for {
		wake := tc.srv.store.changes.waiter()
		col := tc.srv.store.view().coll(tc.db, tc.col)
		if col == nil {
			tc.dead = true
			return nil, nil
		}
		var out []bsoncore.Document
		var err error
		col.natural.Ascend(&record{seq: tc.from}, func(r *record) bool {
			tc.from = r.seq + 1
			if tc.filter.Match(r.doc) {
				d := r.doc
				if tc.proj != nil {
					// an expression's error fails the getMore, as it fails a find
					_, pos := tc.filter.MatchPos(d)
					if d, err = tc.proj.Project(d, pos, true); err != nil {
						return false
					}
				}
				out = append(out, d)
			}
			return n <= 0 || len(out) < n
		})
		if err != nil || len(out) > 0 {
			return out, err
		}
		if !awaitChange(c.ctx, wake, deadline) {
			return nil, nil
		}
	}
}

// openTailable answers a tailable find: the first batch, and a cursor
// that stays open for documents inserted later.
func openTailable(c *call, name string, col *collection, f *query.Filter, proj *pipeline.Projection, docs []bsoncore.Document, bs int) (bsoncore.Document, error) {
	if col == nil {
		return cursorDoc(0, c.db+"."+name, "firstBatch", nil, nil), nil
	}
	if _, _, ok := cappedLimits(col.opts); !ok {
		return nil, mongoerr.New(mongoerr.BadValue, "error processing query: ns=%s.%s: tailable cursor requested on non capped collection", c.db, name)
	}
	first, rest := batch(docs, bs)
	if bs == zeroBatch {
		first, rest = nil, docs
	}
	tc := &tailCursor{srv: c.srv, db: c.db, col: name, filter: f, proj: proj, pending: rest, from: col.nextSeq, await: bsonval.Truthy(c.arg("awaitData"))}
	id := c.srv.cursors.openSource(c.db+"."+name, tc)
	return cursorDoc(id, c.db+"."+name, "firstBatch", first, nil), nil
}
