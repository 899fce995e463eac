package infer_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/infer"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// writeOrders fills db with users and two collections of orders of the
// same size referring to them: skewed (a few users place most orders,
// zipf-like) and uniform (every user as likely).
func writeOrders(t *testing.T, db *mongo.Database, users, orders int) {
	t.Helper()
	r := rand.New(rand.NewPCG(21, 22))
	start := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func() time.Time {
		return start.Add(time.Duration(r.Int64N(int64(300*24*time.Hour))) / time.Second * time.Second)
	}
	ids := make([]bson.ObjectID, users)
	var docs []any
	for i := range ids {
		ids[i] = bson.NewObjectIDFromTimestamp(at())
		docs = append(docs, bson.D{{Key: "_id", Value: ids[i]}, {Key: "email", Value: fmt.Sprintf("user%d.%x@mail.test", i, r.Uint32())}})
	}
	insertAll(t, db.Collection("users"), docs)
	zipf := rand.NewZipf(r, 1.3, 4, uint64(users-1))
	busy := r.Perm(users)
	for _, name := range []string{"skewed", "uniform"} {
		docs = docs[:0]
		for range orders {
			u := r.IntN(users)
			if name == "skewed" {
				u = busy[zipf.Uint64()]
			}
			docs = append(docs, bson.D{{Key: "_id", Value: bson.NewObjectIDFromTimestamp(at())}, {Key: "userId", Value: ids[u]},
				{Key: "status", Value: []string{"paid", "paid", "shipped", "cancelled"}[r.IntN(4)]},
				{Key: "total", Value: math.Round(r.ExpFloat64()*4000) / 100}})
		}
		insertAll(t, db.Collection(name), docs)
	}
}

// Repeats tells a copy whose references are spread uniformly from one
// that keeps the source's skew, and does not apply to a unique or a
// categorical field.
func TestRepeatsMeasureReferenceSkew(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	src, dst := client.Database("src"), client.Database("copy")
	writeOrders(t, src, 3000, 9000)
	ps, err := infer.Collect(ctx, src, []string{"users", "skewed", "uniform"}, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inf, err := infer.Plan("copy", ps[:2])
	if err != nil {
		t.Fatal(err)
	}
	seedPlan(t, dst, inf)
	cs, err := infer.Collect(ctx, dst, []string{"users", "skewed"}, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The same skewed orders read at a tenth: thinned, still alike.
	tenth, err := infer.Collect(ctx, src, []string{"skewed"}, 900, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	field := func(c *infer.Comparison, path string) infer.Distance {
		for _, d := range c.Fields {
			if d.Path == path {
				return d
			}
		}
		t.Fatalf("no path %s in %+v", path, c.Fields)
		return infer.Distance{}
	}
	uniform := field(infer.Compare(ps[1], ps[2]), "userId").Repeats
	copied := field(infer.Compare(ps[1], cs[1]), "userId").Repeats
	sampled := field(infer.Compare(ps[1], tenth[0]), "userId").Repeats
	t.Logf("userId repeats: skewed against uniform %.3f, against its inferred copy %.3f, against a tenth sample of itself %.3f", uniform, copied, sampled)
	if uniform < 0.25 || copied < 0 || copied > 0.08 || uniform < 4*copied {
		t.Errorf("userId repeats: %.3f against the uniform orders, %.3f against the copy; want >= 0.25, the copy <= 0.08 and a quarter of it at most", uniform, copied)
	}
	if sampled < 0 || sampled > 0.08 {
		t.Errorf("userId repeats against a tenth sample of the same orders: %.3f, want <= 0.08", sampled)
	}
	if d := field(infer.Compare(ps[1], ps[2]), "userId"); d.Distance < uniform {
		t.Errorf("userId distance %.3f below its repeats %.3f", d.Distance, uniform)
	}
	// Not applicable: unique (_id, the users' email) and categorical (status).
	for _, tc := range []struct {
		c    *infer.Comparison
		path string
	}{
		{infer.Compare(ps[1], ps[2]), "_id"}, {infer.Compare(ps[1], ps[2]), "status"},
		{infer.Compare(ps[1], cs[1]), "_id"}, {infer.Compare(ps[1], cs[1]), "status"},
		{infer.Compare(ps[0], cs[0]), "email"},
	} {
		if d := field(tc.c, tc.path); d.Repeats != -1 {
			t.Errorf("%s against %s: %s repeats %v, want -1 (unique or categorical)", tc.c.A, tc.c.B, tc.path, d.Repeats)
		}
	}
}
