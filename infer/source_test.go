package infer_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// danglingShare is the share of the source's orders whose userId is no
// user's _id.
const danglingShare = 0.1

// writeSource fills db with two collections written here, not by seed, so
// that nothing in oidkit's generator shaped what inference sees: users
// (mixed types, optional and nested fields, arrays, categories, a unique
// email) and orders whose userId refers to users, some users far more
// often than others, a tenth to no user at all.
func writeSource(t testing.TB, db *mongo.Database, users, orders int) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	start := time.Date(2022, 3, 1, 0, 0, 0, 0, time.UTC)
	window := 400 * 24 * time.Hour
	words := []string{"red", "green", "blue", "fast", "slow", "north", "south", "alpha", "beta", "gamma", "delta", "omega"}
	first := []string{"Ada", "Grace", "Alan", "Edsger", "Barbara", "Ken", "Dennis", "Linus", "Margaret", "John", "Frances", "Niklaus"}
	ids := make([]bson.ObjectID, users)
	var docs []any
	for i := range users {
		// Sign-ups grow: the later part of the window holds most of them.
		at := start.Add(time.Duration(math.Sqrt(r.Float64())*float64(window)) / time.Second * time.Second)
		ids[i] = bson.NewObjectIDFromTimestamp(at)
		name := first[r.IntN(len(first))]
		d := bson.D{{Key: "_id", Value: ids[i]},
			{Key: "email", Value: fmt.Sprintf("%s.%d.%x@corp.test", name, i, r.Uint32())}}
		if r.Float64() < 0.95 {
			d = append(d, bson.E{Key: "age", Value: int32(18 + math.Round(math.Abs(r.NormFloat64())*20))})
		} else {
			d = append(d, bson.E{Key: "age", Value: "unknown"})
		}
		if r.Float64() < 0.7 {
			d = append(d, bson.E{Key: "nickname", Value: fmt.Sprintf("%s%s%d", words[r.IntN(len(words))], name, r.IntN(1000))})
		}
		tier := "free"
		switch x := r.Float64(); {
		case x < 0.05:
			tier = "team"
		case x < 0.3:
			tier = "pro"
		}
		d = append(d, bson.E{Key: "tier", Value: tier})
		d = append(d, bson.E{Key: "score", Value: r.ExpFloat64() * 3})
		d = append(d, bson.E{Key: "balance", Value: math.Round(r.Float64()*r.Float64()*50000) / 100})
		tags := bson.A{}
		for range r.IntN(4) + r.IntN(2) {
			tags = append(tags, words[r.IntN(len(words))])
		}
		d = append(d, bson.E{Key: "tags", Value: tags})
		if r.Float64() < 0.9 {
			city := []string{"Lyon", "Oslo", "Quito", "Perth", "Accra"}[min(r.IntN(5), r.IntN(5))]
			d = append(d, bson.E{Key: "address", Value: bson.D{{Key: "city", Value: city}, {Key: "zip", Value: fmt.Sprintf("%05d", r.IntN(100000))}}})
		}
		d = append(d, bson.E{Key: "active", Value: r.Float64() < 0.8})
		d = append(d, bson.E{Key: "createdAt", Value: bson.NewDateTimeFromTime(at)})
		d = append(d, bson.E{Key: "lastLogin", Value: bson.NewDateTimeFromTime(at.Add(time.Duration(r.ExpFloat64() * float64(30*24*time.Hour))).Truncate(time.Millisecond))})
		docs = append(docs, d)
	}
	insertAll(t, db.Collection("users"), docs)
	if _, err := db.Collection("users").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	docs = docs[:0]
	busy := r.Perm(users)
	for range orders {
		at := start.Add(time.Duration(r.Int64N(int64(window))) / time.Second * time.Second)
		// A few users place most orders.
		u := busy[min(int(math.Floor(math.Pow(r.Float64(), 3)*float64(users))), users-1)]
		user := ids[u]
		if r.Float64() < danglingShare { // a user since deleted
			user = bson.NewObjectIDFromTimestamp(start.Add(time.Duration(math.Sqrt(r.Float64())*float64(window)) / time.Second * time.Second))
		}
		d := bson.D{{Key: "_id", Value: bson.NewObjectIDFromTimestamp(at)}, {Key: "userId", Value: user},
			{Key: "status", Value: []string{"paid", "paid", "paid", "shipped", "shipped", "cancelled"}[r.IntN(6)]},
			{Key: "total", Value: math.Round((5+r.ExpFloat64()*40)*100) / 100}}
		items := bson.A{}
		for range 1 + r.IntN(3) {
			items = append(items, bson.D{{Key: "sku", Value: fmt.Sprintf("SKU-%04d", r.IntN(20))}, {Key: "qty", Value: int32(1 + r.IntN(3))}})
		}
		d = append(d, bson.E{Key: "items", Value: items})
		docs = append(docs, d)
	}
	insertAll(t, db.Collection("orders"), docs)
	if _, err := db.Collection("orders").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "userId", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
}

func insertAll(t testing.TB, coll *mongo.Collection, docs []any) {
	t.Helper()
	for len(docs) > 0 {
		n := min(len(docs), 1000)
		if _, err := coll.InsertMany(context.Background(), docs[:n]); err != nil {
			t.Fatal(err)
		}
		docs = docs[n:]
	}
}

// A sample of N of a larger collection ($sample) is N distinct documents
// drawn from all of it with equal chances; N covering it reads every
// document.
func TestReadSampleDrawsEvenly(t *testing.T) {
	_, client := mongotest.Start(t)
	ctx := context.Background()
	coll := client.Database("s").Collection("c")
	var docs []any
	for i := range 300 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}})
	}
	insertAll(t, coll, docs)
	seen := map[int32]int{}
	for run := range 20 {
		var got []int32
		read, total, err := fixtures.ReadSample(ctx, coll, 100, rand.New(rand.NewPCG(uint64(run), 9)), func(doc bson.Raw) error {
			got = append(got, doc.Lookup("_id").Int32())
			return nil
		})
		if err != nil || read != 100 || total != 300 || len(got) != 100 {
			t.Fatalf("run %d: read %d of %d (%v), %d documents passed; want 100 of 300", run, read, total, err, len(got))
		}
		if sorted := slices.Sorted(slices.Values(got)); len(slices.Compact(sorted)) != 100 {
			t.Fatalf("run %d: sample not 100 distinct documents: %v", run, got)
		}
		for _, id := range got {
			seen[id]++
		}
	}
	// Every document is drawn a third of the time: over 20 draws, each
	// one has a chance of 0.9997 to be drawn at least once.
	if len(seen) < 295 {
		t.Errorf("20 samples of 100 drew %d of the 300 documents, want nearly all", len(seen))
	}
	late := 0
	for id, n := range seen {
		if id >= 200 {
			late += n
		}
	}
	if late < 500 || late > 830 { // a third of 2000 draws: 667
		t.Errorf("documents 200..299 drawn %d times in 20 samples of 100, want about 667", late)
	}
	var all int
	read, total, err := fixtures.ReadSample(ctx, coll, 1000, rand.New(rand.NewPCG(1, 2)), func(bson.Raw) error { all++; return nil })
	if err != nil || read != 300 || total != 300 || all != 300 {
		t.Errorf("a sample of 1000 of 300: read %d of %d (%v), passed %d; want all 300", read, total, err, all)
	}
}
