package verify

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/mongowrite"
)

// item is one stored document on its way through the workers.
type item struct {
	seq    int64 // position in the read
	i      int64 // expected index, or -1 when the _id is not expected
	id     bson.RawValue
	stored bson.Raw
	// filled by a worker
	equal    bool
	expected bson.Raw
	content  digest
}

type batch struct {
	items []item
	done  chan struct{}
}

// candidate is a stored document that may be a copy of another expected
// document: its _id is unexpected, or its content differs from the
// expected document with its _id.
type candidate struct {
	seq  int64
	self int64 // the expected index of its _id, or -1
	id   bson.RawValue
}

const maxCandidates = 100_000

// pendingDiff is a mismatch whose expected document is not at hand yet.
type pendingDiff struct {
	i      int64
	id     bson.RawValue
	stored bson.Raw
}

// readResult is what the read leaves to the later phases.
type readResult struct {
	// candidates are the stored documents that may be copies, by content.
	candidates map[digest][]candidate
	overflow   int64 // candidates not kept, over maxCandidates
	pending    []pendingDiff
	oidDocs    int64 // documents with an ObjectID _id
}

// read reads the collection once, sorted by _id when sorted is set (else
// in natural order). Each document is checked in read order (_id, type,
// order, timestamps, references) and handed to the compare pipeline.
func (v *dbVerifier) read(ctx context.Context, st *collState, sorted bool) (*readResult, error) {
	e := st.e
	var cur *mongo.Cursor
	var err error
	if sorted {
		cur, err = st.coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(v.opts.Batch).SetSort(bson.D{{Key: "_id", Value: 1}}))
	} else {
		cur, err = mongowrite.Scan(ctx, st.coll, v.opts.Batch)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s.%s: %w", e.DB, e.Collection, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))

	cmp := v.startCompare(ctx, st)
	var (
		seq      int64
		order    orderCheck
		oidDocs  int64
		lastProg time.Time
	)
	// The server answers the next getMore while these are checked.
	docs := mongowrite.Prefetch(ctx, cur, nil)
	defer docs.Close()
	for raw := range docs.All() {
		idv, idErr := raw.LookupErr("_id") // looked up once: read here and by checkStored
		if e.oids && idErr == nil {        // what the server's $toDate summary is compared with
			st.ids.add(idv)
		}
		if st.other(raw) {
			continue
		}
		st.stored++
		it := item{seq: seq, i: -1, stored: raw}
		seq++
		if !v.checkStored(st, &it, idv, idErr, sorted, &order) {
			continue
		}
		if id, ok := it.id.ObjectIDOK(); ok && e.oids {
			oidDocs++
			v.timestamps(st.rows, e, raw, id)
		}
		v.references(st.rows, e, raw, it.i)
		cmp.add(it)
		if v.opts.Progress != nil && time.Since(lastProg) > 100*time.Millisecond {
			lastProg = time.Now()
			v.progress(e.Collection, "read", st.stored, e.Len())
		}
	}
	rd, cmpErr := cmp.wait()
	if err := docs.Close(); err != nil {
		return nil, fmt.Errorf("read %s.%s: %w", e.DB, e.Collection, err)
	}
	if cmpErr != nil {
		return nil, cmpErr
	}
	v.progress(e.Collection, "read", st.stored, e.Len())
	st.done = true
	rd.oidDocs = oidDocs
	return rd, nil
}

// checkStored checks idv, the _id of one stored document (err: it has
// none): present, of the expected type, expected once, in order. It sets
// it.id and it.i (the expected document, -1 when none) and reports false
// for a document without _id.
func (v *dbVerifier) checkStored(st *collState, it *item, idv bson.RawValue, err error, sorted bool, order *orderCheck) bool {
	e, rows := st.e, st.rows
	if err != nil {
		rows.unexpected.Failf("a document without _id: %s", show(bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: it.stored}))
		rows.idType.Failf("a document without _id")
		return false
	}
	it.id = bson.RawValue{Type: idv.Type, Value: idv.Value}
	// Per document: the message is built only on a mismatch.
	if e.typeOK(idv) {
		rows.idType.Pass()
	} else {
		rows.idType.Failf("_id %s: expected %s", showTyped(idv), e.typeDesc)
	}
	i, ok := e.src.lookup(idv)
	if !ok {
		rows.unexpected.Failf("_id %s: not among the expected _ids", showTyped(idv))
		st.unexpected[keyOf(idv)] = struct{}{}
		return true
	}
	twice := st.mark(i)
	if twice {
		rows.unexpected.Failf("_id %s: %s stored twice (the same _id under another numeric type)", showTyped(idv), e.src.label(i))
	} else {
		rows.unexpected.Pass()
		it.i = i
	}
	switch {
	case !e.ordered:
	case sorted:
		order.check(rows.order, e, i, it.id)
	default:
		checkNatural(rows.order, e, i, it.id, twice)
	}
	return true
}

// comparer is the compare pipeline of one read: workers compare stored
// documents with the expected ones, and one collector takes their results
// in read order, so that the report does not depend on the scheduling.
type comparer struct {
	work, ordered chan *batch
	workers       sync.WaitGroup
	collected     chan struct{}
	cur           *batch
	res           readResult

	mu  sync.Mutex
	err error // the first error of a worker
}

// compareBatch is the number of stored documents handed to a worker at once.
const compareBatch = 256

func (v *dbVerifier) startCompare(ctx context.Context, st *collState) *comparer {
	n := max(1, runtime.GOMAXPROCS(0))
	c := &comparer{
		work:      make(chan *batch, n*2),
		ordered:   make(chan *batch, n*4),
		collected: make(chan struct{}),
		cur:       &batch{items: make([]item, 0, compareBatch), done: make(chan struct{})},
		res:       readResult{candidates: map[digest][]candidate{}},
	}
	for range n {
		c.workers.Go(func() { c.compare(ctx, st.e.src) })
	}
	go c.collect(st)
	return c
}

// add queues one stored document.
func (c *comparer) add(it item) {
	c.cur.items = append(c.cur.items, it)
	if len(c.cur.items) == compareBatch {
		c.send()
	}
}

func (c *comparer) send() {
	if len(c.cur.items) == 0 {
		return
	}
	c.work <- c.cur
	c.ordered <- c.cur
	c.cur = &batch{items: make([]item, 0, compareBatch), done: make(chan struct{})}
}

// wait sends what is queued and returns once every document is compared
// and collected.
func (c *comparer) wait() (*readResult, error) {
	c.send()
	close(c.work)
	close(c.ordered)
	c.workers.Wait()
	<-c.collected
	return &c.res, c.err
}

// compare is one worker: the documents with an expected _id are compared
// byte for byte; the others, and mismatches, get a content digest to be
// searched for copies.
func (c *comparer) compare(ctx context.Context, src source) {
	for b := range c.work {
		if err := src.match(ctx, b.items); err != nil {
			c.fail(err)
		}
		for k := range b.items {
			if it := &b.items[k]; it.i < 0 || !it.equal {
				it.content = digestOf(content(it.stored))
			}
		}
		close(b.done)
	}
}

// fail keeps the first error of the workers.
func (c *comparer) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

// collect takes the compared batches in read order: the equality row, the
// mismatches to describe later, and the candidate copies.
func (c *comparer) collect(st *collState) {
	defer close(c.collected)
	e, row, res := st.e, st.rows.equal, &c.res
	nCandidates := 0
	for b := range c.ordered {
		<-b.done
		for k := range b.items {
			it := &b.items[k]
			if it.i >= 0 {
				switch {
				case it.equal:
					row.Pass()
				case it.expected != nil:
					diffs, total := diffDocs(it.stored, it.expected)
					row.Failf("%s (_id %s): %s", e.src.label(it.i), show(it.id), diffText(diffs, total))
				case len(res.pending) < MaxExamples:
					res.pending = append(res.pending, pendingDiff{i: it.i, id: it.id, stored: it.stored})
					row.Cases++
					row.Mismatches++
				default:
					row.Failf("%s (_id %s): differs", e.src.label(it.i), show(it.id))
				}
			}
			if it.i < 0 || !it.equal {
				if nCandidates < maxCandidates {
					res.candidates[it.content] = append(res.candidates[it.content], candidate{seq: it.seq, self: it.i, id: it.id})
					nCandidates++
				} else {
					res.overflow++
				}
			}
		}
	}
}
