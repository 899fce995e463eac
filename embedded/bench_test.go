//go:build linux

package embedded

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	_ "modernc.org/sqlite"

	"github.com/oidkit/oidkit/seed"
)

// benchDocs is the number of documents each benchmark path writes;
// OIDKIT_BENCH_DOCS overrides it.
func benchDocs(b *testing.B) int {
	if v := os.Getenv("OIDKIT_BENCH_DOCS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 {
			b.Fatalf("OIDKIT_BENCH_DOCS=%q: expected a number of at least 1000", v)
		}
		return n
	}
	return 100_000
}

// BenchmarkInsert writes the same pre-generated users into a fresh server
// by the driver's InsertMany and by insert commands of pre-marshalled
// documents, over loopback TCP and over a Unix socket, in one run.
func BenchmarkInsert(b *testing.B) {
	n := benchDocs(b)
	ds, err := (&seed.Plan{Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: int64(n)}}}).Build()
	if err != nil {
		b.Fatal(err)
	}
	s := ds.Collection("users").Stream(context.Background(), seed.StreamOptions{})
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
	s.Close()
	for _, socket := range []bool{false, true} {
		for _, command := range []bool{false, true} {
			name := fmt.Sprintf("socket=%v/command=%v", socket, command)
			b.Run(name, func(b *testing.B) {
				var total cost
				for b.Loop() {
					total = total.add(embeddedInsert(b, Options{DataDir: b.TempDir(), socket: socket}, func(coll *mongo.Collection) error {
						if command {
							return insertCommand(coll, docs, 0)
						}
						return insertMany(coll, docs, 0)
					}))
				}
				b.ReportMetric(float64(len(docs)*b.N)/total.wall.Seconds(), "docs/s")
				b.ReportMetric(float64(total.cpu.Microseconds())/float64(len(docs)*b.N), "cpu-µs/doc")
			})
		}
	}
}

// cost is the wall-clock and CPU time (of the whole process: client,
// server and collector) of one piece of work.
type cost struct{ wall, cpu time.Duration }

func (c cost) add(d cost) cost      { return cost{c.wall + d.wall, c.cpu + d.cpu} }
func (c cost) rate(n int) float64   { return float64(n) / c.wall.Seconds() }
func (c cost) cpuPer(n int) float64 { return float64(c.cpu.Microseconds()) / float64(n) }
func measure(f func()) cost {
	cpu0, t0 := cpuTime(), time.Now()
	f()
	return cost{time.Since(t0), cpuTime() - cpu0}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadavg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(data))
}

// insertMany is the driver's InsertMany in batches of batch documents
// (0: seed.DefaultBatch).
func insertMany(coll *mongo.Collection, docs []any, batch int) error {
	if batch <= 0 {
		batch = seed.DefaultBatch
	}
	for k := 0; k < len(docs); k += batch {
		if _, err := coll.InsertMany(context.Background(), docs[k:min(k+batch, len(docs))]); err != nil {
			return err
		}
	}
	return nil
}

// insertCommand sends docs (each a bson.Raw) in insert commands of batch
// documents (0: seed.DefaultBatch), unordered, through RunCommand: the
// driver copies the command once and neither re-encodes nor inspects the
// documents. It fails unless the server reports every document inserted.
func insertCommand(coll *mongo.Collection, docs []any, batch int) error {
	if batch <= 0 {
		batch = seed.DefaultBatch
	}
	for k := 0; k < len(docs); k += batch {
		part := docs[k:min(k+batch, len(docs))]
		var reply struct {
			N           int64      `bson:"n"`
			WriteErrors []bson.Raw `bson:"writeErrors"`
		}
		err := coll.Database().RunCommand(context.Background(), bson.D{{Key: "insert", Value: coll.Name()}, {Key: "documents", Value: part}, {Key: "ordered", Value: false}}).Decode(&reply)
		if err != nil {
			return err
		}
		if reply.N != int64(len(part)) || len(reply.WriteErrors) > 0 {
			return fmt.Errorf("insert command: %d of %d inserted, write errors %v", reply.N, len(part), reply.WriteErrors)
		}
	}
	return nil
}

// embeddedInsert starts a server with opts, runs write against a
// collection and returns how long write took.
func embeddedInsert(b *testing.B, opts Options, write func(*mongo.Collection) error) cost {
	b.Helper()
	s, err := Start(opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	coll := c.Database("bench").Collection("users")
	if err := c.Database("bench").CreateCollection(context.Background(), "users"); err != nil {
		b.Fatal(err)
	}
	var err2 error
	c2 := measure(func() { err2 = write(coll) })
	if err2 != nil {
		b.Fatal(err2)
	}
	return c2
}
