package mongowrite_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

// benchDocs is the documents per collection (per unit of the shop plan's n)
// of one iteration of BenchmarkSeedVsDriver.
const benchDocs = 2000

// benchTarget connects to OIDKIT_BENCH_URI (an `oidkit server` in another
// process, say) or, when it is unset, to an embedded server in this process.
func benchTarget(b *testing.B) *mongo.Client {
	b.Helper()
	uri := os.Getenv("OIDKIT_BENCH_URI")
	if uri == "" {
		_, client := server(b, b.TempDir())
		return client
	}
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(2 * time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client
}

// benchPlans are the built-in kinds, the shop plan, and "tiny" (documents of
// only an int _id): the server's ceiling, where the client's share is largest.
func benchPlans(b *testing.B) map[string]*seed.Dataset {
	plans := map[string]*seed.Plan{}
	for _, kind := range seed.Kinds() {
		p := &seed.Plan{Collections: []seed.CollectionSpec{{Name: "c", Kind: kind, Count: benchDocs}}}
		if kind == seed.KindOrder {
			p.Collections = append(p.Collections,
				seed.CollectionSpec{Name: "users", Kind: seed.KindUser, Count: benchDocs, RefOnly: true},
				seed.CollectionSpec{Name: "products", Kind: seed.KindProduct, Count: benchDocs / 10, RefOnly: true})
		}
		plans[kind] = p
	}
	shop, err := seed.BuiltinPlan("shop", benchDocs/4)
	if err != nil {
		b.Fatal(err)
	}
	plans["shop"] = shop
	tiny, err := seed.ParseTemplate("tiny", []byte(`{}`))
	if err != nil {
		b.Fatal(err)
	}
	id, _ := seed.ParseIDStrategy("int")
	plans["tiny"] = &seed.Plan{Collections: []seed.CollectionSpec{{Name: "c", Template: tiny, Count: 5 * benchDocs, ID: id}}}
	out := map[string]*seed.Dataset{}
	for name, p := range plans {
		p.Seed, p.Seeded = 1, true
		out[name] = build(b, p)
	}
	return out
}

// written are the collections of ds that are written (not reference-only).
func written(ds *seed.Dataset) []*seed.Collection {
	var cs []*seed.Collection
	for _, c := range ds.Collections() {
		if !c.RefOnly() {
			cs = append(cs, c)
		}
	}
	return cs
}

// BenchmarkSeedVsDriver writes the same documents with mongowrite.Insert (which
// generates them as it goes) and with the driver's InsertMany of documents
// generated beforehand (bson.D, generation not timed; the driver marshals
// them), both with one goroutine in unordered batches of DefaultBatch, into
// a fresh database each iteration. Run with -count: the two sit side by side
// in every round, so `benchstat -col /impl` gives the ratio.
func BenchmarkSeedVsDriver(b *testing.B) {
	client := benchTarget(b)
	plans := benchPlans(b)
	run := 0
	fresh := func() *mongo.Database {
		run++
		return client.Database(fmt.Sprintf("bench_%d_%d", os.Getpid(), run))
	}
	for _, name := range append(seed.Kinds(), "shop", "tiny") {
		ds := plans[name]
		cols := written(ds)
		pre := make([][]any, len(cols))
		var total int64
		for k, c := range cols {
			for i := range c.Len() {
				pre[k] = append(pre[k], c.Doc(i))
			}
			total += c.Len()
		}
		impls := []struct {
			name  string
			write func(db *mongo.Database) error
		}{
			{"driver", func(db *mongo.Database) error {
				for k, c := range cols {
					for from := 0; from < len(pre[k]); from += seed.DefaultBatch {
						docs := pre[k][from:min(from+seed.DefaultBatch, len(pre[k]))]
						if _, err := db.Collection(c.Name()).InsertMany(context.Background(), docs, options.InsertMany().SetOrdered(false)); err != nil {
							return err
						}
					}
				}
				return nil
			}},
			{"seed", func(db *mongo.Database) error {
				for _, c := range cols {
					if _, err := mongowrite.Insert(context.Background(), db.Collection(c.Name()), c, mongowrite.InsertOptions{Workers: 1}); err != nil {
						return err
					}
				}
				return nil
			}},
		}
		for _, impl := range impls {
			b.Run(fmt.Sprintf("plan=%s/impl=%s", name, impl.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					db := fresh()
					b.StartTimer()
					if err := impl.write(db); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					_ = db.Drop(context.Background())
					b.StartTimer()
				}
				b.ReportMetric(float64(total*int64(b.N))/b.Elapsed().Seconds(), "docs/s")
			})
		}
	}
}
