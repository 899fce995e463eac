package audit_test

import (
	"context"
	"encoding/binary"
	"os"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/audit"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// benchIDs is the collection size of the scan benchmarks: 1,000,000 for the
// figures in docs/audit.md (OIDKIT_AUDIT_BENCH_N), small by default so that
// -benchtime=1x checks them quickly.
func benchIDs(b *testing.B) int {
	if s := os.Getenv("OIDKIT_AUDIT_BENCH_N"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 20_000
}

// benchCollection fills a collection of n documents {_id: ObjectID} made by
// 8 writers, on the embedded server.
func benchCollection(b *testing.B, n int) *mongo.Collection {
	_, client := mongotest.Start(b)
	coll := client.Database("bench").Collection("ids")
	const batch = 10_000
	docs := make([]any, 0, batch)
	for i := range n {
		var id [12]byte
		binary.BigEndian.PutUint32(id[:4], 1_700_000_000+uint32(i/1000))
		id[4] = byte(i % 8)
		binary.BigEndian.PutUint32(id[8:], uint32(i))
		docs = append(docs, bson.D{{Key: "_id", Value: bson.ObjectID(id)}})
		if len(docs) == batch || i == n-1 {
			if _, err := coll.InsertMany(context.Background(), docs); err != nil {
				b.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	return coll
}

// BenchmarkScanCollection audits the _id of every document, beside
// BenchmarkScanCollection/driver, a plain driver read of the same field.
func BenchmarkScanCollection(b *testing.B) {
	n := benchIDs(b)
	coll := benchCollection(b, n)
	b.Run("driver", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cur, err := coll.Find(b.Context(), bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(10_000))
			if err != nil {
				b.Fatal(err)
			}
			got := 0
			for cur.Next(b.Context()) {
				if _, err := cur.Current.LookupErr("_id"); err == nil {
					got++
				}
			}
			if err := cur.Close(b.Context()); err != nil || got != n {
				b.Fatalf("read %d of %d: %v", got, n, err)
			}
		}
		b.ReportMetric(float64(n), "ids/op")
	})
	b.Run("audit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a := audit.New(audit.Options{})
			got, err := a.ScanCollection(b.Context(), coll, audit.Fields{}, nil)
			if err != nil || got != int64(n) {
				b.Fatalf("read %d of %d: %v", got, n, err)
			}
			if r := a.Report(); r.Writers.Tracked != 8 {
				b.Fatalf("%d writers", r.Writers.Tracked)
			}
		}
		b.ReportMetric(float64(n), "ids/op")
	})
}
