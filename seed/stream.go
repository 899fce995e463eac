package seed

import (
	"context"
	"io"
	"runtime"
	"sort"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// DefaultBatch is the documents per batch of a Stream when its options do
// not say.
const DefaultBatch = 1000

// Stream yields a collection's documents as ordered batches of marshalled
// BSON. Generation runs ahead of the consumer in a bounded number of
// goroutines (at most two batches each), so memory does not grow with the
// number of documents. Next is safe for concurrent use: several consumers may
// share one stream and still receive the batches in order, each once.
type Stream struct {
	c      *Collection
	ranges []Range
	starts []int64 // starts[k]: number of the first batch of ranges[k]
	size   int64
	total  int64 // documents
	n      int64 // batches

	ctx    context.Context
	cancel context.CancelFunc
	chans  []chan result
	wg     sync.WaitGroup

	mu   sync.Mutex
	next int64
	err  error
}

type result struct {
	b   Batch
	err error
}

// Stream starts generating the documents opts selects. The caller must call
// Close when done (also after an error), and Next until it returns an error
// to see every batch.
func (c *Collection) Stream(ctx context.Context, opts StreamOptions) *Stream {
	size := int64(opts.Batch)
	if size <= 0 {
		size = DefaultBatch
	}
	ranges := opts.Ranges
	if ranges == nil {
		ranges = []Range{{From: 0, To: c.Len()}}
	}
	s := &Stream{c: c, size: size}
	for _, r := range ranges {
		r = r.Within(c.Len())
		if r.Len() == 0 {
			continue
		}
		s.ranges = append(s.ranges, r)
		s.starts = append(s.starts, s.n)
		s.n += (r.Len() + size - 1) / size
		s.total += r.Len()
	}
	workers := int64(opts.Workers)
	if workers <= 0 {
		workers = int64(min(runtime.GOMAXPROCS(0), 8))
	}
	workers = max(min(workers, s.n), 1)
	s.ctx, s.cancel = context.WithCancel(ctx)
	ctx = s.ctx
	s.chans = make([]chan result, workers)
	for k := range workers {
		ch := make(chan result, 2)
		s.chans[k] = ch
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer close(ch)
			w, enc := c.NewWorker(), newBatchEncoder(c.Name())
			w.reuse = true // each document is marshalled before the next is built
			for b := k; b < s.n; b += workers {
				res := s.produce(w, enc, b, opts.Check)
				select {
				case ch <- res:
				case <-ctx.Done():
					return
				}
				if res.err != nil {
					return
				}
			}
		}()
	}
	return s
}

// Len is the number of documents the stream yields in all.
func (s *Stream) Len() int64 { return s.total }

// bounds is the document range of batch b.
func (s *Stream) bounds(b int64) Range {
	k := sort.Search(len(s.starts), func(k int) bool { return s.starts[k] > b }) - 1
	r := s.ranges[k]
	from := r.From + (b-s.starts[k])*s.size
	return Range{From: from, To: min(from+s.size, r.To)}
}

func (s *Stream) produce(w *Worker, enc *batchEncoder, b int64, check func(bson.Raw) error) result {
	r := s.bounds(b)
	docs, err := enc.encode(w, r, check)
	if err != nil {
		return result{err: err}
	}
	return result{b: Batch{From: r.From, Docs: docs}}
}

// Next returns the next batch, or io.EOF after the last one. Any other error
// (a document that failed to marshal or check, the context's error) ends the
// stream: every later call returns it too.
func (s *Stream) Next() (Batch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return Batch{}, s.err
	}
	if s.next >= s.n {
		s.err = io.EOF
		return Batch{}, s.err
	}
	res, ok := <-s.chans[s.next%int64(len(s.chans))]
	switch {
	case !ok:
		s.err = context.Cause(s.ctx)
		if s.err == nil {
			s.err = context.Canceled
		}
	case res.err != nil:
		s.err = res.err
	default:
		s.next++
		return res.b, nil
	}
	return Batch{}, s.err
}

// Close stops generation and waits for the generating goroutines to end.
func (s *Stream) Close() {
	s.cancel()
	for _, ch := range s.chans {
		for range ch { // drain so senders finish
		}
	}
	s.wg.Wait()
}
