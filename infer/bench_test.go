package infer_test

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/infer"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// BenchmarkInfer profiles the collection OIDKIT_BENCH_COLLECTION of
// database OIDKIT_BENCH_DB held in the data directory OIDKIT_BENCH_DATA_DIR
// (made beforehand with oidkit seed; see docs/benchmarks.md), beside a
// plain read of the same sample: the ratio is what profiling costs.
func BenchmarkInfer(b *testing.B) {
	dir, db, coll := os.Getenv("OIDKIT_BENCH_DATA_DIR"), os.Getenv("OIDKIT_BENCH_DB"), os.Getenv("OIDKIT_BENCH_COLLECTION")
	if dir == "" || db == "" || coll == "" {
		b.Skip("set OIDKIT_BENCH_DATA_DIR, OIDKIT_BENCH_DB and OIDKIT_BENCH_COLLECTION")
	}
	_, client := mongotest.Start(b, mongotest.DataDir(dir))
	ctx := context.Background()
	d := client.Database(db)
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			var bytes int
			n, _, err := fixtures.ReadSample(ctx, d.Collection(coll), 1<<40, rand.New(rand.NewPCG(1, 2)), func(doc bson.Raw) error {
				bytes += len(doc)
				return nil
			})
			if err != nil || n == 0 {
				b.Fatal(n, err)
			}
			b.ReportMetric(float64(n), "docs/op")
		}
	})
	b.Run("infer", func(b *testing.B) {
		for b.Loop() {
			ps, err := infer.Collect(ctx, d, []string{coll}, 1<<40, infer.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := infer.Plan("x", ps); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(ps[0].Sampled), "docs/op")
		}
	})
}
