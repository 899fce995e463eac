package mongowrite_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

func benchCollection(b *testing.B, kind string, n int64) *seed.Collection {
	b.Helper()
	p := &seed.Plan{Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "c", Kind: kind, Count: n}}}
	if kind == seed.KindOrder {
		p.Collections = append(p.Collections,
			seed.CollectionSpec{Name: "users", Kind: seed.KindUser, Count: n, RefOnly: true},
			seed.CollectionSpec{Name: "products", Kind: seed.KindProduct, Count: max(1, n/10), RefOnly: true})
	}
	return build(b, p).Collection("c")
}

// BenchmarkInsert compares mongowrite.Insert with the driver's InsertMany of
// documents generated beforehand (generation not timed), in the same run,
// into the embedded server. Each iteration writes benchN users once per
// variant, each into a fresh database, in turn, so that a change of machine
// load hits every variant alike. Metrics are docs/s per variant and the ratio
// of mongowrite.Insert to the best driver variant.
func BenchmarkInsert(b *testing.B) {
	const benchN = 5000
	_, client := server(b, b.TempDir())
	c := benchCollection(b, seed.KindUser, benchN)
	pre := make([]any, benchN)
	for i := range pre {
		pre[i] = c.Doc(int64(i))
	}
	insertMany := func(coll *mongo.Collection, workers int) error {
		next := make(chan int, benchN/seed.DefaultBatch+1)
		for k := 0; k < benchN; k += seed.DefaultBatch {
			next <- k
		}
		close(next)
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range next {
					if _, err := coll.InsertMany(context.Background(), pre[k:min(k+seed.DefaultBatch, benchN)], options.InsertMany().SetOrdered(false)); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		return <-errs
	}
	variants := []struct {
		name string
		run  func(*mongo.Collection) error
	}{
		{"driver-1w", func(coll *mongo.Collection) error { return insertMany(coll, 1) }},
		{"seed-1w", func(coll *mongo.Collection) error {
			_, err := mongowrite.Insert(context.Background(), coll, c, mongowrite.InsertOptions{Workers: 1})
			return err
		}},
		{"driver-4w", func(coll *mongo.Collection) error { return insertMany(coll, 4) }},
		{"seed-4w", func(coll *mongo.Collection) error {
			_, err := mongowrite.Insert(context.Background(), coll, c, mongowrite.InsertOptions{Workers: 4})
			return err
		}},
	}
	totals := make([]time.Duration, len(variants))
	var ratios1, ratios4 []float64
	run := 0
	for b.Loop() {
		round := make([]time.Duration, len(variants))
		for k, v := range variants {
			run++
			db := client.Database(fmt.Sprintf("bench%d", run))
			st := time.Now()
			if err := v.run(db.Collection("users")); err != nil {
				b.Fatal(err)
			}
			round[k] = time.Since(st)
			totals[k] += round[k]
			_ = db.Drop(context.Background())
		}
		ratios1 = append(ratios1, round[0].Seconds()/round[1].Seconds())
		ratios4 = append(ratios4, round[2].Seconds()/round[3].Seconds())
		b.Logf("round %d: docs/s driver-1w %.0f seed-1w %.0f driver-4w %.0f seed-4w %.0f", len(ratios1),
			benchN/round[0].Seconds(), benchN/round[1].Seconds(), benchN/round[2].Seconds(), benchN/round[3].Seconds())
	}
	b.ReportMetric(median(ratios1), "median-round-seed/driver-1w")
	b.ReportMetric(median(ratios4), "median-round-seed/driver-4w")
	rate := make([]float64, len(variants))
	for k, v := range variants {
		rate[k] = float64(benchN*b.N) / totals[k].Seconds()
		b.ReportMetric(rate[k], v.name+"-docs/s")
	}
	b.ReportMetric(rate[1]/rate[0], "seed/driver-1w")
	b.ReportMetric(rate[3]/rate[2], "seed/driver-4w")
	b.ReportMetric(0, "ns/op")
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
