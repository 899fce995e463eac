package mongowrite

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
)

// InsertOptions tune Insert.
type InsertOptions struct {
	Batch   int // documents per bulk insert (at most BatchBytes of them: Cut); 0 means DefaultBatch
	Workers int // concurrent inserters (generators: at most GOMAXPROCS); 0 means min(4, 2*GOMAXPROCS)
	// Resume counts a document refused as a duplicate key as already
	// there when the collection holds it as it is (asked after its batch);
	// one it holds otherwise stops the run (ErrNotStored).
	Resume bool
	// ReadStored tells those duplicates from the stored documents by
	// reading the collection once, on the first, rather than by a query
	// of each batch's duplicates: set it for a server whose queries read
	// the whole collection (not rules.Profile.QueriesUseIndexes), which
	// reads every stored document to answer an _id query.
	ReadStored bool
	// Stored, if set with ReadStored, is the collection's documents as
	// read before the run (ReadDigests): they are not read
	// again on the first duplicate.
	Stored *Digests
	// Ranges are the documents to insert; nil means the whole collection.
	Ranges []parts.Range
	// Progress, if set, is called after every batch (never concurrently).
	Progress func(Progress)
	// Acked, if set, is called with the range of every batch the server
	// acknowledged in full (duplicates counted with Resume), before
	// Progress and never concurrently.
	Acked func(parts.Range)
	// Check, if set, is StreamOptions.Check: a document it refuses stops
	// the run before its batch is sent.
	Check func(bson.Raw) error
}

// Concurrent inserters a caller that did not choose gives Insert
// (WorkersFor).
const (
	// SerialWriteWorkers is for a server that writes one batch at a time
	// (rules.Profile.SerialWrites): the next batch is marshalled and sent
	// while one is written (docs/benchmarks.md, Inserters on the embedded
	// server) but no more than one waits, since a queued batch can outlast
	// the client's timeout.
	SerialWriteWorkers = 2
	// ConcurrentWriteWorkers is for any other server.
	ConcurrentWriteWorkers = 4
)

// WorkersFor is how many concurrent inserters a caller that did not choose
// gives Insert for a server of profile p: SerialWriteWorkers where the
// server writes one batch at a time, else ConcurrentWriteWorkers.
func WorkersFor(p rules.Profile) int {
	if p.SerialWrites() {
		return SerialWriteWorkers
	}
	return ConcurrentWriteWorkers
}

// Progress is a snapshot of a running Insert.
type Progress struct {
	Total    int64
	Inserted int64
	Skipped  int64 // already there (Resume)
	Elapsed  time.Duration
}

// InsertResult is what Insert did.
type InsertResult struct {
	Inserted int64
	Skipped  int64 // documents already there (Resume)
	// Earlier is, of Skipped, the documents an earlier run's manifest
	// lists as acknowledged (InsertKeeping): this write did not send them.
	Earlier int64
	Elapsed time.Duration
	// Unsettled is the ranges of the batches that were sent but not
	// acknowledged in full when the run stopped (a write error, an
	// interruption, a timeout): some of their documents may be stored.
	// Every other document of opts.Ranges was either acknowledged (Acked)
	// or never sent. Empty when the run did not stop.
	Unsettled []parts.Range
}

// Insert writes the documents of c that opts.Ranges select into coll with
// unordered InsertMany batches. Its Workers inserters share one stream of
// the collection (Source.Batches), with at most GOMAXPROCS generators, so memory does not grow
// with Len. Without Resume any write error stops the run; with Resume
// duplicate-key errors of documents the collection holds as they are count as
// Skipped, and any other write error stops the run. A stopped run returns a *WriteError whose Written counts Inserted
// plus Skipped. Every operation is bounded by the client's timeout and by ctx.
func Insert(ctx context.Context, coll *mongo.Collection, c Source, opts InsertOptions) (InsertResult, error) {
	start := time.Now()
	if opts.Batch <= 0 {
		opts.Batch = DefaultBatch
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = min(4, 2*runtime.GOMAXPROCS(0))
	}
	// A failure stops generation (ctx), not the batches already sent
	// (sent): those finish and are counted, so that what is acknowledged
	// is what is stored.
	sent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Generation is cheap next to a round trip: a few generators keep the
	// inserters fed without taking CPU from an in-process server.
	s := c.Batches(ctx, parts.StreamOptions{Ranges: opts.Ranges, Batch: opts.Batch, Workers: min(workers, runtime.GOMAXPROCS(0)), Check: opts.Check})
	defer s.Close()
	in := &inserting{sent: sent, cancel: cancel, coll: coll, opts: opts, s: s, start: start, total: s.Len(),
		st: &Stored{Coll: coll, Scan: opts.ReadStored}}
	if opts.ReadStored {
		in.st.Read = func(ctx context.Context) (*Digests, error) {
			if opts.Stored != nil {
				return opts.Stored, nil
			}
			return ReadDigests(ctx, coll, maphash.MakeSeed())
		}
	}
	var ins sync.WaitGroup
	for range workers {
		ins.Add(1)
		go func() {
			defer ins.Done()
			in.insert()
		}()
	}
	ins.Wait()

	total := in.total
	res := InsertResult{Inserted: in.inserted.Load(), Skipped: in.skipped.Load(), Elapsed: time.Since(start), Unsettled: parts.Merge(in.unsettled)}
	if in.firstErr == nil && res.Inserted+res.Skipped != total {
		in.firstErr = fmt.Errorf("only %d of %d documents confirmed", res.Inserted+res.Skipped, total)
	}
	if in.firstErr != nil {
		return res, &WriteError{Collection: coll.Name(), Written: res.Inserted + res.Skipped, Total: total, Doc: in.failedDoc, Err: in.firstErr}
	}
	return res, nil
}

// inserting is one Insert under way: what its inserters share.
type inserting struct {
	sent   context.Context    // of the batches, which a failure does not cancel
	cancel context.CancelFunc // stops generation
	coll   *mongo.Collection
	opts   InsertOptions
	s      parts.Batches
	st     *Stored
	start  time.Time
	total  int64

	inserted, skipped atomic.Int64
	errOnce           sync.Once
	firstErr          error
	failedDoc         *WriteDoc
	progressMu        sync.Mutex
	unsettled         []parts.Range
}

func (in *inserting) fail(doc *WriteDoc, err error) {
	in.errOnce.Do(func() { in.firstErr, in.failedDoc = err, doc; in.cancel() })
}

// insert is an inserter: it inserts the batches of the stream until its
// end or a failure.
func (in *inserting) insert() {
	opts := in.opts
	for {
		b, err := in.s.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			// Every inserter meets the stream's error after its
			// batch: batches in flight finish and are counted.
			in.errOnce.Do(func() { in.firstErr = err })
			return
		}
		n, dups, err := InsertBatch(in.sent, in.coll, b.Docs, opts.Resume)
		in.inserted.Add(n)
		if err == nil && len(dups) > 0 {
			err = confirmBatch(in.sent, in.st, b.Docs, dups, &in.skipped)
		}
		if err != nil {
			in.progressMu.Lock()
			in.unsettled = append(in.unsettled, b.Range())
			in.progressMu.Unlock()
			var we *WriteError
			if errors.As(err, &we) && we.Doc != nil {
				doc := *we.Doc
				doc.Index += b.From
				in.fail(&doc, we.Err)
			} else {
				in.fail(nil, err)
			}
			return
		}
		in.progressMu.Lock()
		if opts.Acked != nil {
			opts.Acked(b.Range())
		}
		if opts.Progress != nil {
			opts.Progress(Progress{Total: in.total, Inserted: in.inserted.Load(), Skipped: in.skipped.Load(), Elapsed: time.Since(in.start)})
		}
		in.progressMu.Unlock()
	}
}

// confirmBatch adds to skipped the duplicates dups of docs that the
// collection holds as they are (Stored); one it holds otherwise is a
// *WriteError about docs, as InsertBatch gives, and a failure to ask is
// returned as is.
func confirmBatch(ctx context.Context, st *Stored, docs []bson.Raw, dups []int, skipped *atomic.Int64) error {
	same, there, err := st.Confirm(ctx, docs, dups)
	if err != nil {
		return fmt.Errorf("asking which duplicate keys are the documents stored: %w", err)
	}
	var n int64
	bad := -1
	for j, ok := range same {
		if ok {
			n++
		} else if bad < 0 {
			bad = j
		}
	}
	skipped.Add(n)
	if bad >= 0 {
		i := dups[bad]
		return &WriteError{Collection: st.Coll.Name(), Written: int64(len(docs)-len(dups)) + n, Total: int64(len(docs)),
			Doc: &WriteDoc{Index: int64(i), ID: docs[i].Lookup("_id")}, Err: NotStored(there[bad])}
	}
	return nil
}
