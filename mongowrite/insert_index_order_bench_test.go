package mongowrite_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

// BenchmarkIndexOrder is the choice seed makes for a fresh collection:
// writing 100,000 users then creating unique indexes on email and username
// ("after"), against creating them first and writing into them ("before"),
// each into a fresh collection of the embedded server, in turn. Metrics are
// seconds per variant (documents and index together).
//
//	go test -run XXX -bench BenchmarkIndexOrder -benchtime 1x ./mongowrite
func BenchmarkIndexOrder(b *testing.B) {
	const n = 100_000
	_, client := server(b, b.TempDir())
	c := benchCollection(b, seed.KindUser, n)
	want := []indexes.Index{
		{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true},
		{Key: bson.D{{Key: "username", Value: int32(1)}}, Unique: true},
	}
	ctx := context.Background()
	k := 0
	run := func(before bool) time.Duration {
		k++
		coll := client.Database("order").Collection("users" + string(rune('a'+k%26)))
		_ = coll.Drop(ctx)
		start := time.Now()
		if before {
			if err := indexes.Create(ctx, coll, want); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := mongowrite.Insert(ctx, coll, c, mongowrite.InsertOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
		if !before {
			if err := indexes.Create(ctx, coll, want); err != nil {
				b.Fatal(err)
			}
		}
		d := time.Since(start)
		_ = coll.Drop(ctx)
		return d
	}
	var after, before time.Duration
	for b.Loop() {
		after += run(false)
		before += run(true)
	}
	b.ReportMetric(after.Seconds()/float64(b.N), "s-after")
	b.ReportMetric(before.Seconds()/float64(b.N), "s-before")
	b.ReportMetric(0, "ns/op")
}
