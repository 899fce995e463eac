package seed

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// drain reads a stream to its end and checks that batches come in order of
// their ranges.
func drain(t *testing.T, s *Stream) []Batch {
	t.Helper()
	var out []Batch
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, b)
	}
}

func TestStreamIsDocInOrder(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "users", Kind: KindUser, Count: 1003}, 7)
	for _, tc := range []struct {
		name    string
		opts    StreamOptions
		indexes []int64
	}{
		{"whole", StreamOptions{Batch: 100, Workers: 3}, seq(0, 1003)},
		{"one worker", StreamOptions{Batch: 1, Workers: 1}, seq(0, 1003)},
		{"ranges", StreamOptions{Batch: 7, Workers: 4, Ranges: []Range{{From: 990, To: 2000}, {From: 5, To: 20}, {From: -3, To: 2}, {From: 30, To: 30}}}, append(append(seq(990, 1003), seq(5, 20)...), seq(0, 2)...)},
		{"more workers than batches", StreamOptions{Batch: 5000, Workers: 8}, seq(0, 1003)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := c.Stream(context.Background(), tc.opts)
			defer s.Close()
			if s.Len() != int64(len(tc.indexes)) {
				t.Fatalf("Len = %d; want %d", s.Len(), len(tc.indexes))
			}
			var got []int64
			w := c.NewWorker()
			for _, b := range drain(t, s) {
				if tc.opts.Batch > 0 && len(b.Docs) > tc.opts.Batch {
					t.Fatalf("batch at %d has %d documents; want at most %d", b.From, len(b.Docs), tc.opts.Batch)
				}
				for k, raw := range b.Docs {
					i := b.From + int64(k)
					want, err := bson.Marshal(w.Doc(i))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(raw, want) {
						t.Fatalf("document %d differs from Doc(%d)", i, i)
					}
					got = append(got, i)
				}
			}
			if len(got) != len(tc.indexes) {
				t.Fatalf("got %d documents; want %d", len(got), len(tc.indexes))
			}
			for k := range got {
				if got[k] != tc.indexes[k] {
					t.Fatalf("document %d of the stream is %d; want %d", k, got[k], tc.indexes[k])
				}
			}
		})
	}
}

func seq(from, to int64) []int64 {
	var out []int64
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func TestStreamConcurrentConsumersSeeEachBatchOnce(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "emp", Kind: KindEmployee, Count: 5000}, 3)
	s := c.Stream(context.Background(), StreamOptions{Batch: 37, Workers: 2})
	defer s.Close()
	var mu sync.Mutex
	seen := make(map[int64]int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				b, err := s.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Errorf("Next: %v", err)
					}
					return
				}
				mu.Lock()
				for i := b.From; i < b.Range().To; i++ {
					seen[i]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 5000 {
		t.Fatalf("saw %d distinct documents; want 5000", len(seen))
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("document %d seen %d times", i, n)
		}
	}
}

func TestStreamCheckErrorNamesTheDocument(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "users", Kind: KindUser, Count: 500}, 1)
	bad := errors.New("refused")
	calls := 0
	var mu sync.Mutex
	s := c.Stream(context.Background(), StreamOptions{Batch: 10, Workers: 1, Check: func(bson.Raw) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 123 {
			return bad
		}
		return nil
	}})
	defer s.Close()
	var docs int
	var err error
	for {
		var b Batch
		b, err = s.Next()
		if err != nil {
			break
		}
		docs += len(b.Docs)
	}
	var de *DocError
	if !errors.As(err, &de) || !errors.Is(err, bad) || de.Index != 122 || de.Collection != "users" {
		t.Fatalf("err = %v; want a DocError for users document 122 wrapping the check's error", err)
	}
	if docs != 120 {
		t.Fatalf("%d documents before the error; want the 120 of the complete batches", docs)
	}
	if _, again := s.Next(); !errors.Is(again, bad) {
		t.Fatalf("Next after the error = %v; want the same error", again)
	}
}

func TestStreamStopsOnCancel(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "users", Kind: KindUser, Count: 100000}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	s := c.Stream(ctx, StreamOptions{Batch: 10})
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	cancel()
	var err error
	for range 1000 {
		if _, err = s.Next(); err != nil {
			break
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after cancel = %v; want context.Canceled", err)
	}
	s.Close() // must return: the generators have stopped
}

// The documents of a batch share one buffer; a consumer appending to one
// (the driver may, to add fields) must not overwrite the next.
func TestStreamDocsDoNotOverlap(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "users", Kind: KindUser, Count: 3}, 7)
	s := c.Stream(context.Background(), StreamOptions{})
	defer s.Close()
	b, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	next := bytes.Clone(b.Docs[1])
	_ = append(b.Docs[0], 0xff, 0xff, 0xff, 0xff)
	if !bytes.Equal(b.Docs[1], next) {
		t.Fatalf("appending to document 0 changed document 1")
	}
}

// A Generator's documents are a Stream's, byte for byte, whatever the
// ranges and however often its buffers are reused; kinds written
// directly, built as documents and templates alike.
func TestGeneratorIsStream(t *testing.T) {
	tmpl, err := ParseTemplate("t", []byte(`{"name": "{name}", "n": "{int:1:9}", "tags": ["{word}", "{word}"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []CollectionSpec{
		{Name: "users", Kind: KindUser, Count: 700},
		{Name: "orders", Kind: KindEmployee, Count: 300},
		{Name: "t", Template: tmpl, Count: 300},
	} {
		c := buildOne(t, spec, 11)
		var want []bson.Raw
		for _, b := range drain(t, c.Stream(context.Background(), StreamOptions{})) {
			want = append(want, b.Docs...)
		}
		g := c.NewGenerator()
		for _, r := range []Range{{From: 0, To: 1}, {From: 5, To: 260}, {From: 259, To: 300}, {From: -4, To: 3}, {From: int64(len(want)) - 2, To: int64(len(want)) + 9}, {From: 9, To: 9}, {From: 0, To: int64(len(want))}} {
			docs, err := g.Encode(r)
			if err != nil {
				t.Fatalf("%s %v: %v", spec.Name, r, err)
			}
			from, to := max(r.From, 0), min(r.To, int64(len(want)))
			if int64(len(docs)) != max(to-from, 0) {
				t.Fatalf("%s %v: %d documents, want %d", spec.Name, r, len(docs), max(to-from, 0))
			}
			for k, d := range docs {
				if !bytes.Equal(d, want[from+int64(k)]) {
					t.Fatalf("%s %v: document %d differs from the stream's", spec.Name, r, from+int64(k))
				}
			}
		}
	}
}
