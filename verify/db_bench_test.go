package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// benchLargeEnv names the variable that adds the 1M-document size to
// BenchmarkVerifyDB (seeding it takes minutes).
const benchLargeEnv = "OIDKIT_BENCH_1M"

// plainBatch is the cursor batch of the plain path: large, so that round
// trips do not count.
const plainBatch = 10_000

// BenchmarkVerifyDB measures VerifyDB against the plain work it cannot do
// with less: one cursor over the collection, the same documents regenerated
// from the collection's stream, the bytes compared. Both run in the same
// process against the same seeded collection of the embedded server, so
// their ratio is the overhead of the checks.
func BenchmarkVerifyDB(b *testing.B) {
	sizes := []int64{100_000}
	if v, _ := strconv.ParseBool(os.Getenv(benchLargeEnv)); v {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			if testing.Short() {
				b.Skip("seeds the embedded server")
			}
			ctx := context.Background()
			_, cl := mongotest.Start(b)
			ds, err := (&seed.Plan{Seed: 7, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: n}}}).Build()
			if err != nil {
				b.Fatal(err)
			}
			c := ds.Collection("users")
			coll := cl.Database(ds.DB).Collection(c.Name())
			// One inserter, as the CLI seeds the embedded server: the natural
			// order is the generation order, which the plain path relies on.
			if _, err := mongowrite.Insert(ctx, coll, c, mongowrite.InsertOptions{Workers: 1}); err != nil {
				b.Fatal(err)
			}
			e, err := ExpectCollection(ctx, ds, c)
			if err != nil {
				b.Fatal(err)
			}
			// oidkit is VerifyDB as the CLI runs it on FerretDB: one read in
			// natural order, the _id order checked on the client.
			b.Run("impl=oidkit", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					rep, err := VerifyDB(ctx, cl, ExpectedSet{Verify: []*Expected{e}}, DBOptions{Profile: rules.FerretDB})
					if err != nil {
						b.Fatal(err)
					}
					if !rep.OK() {
						b.Fatalf("report failed:\n%s", report(rep))
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			})
			b.Run("impl=plain", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := plainVerify(ctx, coll, c); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			})
		})
	}
}

// plainVerify reads coll in natural order with one cursor (an aggregate
// with an empty pipeline, the read VerifyDB makes: on FerretDB it is
// faster than a find, docs/benchmarks.md) and compares each document with
// the next one of c's stream.
func plainVerify(ctx context.Context, coll *mongo.Collection, c *seed.Collection) error {
	cur, err := coll.Aggregate(ctx, bson.A{}, options.Aggregate().SetBatchSize(plainBatch))
	if err != nil {
		return err
	}
	defer cur.Close(ctx)
	st := c.Stream(ctx, seed.StreamOptions{})
	defer st.Close()
	var docs []bson.Raw
	var i int64
	for cur.Next(ctx) {
		if len(docs) == 0 {
			b, err := st.Next()
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("document %d: stored, not generated", i)
			}
			if err != nil {
				return err
			}
			docs = b.Docs
		}
		if !bytes.Equal(cur.Current, docs[0]) {
			return fmt.Errorf("document %d differs", i)
		}
		docs = docs[1:]
		i++
	}
	if err := cur.Err(); err != nil {
		return err
	}
	if i != c.Len() {
		return fmt.Errorf("read %d documents, expected %d", i, c.Len())
	}
	return nil
}

// BenchmarkMatchSeeded is the client's share of verify db per document:
// find the expected document by _id, rebuild it from the stream, and compare
// the bytes with the stored ones (what a worker does for a batch of a read
// sorted by _id). ns/doc is the cost of one document.
func BenchmarkMatchSeeded(b *testing.B) {
	ds, err := (&seed.Plan{Seed: 7, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 1 << 20}}}).Build()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	e, err := ExpectCollection(ctx, ds, ds.Collection("users"))
	if err != nil {
		b.Fatal(err)
	}
	const batch = compareBatch
	stored := make([]bson.Raw, 4*batch)
	for i := range stored {
		stored[i], _ = bson.Marshal(ds.Collection("users").Doc(int64(1000 + i)))
	}
	items := make([]item, batch)
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		for j := range items {
			doc := stored[(k*batch+j)%len(stored)]
			i, ok := e.src.lookup(doc.Lookup("_id"))
			if !ok {
				b.Fatal("not found")
			}
			items[j] = item{i: i, stored: doc}
		}
		k++
		if err := e.src.match(ctx, items); err != nil {
			b.Fatal(err)
		}
		for _, it := range items {
			if !it.equal {
				b.Fatal("differs")
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/doc")
}

func report(rep *Report) string {
	var buf bytes.Buffer
	_ = rep.WriteTable(&buf)
	return buf.String()
}
