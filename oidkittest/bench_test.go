package oidkittest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/oidkittest/tplcache"
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
	colls, err := readColls(context.Background(), src, ct.collections())
	if err != nil {
		b.Fatal(err)
	}
	warm.done()
	b.ReportAllocs()
	for b.Loop() {
		it := &iterTB{TB: b}
		if err := insertColls(context.Background(), New(it), colls, mongowrite.WorkersFor(rules.MongoDB)); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		it.done()
		b.StartTimer()
	}
}

// BenchmarkTemplateCache times the first New of a 10,000-document plan in
// a test binary (a backend with no template in memory; starting its server
// is not timed), in the same run: with the disk cache off (generate and
// load, as before the cache), cold (the same, then read the template back
// and write its entry) and warm (copy the entry in), on the embedded
// server and on OIDKIT_TEST_URI's backend (here an embedded server reached
// by its URI).
func BenchmarkTemplateCache(b *testing.B) {
	plan := usersPlan(10000)
	for _, backendName := range []string{"embedded", "uri"} {
		for _, mode := range []string{"off", "cold", "warm"} {
			b.Run(backendName+"/"+mode, func(b *testing.B) {
				cacheDir := b.TempDir()
				b.Setenv(tplcache.DirEnv, cacheDir)
				b.Setenv(tplcache.MaxEnv, "1GiB")
				b.Setenv(tplcache.ModeEnv, map[string]string{"off": "off"}[mode])
				if mode == "warm" { // the entry, made once
					benchFirstNew(b, backendName, plan)
				}
				b.ReportAllocs()
				before := built.Load()
				var cpu time.Duration
				for b.Loop() {
					b.StopTimer()
					if mode == "cold" {
						if err := os.RemoveAll(cacheDir); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
					cpu += benchFirstNew(b, backendName, plan)
				}
				b.ReportMetric(float64(built.Load()-before)/float64(b.N), "builds/op")
				b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
				var size int64
				files, _ := filepath.Glob(filepath.Join(cacheDir, "templates", "*.tpl"))
				for _, f := range files {
					if fi, err := os.Stat(f); err == nil {
						size += fi.Size()
					}
				}
				b.ReportMetric(float64(size), "entry-bytes")
			})
		}
	}
}

// benchFirstNew times the first New of plan on a fresh backend, with the
// server's start and every cleanup outside the timer, and returns the CPU
// time the process spent in it (client and server: on a loaded machine a
// steadier figure than the time that passed).
func benchFirstNew(b *testing.B, backendName string, plan *seed.Plan) time.Duration {
	b.StopTimer()
	it := &iterTB{TB: b}
	var be backend
	if backendName == "uri" {
		be = freshRemote(it)
	} else {
		e := freshEmbedded(it)
		if _, _, err := e.shared(); err != nil {
			b.Fatal(err)
		}
		be = e
	}
	b.StartTimer()
	cpu0 := processCPU()
	db := newOn(it, be, WithPlan(plan))
	cpu := processCPU() - cpu0
	b.StopTimer()
	if n, err := db.Collection("users").EstimatedDocumentCount(context.Background()); err != nil || n != 10000 {
		b.Fatalf("%d documents, %v", n, err)
	}
	it.done()
	b.StartTimer()
	return cpu
}

// processCPU is the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
