package seed

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// DefaultBatch is the number of documents per InsertMany.
const DefaultBatch = 1000

// InsertOptions tune Insert.
type InsertOptions struct {
	Batch   int  // documents per bulk insert; 0 means DefaultBatch
	Workers int  // concurrent inserters (generators: at most GOMAXPROCS); 0 means min(4, 2*GOMAXPROCS)
	Resume  bool // duplicate-key errors count as documents already there
	// Progress, if set, is called after every batch (never concurrently).
	Progress func(Progress)
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
	Elapsed  time.Duration
}

// InsertError is the error of an interrupted Insert: how far it got, and
// why it stopped.
type InsertError struct {
	Collection string
	Inserted   int64 // confirmed inserted (plus Skipped already there)
	Skipped    int64
	Total      int64
	Err        error
}

func (e *InsertError) Error() string {
	return fmt.Sprintf("collection %s: inserted %d of %d; re-run with --resume: %v", e.Collection, e.Inserted+e.Skipped, e.Total, e.Err)
}

func (e *InsertError) Unwrap() error { return e.Err }

// dupKey is MongoDB's duplicate key error code.
const dupKey = 11000

type batch struct {
	from int64
	docs []any
}

// Insert writes every document of c into coll with unordered InsertMany
// batches. Generators (one Worker each) and inserters run concurrently, with
// at most 2*Workers batches in memory, so memory does not grow with Len.
// Without Resume any write error stops the run; with Resume duplicate-key
// errors are counted as Skipped and any other write error stops the run.
// Every operation is bounded by the client's timeout (openTarget sets one) and
// by ctx.
func Insert(ctx context.Context, coll *mongo.Collection, c *Collection, opts InsertOptions) (InsertResult, error) {
	start := time.Now()
	size := opts.Batch
	if size <= 0 {
		size = DefaultBatch
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = min(4, 2*runtime.GOMAXPROCS(0))
	}
	total := c.Len()
	nBatches := (total + int64(size) - 1) / int64(size)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		inserted, skipped atomic.Int64
		nextBatch         atomic.Int64
		errOnce           sync.Once
		firstErr          error
		progressMu        sync.Mutex
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	ch := make(chan batch, workers)

	// Generation is cheap next to a round trip: a few generators keep the
	// inserters fed without taking CPU from an in-process server.
	var gen sync.WaitGroup
	for range min(workers, runtime.GOMAXPROCS(0)) {
		gen.Add(1)
		go func() {
			defer gen.Done()
			w := c.NewWorker()
			for {
				b := nextBatch.Add(1) - 1
				if b >= nBatches || ctx.Err() != nil {
					return
				}
				from := b * int64(size)
				to := min(from+int64(size), total)
				// Encoding here, beside generation, keeps it off the
				// inserters: the driver passes bson.Raw through as is.
				docs := make([]any, 0, to-from)
				for i := from; i < to; i++ {
					raw, err := bson.Marshal(w.Doc(i))
					if err != nil {
						fail(fmt.Errorf("document %d: %w", i, err))
						return
					}
					docs = append(docs, bson.Raw(raw))
				}
				select {
				case ch <- batch{from: from, docs: docs}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { gen.Wait(); close(ch) }()

	var ins sync.WaitGroup
	insOpts := options.InsertMany().SetOrdered(false)
	for range workers {
		ins.Add(1)
		go func() {
			defer ins.Done()
			for b := range ch {
				if ctx.Err() != nil {
					continue // drain so generators can finish
				}
				n, dup, err := insertBatch(ctx, coll, b.docs, insOpts, opts.Resume)
				inserted.Add(n)
				skipped.Add(dup)
				if err != nil {
					fail(err)
					continue
				}
				if opts.Progress != nil {
					progressMu.Lock()
					opts.Progress(Progress{Total: total, Inserted: inserted.Load(), Skipped: skipped.Load(), Elapsed: time.Since(start)})
					progressMu.Unlock()
				}
			}
		}()
	}
	ins.Wait()

	res := InsertResult{Inserted: inserted.Load(), Skipped: skipped.Load(), Elapsed: time.Since(start)}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr == nil && res.Inserted+res.Skipped != total {
		firstErr = fmt.Errorf("only %d of %d documents confirmed", res.Inserted+res.Skipped, total)
	}
	if firstErr != nil {
		return res, &InsertError{Collection: coll.Name(), Inserted: res.Inserted, Skipped: res.Skipped, Total: total, Err: firstErr}
	}
	return res, nil
}

// insertBatch inserts one batch and says how many documents were inserted
// and how many were already there. On an error that is not a set of write
// errors (network, timeout) the outcome of the batch is unknown and nothing
// of it is counted: a resumed run finds what did get in.
func insertBatch(ctx context.Context, coll *mongo.Collection, docs []any, o *options.InsertManyOptionsBuilder, resume bool) (inserted, dup int64, err error) {
	_, err = coll.InsertMany(ctx, docs, o)
	if err == nil {
		return int64(len(docs)), 0, nil
	}
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil || len(bwe.WriteErrors) == 0 {
		return 0, 0, err
	}
	// Unordered: every document without a write error went in.
	inserted = int64(len(docs) - len(bwe.WriteErrors))
	for _, we := range bwe.WriteErrors {
		if !resume || we.Code != dupKey {
			return inserted, dup, fmt.Errorf("document _id %v: %w", docID(docs, we.Index), err)
		}
		dup++
	}
	return inserted, dup, nil
}

func docID(docs []any, i int) any {
	if i < 0 || i >= len(docs) {
		return "?"
	}
	switch d := docs[i].(type) {
	case bson.Raw:
		return d.Lookup("_id")
	case bson.D:
		if len(d) > 0 {
			return d[0].Value
		}
	}
	return "?"
}
