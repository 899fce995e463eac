package oidkittest

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// The benchmarks time New plus one round trip, with the cleanup (drop,
// server stop) outside the timer.

// iterTB runs the cleanups of one iteration when told, so a benchmark
// times New alone and each iteration leaves nothing behind.
type iterTB struct {
	testing.TB
	cleanups []func()
}

func (t *iterTB) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }
func (t *iterTB) done() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	t.cleanups = nil
}

// benchNew times New and the first round trip on its database.
func benchNew(b *testing.B, opts ...Option) {
	warm := &iterTB{TB: b}
	New(warm, opts...) // the server and the template
	warm.done()
	b.ReportAllocs()
	for b.Loop() {
		it := &iterTB{TB: b}
		db := New(it, opts...)
		if err := db.RunCommand(context.Background(), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		it.done()
		b.StartTimer()
	}
}

func BenchmarkNewEmpty(b *testing.B) { benchNew(b) }

// BenchmarkNewPlan times New with a plan whose template exists, of 100
// and of 10,000 documents in the same run: a clone is a snapshot, so the
// goal is that 10,000 cost at most 2× 100.
func BenchmarkNewPlan(b *testing.B) {
	for _, n := range []int64{100, 10000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) { benchNew(b, WithPlan(usersPlan(n))) })
	}
}

// docs10k are the plan's documents, generated before any timing.
func docs10k(b *testing.B) []any {
	ds, err := usersPlan(10000).Build()
	if err != nil {
		b.Fatal(err)
	}
	s := ds.Collection("users").Stream(context.Background(), seed.StreamOptions{})
	defer s.Close()
	var docs []any
	for {
		batch, err := s.Next()
		if err != nil {
			break
		}
		for _, d := range batch.Docs {
			docs = append(docs, d)
		}
	}
	if len(docs) != 10000 {
		b.Fatalf("%d documents", len(docs))
	}
	return docs
}

// The plain way: InsertMany of the same pre-generated documents into a
// fresh database of the shared embedded server, batches of 1,000.
func BenchmarkPlainInsertMany10k(b *testing.B) {
	docs := docs10k(b)
	warm := &iterTB{TB: b}
	New(warm)
	warm.done()
	b.ReportAllocs()
	for b.Loop() {
		it := &iterTB{TB: b}
		db := New(it)
		coll := db.Collection("users")
		for i := 0; i < len(docs); i += 1000 {
			if _, err := coll.InsertMany(context.Background(), docs[i:i+1000], options.InsertMany().SetOrdered(false)); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		it.done()
		b.StartTimer()
	}
}

// The clone OIDKIT_TEST_URI's backend makes: the template's documents,
// read once into memory, inserted into a fresh database (here of the
// shared embedded server), beside BenchmarkNewPlan's snapshots.
func BenchmarkCloneFromMemory10k(b *testing.B) {
	warm := &iterTB{TB: b}
	src := New(warm)
	ct, err := newContent(&config{plans: []*seed.Plan{usersPlan(10000)}})
	if err != nil {
		b.Fatal(err)
	}
	if err := ct.load(context.Background(), src, rules.FerretDB); err != nil {
		b.Fatal(err)
	}
	var tpl memTemplate
	if err := tpl.read(context.Background(), src, ct.collections()); err != nil {
		b.Fatal(err)
	}
	warm.done()
	b.ReportAllocs()
	for b.Loop() {
		it := &iterTB{TB: b}
		if err := tpl.insert(context.Background(), New(it)); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		it.done()
		b.StartTimer()
	}
}
