package engine

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// seedUsers fills app.users with n documents and a unique email index.
func seedUsers(b *testing.B, n int) *mongo.Collection {
	c, _ := serve(b, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("users")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		b.Fatal(err)
	}
	batch := make([]any, 0, 1000)
	for i := 0; i < n; i++ {
		batch = append(batch, bson.D{{Key: "_id", Value: i}, {Key: "email", Value: fmt.Sprintf("u%d@x.io", i)}, {Key: "age", Value: i % 90}, {Key: "n", Value: 0}})
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := coll.InsertMany(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return coll
}

// BenchmarkQueries runs each query on 100 and on 100,000 documents in the
// same run: the goal is that the larger costs within 2x of the smaller.
func BenchmarkQueries(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{100, 100000} {
		coll := seedUsers(b, n)
		b.Run(fmt.Sprintf("FindOneByID/docs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				var m bson.Raw
				if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: i % n}}).Decode(&m); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("FindOneByUniqueField/docs=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				var m bson.Raw
				if err := coll.FindOne(ctx, bson.D{{Key: "email", Value: fmt.Sprintf("u%d@x.io", i%n)}}).Decode(&m); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("FindIDIn100/docs=%d", n), func(b *testing.B) {
			// as a resumed seed asks which of a batch's _ids are stored
			ids := make(bson.A, 100)
			for i := range ids {
				ids[i] = i * (n / 100)
			}
			for b.Loop() {
				cur, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
				if err != nil {
					b.Fatal(err)
				}
				var rows []bson.Raw
				if err := cur.All(ctx, &rows); err != nil || len(rows) != 100 {
					b.Fatal(len(rows), err)
				}
			}
		})
		b.Run(fmt.Sprintf("UpdateOneByID/docs=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: i % n}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("EstimatedDocumentCount/docs=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := coll.EstimatedDocumentCount(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("CountDocumentsAll/docs=%d", n), func(b *testing.B) {
			for b.Loop() {
				if got, err := coll.CountDocuments(ctx, bson.D{}); err != nil || got != int64(n) {
					b.Fatal(got, err)
				}
			}
		})
		b.Run(fmt.Sprintf("SortedLimitedFindOnIndex/docs=%d", n), func(b *testing.B) {
			for b.Loop() {
				cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "email", Value: 1}}).SetLimit(10))
				if err != nil {
					b.Fatal(err)
				}
				var rows []bson.Raw
				if err := cur.All(ctx, &rows); err != nil || len(rows) != 10 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGroupVsReadAll runs, on 100,000 documents in the same run, a
// $group of every document by a field and a read of every document: the
// goal is that the $group costs at most half of the read.
func BenchmarkGroupVsReadAll(b *testing.B) {
	ctx := context.Background()
	coll := seedUsers(b, 100000)
	b.Run("Group", func(b *testing.B) {
		for b.Loop() {
			cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$age"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}})
			if err != nil {
				b.Fatal(err)
			}
			var rows []bson.Raw
			if err := cur.All(ctx, &rows); err != nil || len(rows) != 90 {
				b.Fatal(len(rows), err)
			}
		}
	})
	b.Run("ReadAll", func(b *testing.B) {
		for b.Loop() {
			cur, err := coll.Find(ctx, bson.D{})
			if err != nil {
				b.Fatal(err)
			}
			k := 0
			for cur.Next(ctx) {
				k++
			}
			if cur.Err() != nil || k != 100000 {
				b.Fatal(k, cur.Err())
			}
		}
	})
}

// BenchmarkCloneDatabase clones a database of 100 and of 10,000 documents
// in the same run: the copy-on-write clone costs the same for both.
func BenchmarkCloneDatabase(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{100, 10000} {
		st := newStore()
		_ = st.write(ctx, func(t *tx) error {
			col, _ := t.mut("tpl", "users", true)
			for i := 0; i < n; i++ {
				_ = t.putDoc(col, mustMarshal(b, bson.D{{Key: "_id", Value: i}, {Key: "email", Value: fmt.Sprintf("u%d@x.io", i)}}), true)
			}
			_, err := t.createIndex(col, mustMarshal(b, bson.D{{Key: "key", Value: bson.D{{Key: "email", Value: 1}}}, {Key: "unique", Value: true}}))
			return err
		})
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := st.CloneDatabase(ctx, "tpl", fmt.Sprintf("c%d", i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func mustMarshal(b *testing.B, v any) []byte {
	out, err := bson.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkMemoryPerMillion stores 1,000,000 documents of 120 bytes with a
// unique secondary index and reports the heap they take beside their BSON
// bytes: heap-bytes/doc and bson-bytes/doc.
func BenchmarkMemoryPerMillion(b *testing.B) {
	const n = 1000000
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		st := newStore()
		bsonBytes := 0
		err := st.write(context.Background(), func(t *tx) error {
			col, _ := t.mut("d", "users", true)
			if _, err := t.createIndex(col, mustMarshal(b, bson.D{{Key: "key", Value: bson.D{{Key: "email", Value: 1}}}, {Key: "unique", Value: true}})); err != nil {
				return err
			}
			for i := 0; i < n; i++ {
				d := mustMarshal(b, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "email", Value: fmt.Sprintf("user%07d@example.com", i)}, {Key: "name", Value: "Ada Lovelace"}, {Key: "age", Value: int32(i % 90)}, {Key: "active", Value: i%2 == 0}})
				bsonBytes += len(d)
				if err := t.putDoc(col, d, true); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heap-bytes/doc")
		b.ReportMetric(float64(bsonBytes)/n, "bson-bytes/doc")
		runtime.KeepAlive(st)
	}
}
