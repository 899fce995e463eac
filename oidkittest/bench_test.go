package oidkittest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

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

func benchNew(b *testing.B, opts ...Option) { benchNewPaced(b, false, opts...) }

// benchNewPaced times New; with paced, each New comes once the clone maker
// has ended (outside the timer), as in tests that do some work between
// them: the clone then takes the spare copy made meanwhile.
func benchNewPaced(b *testing.B, paced bool, opts ...Option) {
	warm := &iterTB{TB: b}
	New(warm, opts...) // the server and the template
	warm.done()
	e, _ := mustBackendTB(b).(*embeddedBackend)
	if paced && e == nil {
		b.Skip("spares are the embedded server's")
	}
	b.ReportAllocs()
	for b.Loop() {
		it := &iterTB{TB: b}
		db := New(it, opts...)
		// The first round trip: a clone's client connects on it.
		if err := db.RunCommand(context.Background(), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		it.done()
		if paced {
			waitMaker(b, e)
		}
		b.StartTimer()
	}
}

func BenchmarkNewEmpty(b *testing.B) { benchNew(b) }

// BenchmarkNewPlan10k times New with a plan whose template exists, one
// right after the other: each waits for the copy of the template.
func BenchmarkNewPlan10k(b *testing.B) { benchNew(b, WithPlan(usersPlan(10000))) }

// BenchmarkNewPlan10kPaced is the same with time between the tests: each
// takes the spare copy.
func BenchmarkNewPlan10kPaced(b *testing.B) { benchNewPaced(b, true, WithPlan(usersPlan(10000))) }

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

// Building a template: a server of its own, the plan loaded (seed.Insert),
// the server stopped.
func BenchmarkTemplateBuild10k(b *testing.B) {
	ct, err := newContent(&config{plans: []*seed.Plan{usersPlan(10000)}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := buildTemplate(b.TempDir(), ct); err != nil {
			b.Fatal(err)
		}
	}
}

// The other clone the embedded server allows: the template's documents,
// read once into memory, inserted into a fresh database of the shared
// server (what OIDKIT_TEST_URI's clones do).
func BenchmarkCloneFromMemory10k(b *testing.B) {
	warm := &iterTB{TB: b}
	src := New(warm)
	ct, err := newContent(&config{plans: []*seed.Plan{usersPlan(10000)}})
	if err != nil {
		b.Fatal(err)
	}
	if err := ct.load(context.Background(), src, true); err != nil {
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

// FerretDB refuses the server-side copies ($out, $merge), so the embedded
// server has no clone by aggregation.
func TestEmbeddedRefusesOut(t *testing.T) {
	b, _ := sharedBackend()
	if _, ok := b.(*embeddedBackend); !ok {
		t.Skip("about the embedded server")
	}
	db := New(t)
	if _, err := db.Collection("a").InsertOne(t.Context(), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"$out", "$merge"} {
		_, err := db.Collection("a").Aggregate(t.Context(), bson.A{bson.D{{Key: stage, Value: "b"}}})
		if err == nil {
			t.Errorf("%s: accepted; a clone by aggregation would be possible", stage)
		}
	}
}

// The template build and the plain InsertMany of its documents, one after
// the other in every iteration, so both meet the same load: the ratio is
// the goal's (≤ 1.2).
func BenchmarkTemplateVsPlain10k(b *testing.B) {
	docs := docs10k(b)
	ct, err := newContent(&config{plans: []*seed.Plan{usersPlan(10000)}})
	if err != nil {
		b.Fatal(err)
	}
	warm := &iterTB{TB: b}
	New(warm)
	warm.done()
	var tplTime, plainTime time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := buildTemplate(b.TempDir(), ct); err != nil {
			b.Fatal(err)
		}
		tplTime += time.Since(t0)
		it := &iterTB{TB: b}
		db := New(it)
		coll := db.Collection("users")
		t0 = time.Now()
		for i := 0; i < len(docs); i += 1000 {
			if _, err := coll.InsertMany(context.Background(), docs[i:i+1000], options.InsertMany().SetOrdered(false)); err != nil {
				b.Fatal(err)
			}
		}
		plainTime += time.Since(t0)
		b.StopTimer()
		it.done()
		b.StartTimer()
	}
	b.ReportMetric(float64(tplTime.Nanoseconds())/float64(b.N), "template-ns/op")
	b.ReportMetric(float64(plainTime.Nanoseconds())/float64(b.N), "plain-ns/op")
	b.ReportMetric(float64(tplTime)/float64(plainTime), "template/plain")
}

// A template read from the cache on disk, as a second test binary reads
// it: the entry's SQLite bytes copied out and checked against its SHA-256.
func BenchmarkTemplateFromCache10k(b *testing.B) {
	ct, err := newContent(&config{plans: []*seed.Plan{usersPlan(10000)}})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	src := filepath.Join(dir, "tpl"+sqliteExt)
	if err := buildTemplate(dir, ct); err != nil {
		b.Fatal(err)
	}
	cache := b.TempDir()
	cachePut(cache, "k", src)
	b.ReportAllocs()
	for b.Loop() {
		dst := filepath.Join(b.TempDir(), "tpl"+sqliteExt)
		if !cacheGet(cache, "k", dst) {
			b.Fatal("no entry")
		}
	}
}
