package mongowrite

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Prefetched is a cursor read on a goroutine of its own, one server batch
// at a time, so that the server answers the next getMore while the caller
// works on the documents before (a cursor asks for the next batch only
// when the last one is used up). The goroutine may also run a function on
// each document (a check), beside the caller's work.
type Prefetched struct {
	batches chan Batch
	stop    context.CancelFunc
	done    chan struct{}
	closing atomic.Bool
	err     error
}

// Batch is the documents of one server batch, in the cursor's
// order, and what the function of Prefetch returned for each (nil without
// one).
type Batch struct {
	Docs []bson.Raw
	Errs []error
}

// Prefetch starts reading cur; each, if not nil, runs on every document
// (on two goroutines at once: it must be safe for that). Close must be
// called, and before the cursor is closed.
func Prefetch(ctx context.Context, cur *mongo.Cursor, each func(bson.Raw) error) *Prefetched {
	ctx, stop := context.WithCancel(ctx)
	p := &Prefetched{batches: make(chan Batch, 2), stop: stop, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer close(p.batches)
		err := p.read(ctx, cur, each)
		if !p.closing.Load() {
			p.err = err
		}
	}()
	return p
}

func (p *Prefetched) read(ctx context.Context, cur *mongo.Cursor, each func(bson.Raw) error) error {
	var b Batch
	send := func() error {
		select {
		case p.batches <- b:
			b = Batch{}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for cur.Next(ctx) {
		if b.Docs == nil {
			b.Docs = make([]bson.Raw, 0, cur.RemainingBatchLength()+1)
		}
		// Kept, not copied: the driver reads each reply into a buffer of
		// its own and a document is a slice of it, so it stays as it is
		// after the next getMore (TestPrefetchKeepsEveryBatch). Copying
		// was a third of this goroutine's work, and it is the one that
		// paces a whole-collection read.
		b.Docs = append(b.Docs, cur.Current[:len(cur.Current):len(cur.Current)])
		if cur.RemainingBatchLength() == 0 {
			b.Errs = runEach(b.Docs, each)
			if err := send(); err != nil {
				return err
			}
		}
	}
	if len(b.Docs) > 0 {
		b.Errs = runEach(b.Docs, each)
		if err := send(); err != nil {
			return err
		}
	}
	return cur.Err()
}

// runEach runs each on the documents of a batch, the two halves at once
// (each is a check that costs about what writing a document does), and
// returns what it said of each; nil without each.
func runEach(docs []bson.Raw, each func(bson.Raw) error) []error {
	if each == nil {
		return nil
	}
	errs := make([]error, len(docs))
	check := func(from, to int) {
		for i := from; i < to; i++ {
			errs[i] = each(docs[i])
		}
	}
	half := len(docs) / 2
	var wg sync.WaitGroup
	if half >= 64 {
		wg.Go(func() { check(half, len(docs)) })
	} else {
		half = len(docs)
	}
	check(0, half)
	wg.Wait()
	return errs
}

// Next returns the next batch; false after the last.
func (p *Prefetched) Next() (Batch, bool) {
	b, ok := <-p.batches
	return b, ok
}

// All yields the documents of the batches in turn.
func (p *Prefetched) All() iter.Seq[bson.Raw] {
	return func(yield func(bson.Raw) bool) {
		for b, ok := p.Next(); ok; b, ok = p.Next() {
			for _, d := range b.Docs {
				if !yield(d) {
					return
				}
			}
		}
	}
}

// Close stops the reading if the batches were not all taken, waits for it
// and returns the cursor's error (or the context's); stopping it early is
// not an error.
func (p *Prefetched) Close() error {
	select {
	case <-p.done:
	default:
		p.closing.Store(true)
		p.stop()
		<-p.done
	}
	p.stop()
	return p.err
}
