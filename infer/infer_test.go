package infer_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/infer"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
)

const (
	nUsers  = 4000
	nOrders = 8000
)

// seedPlan writes the inferred plan into db, indexes included.
func seedPlan(t *testing.T, db *mongo.Database, inf *infer.Inferred) {
	t.Helper()
	ctx := context.Background()
	p := *inf.Plan
	p.DB, p.Seed, p.Seeded = db.Name(), 1, true
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ds.Written() {
		if _, err := mongowrite.Insert(ctx, db.Collection(c.Name()), c, mongowrite.InsertOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := indexes.Create(ctx, db.Collection(c.Name()), c.Spec().Indexes); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInferAndCompare(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	src, dst := client.Database("src"), client.Database("copy")
	writeSource(t, src, nUsers, nOrders)
	names := []string{"users", "orders"}
	profiles, err := infer.Collect(ctx, src, names, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if profiles[0].Sampled != nUsers || profiles[0].Total != nUsers {
		t.Fatalf("users: sampled %d of %d, want all %d", profiles[0].Sampled, profiles[0].Total, nUsers)
	}
	inf, err := infer.Plan("copy", profiles)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("plan:\n%s", inf.JSON)
	// Private by design: no e-mail or nickname of the source is in the plan.
	cur, err := src.Collection("users").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; cur.Next(ctx) && k < 500; k++ {
		for _, f := range []string{"email", "nickname", "zip"} {
			var v bson.RawValue
			if f == "zip" {
				v = cur.Current.Lookup("address", "zip")
			} else {
				v = cur.Current.Lookup(f)
			}
			if s, ok := v.StringValueOK(); ok && bytes.Contains(inf.JSON, []byte(`"`+s+`"`)) {
				t.Errorf("the plan holds the source's %s %q", f, s)
			}
		}
	}
	_ = cur.Close(ctx)
	if refs := profiles[1].Refs; len(refs) != 1 || refs[0].To != "users" || abs(refs[0].Resolved-(1-danglingShare)) > 0.05 {
		t.Fatalf("orders refs = %+v, want userId to users, %.0f%% resolving", refs, 100*(1-danglingShare))
	}
	var literal []string
	for _, n := range inf.Notes {
		if n.Literal {
			literal = append(literal, n.Path)
		}
	}
	if got := strings.Join(literal, ","); !strings.Contains(got, "tier") || strings.Contains(got, "email") || strings.Contains(got, "nickname") {
		t.Errorf("fields that kept literal values: %s; want tier among them, never email or nickname", got)
	}

	seedPlan(t, dst, inf)
	copies, err := infer.Collect(ctx, dst, names, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k, name := range names {
		if copies[k].Total != profiles[k].Total {
			t.Errorf("%s: copy has %d documents, source %d", name, copies[k].Total, profiles[k].Total)
		}
		cmp := infer.Compare(profiles[k], copies[k])
		for _, d := range cmp.Fields {
			bad := d.Distance == 1 ||
				abs(d.PresentA-d.PresentB) > 0.02 || d.Types > 0.02 ||
				d.Values > 0.05 || d.Lengths > 0.05 || d.Categories > 0.03 || d.ArrayLengths > 0.05
			if bad {
				t.Errorf("%s.%s: %+v", name, d.Path, d)
			}
			// The references keep how often each user is referred to.
			if name == "orders" && d.Path == "userId" && (d.Repeats < 0 || d.Repeats > 0.05) {
				t.Errorf("orders.userId: repeats %.3f between source and copy, want 0 to 0.05", d.Repeats)
			}
		}
		if cmp.Similarity < 0.95 {
			t.Errorf("%s: similarity %.3f, want >= 0.95", name, cmp.Similarity)
		}
		t.Logf("%s: similarity %.4f", name, cmp.Similarity)
		// Indexes equal.
		a, _ := indexes.List(ctx, src.Collection(name))
		b, _ := indexes.List(ctx, dst.Collection(name))
		if len(a) != len(b) {
			t.Fatalf("%s: indexes %v, copy %v", name, a, b)
		}
		for j := range a {
			if !indexes.Equal(a[j], b[j]) {
				t.Errorf("%s: index %v, copy %v", name, a[j], b[j])
			}
		}
	}
	if s := infer.Compare(profiles[0], profiles[1]).Similarity; s > 0.3 {
		t.Errorf("users against orders: similarity %.3f, want clearly lower (<= 0.3)", s)
	}
	// References resolve as often as in the source, and keep its skew:
	// the orders per user, over all users, are distributed alike.
	srcPer, srcShare := ordersPerUser(t, src)
	dstPer, dstShare := ordersPerUser(t, dst)
	if abs(srcShare-dstShare) > 0.02 {
		t.Errorf("userId resolves in %.3f of the copy's orders, %.3f of the source's", dstShare, srcShare)
	}
	hist := func(v []float64) []int {
		h := make([]int, 8)
		for _, x := range v {
			h[min(int(x), 7)]++
		}
		return h
	}
	t.Logf("orders per user 0..7+: source %v, copy %v", hist(srcPer), hist(dstPer))
	if d := ksSorted(srcPer, dstPer); d > 0.05 {
		t.Errorf("orders per user: KS %.3f between source and copy, want <= 0.05", d)
	}
	// The busiest 1% of users place as large a share of the orders.
	if a, b := topShare(srcPer, 0.01), topShare(dstPer, 0.01); abs(a-b) > 0.03 || a < 0.1 {
		t.Errorf("the busiest 1%% of users place %.3f of the copy's resolving orders, %.3f of the source's", b, a)
	}
	// createdAt is the _id time in the copy, as in the source.
	uc, err := dst.Collection("users").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for uc.Next(ctx) {
		id, at := uc.Current.Lookup("_id").ObjectID(), uc.Current.Lookup("createdAt").DateTime()
		if id.Timestamp().UnixMilli() != at {
			t.Fatalf("copy user %v: createdAt %v, _id time %v", id, at, id.Timestamp())
		}
	}
}

// topShare is the share of the sum of the sorted counts held by the top
// fraction of them.
func topShare(sorted []float64, top float64) float64 {
	var all, part float64
	from := len(sorted) - int(top*float64(len(sorted)))
	for k, x := range sorted {
		all += x
		if k >= from {
			part += x
		}
	}
	return part / all
}

// ksSorted is the Kolmogorov–Smirnov distance of two sorted samples.
func ksSorted(a, b []float64) float64 {
	i, j, d := 0, 0, 0.0
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] <= x {
			i++
		}
		for j < len(b) && b[j] <= x {
			j++
		}
		d = max(d, abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}

// ordersPerUser is the sorted number of orders of each user of db (zeros
// included), and the share of orders whose userId is a user's _id.
func ordersPerUser(t *testing.T, db *mongo.Database) ([]float64, float64) {
	t.Helper()
	ctx := context.Background()
	per := map[bson.ObjectID]float64{}
	uc, err := db.Collection("users").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for uc.Next(ctx) {
		per[uc.Current.Lookup("_id").ObjectID()] = 0
	}
	oc, err := db.Collection("orders").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var orders, resolved float64
	for oc.Next(ctx) {
		orders++
		if id := oc.Current.Lookup("userId").ObjectID(); func() bool { _, ok := per[id]; return ok }() {
			per[id]++
			resolved++
		}
	}
	out := make([]float64, 0, len(per))
	for _, n := range per {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, resolved / orders
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestInferPlanIsDeterministic(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	src := client.Database("src")
	writeSource(t, src, 300, 300)
	var first []byte
	for run := range 2 {
		profiles, err := infer.Collect(ctx, src, []string{"users", "orders"}, 1<<30, infer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		inf, err := infer.Plan("copy", profiles)
		if err != nil {
			t.Fatal(err)
		}
		p := *inf.Plan
		p.Seed, p.Seeded = 3, true
		ds, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		var out []byte
		for _, c := range ds.Written() {
			for i := range c.Len() {
				b, _ := bson.Marshal(c.Doc(i))
				out = append(out, b...)
			}
		}
		if run == 1 && !bytes.Equal(out, first) {
			t.Fatal("the same source and seed gave other documents")
		}
		first = out
	}
}

func TestCollectBadInput(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	db := client.Database("bad")
	if err := db.CreateCollection(ctx, "empty"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		names  []string
		sample int64
		want   string
	}{
		{[]string{"nosuch"}, 10, `collection "nosuch": no such collection in database bad`},
		{[]string{"empty"}, 10, `collection "empty": it has no documents`},
		{[]string{"empty"}, 0, `sample 0: expected a sample of at least 1 document`},
	} {
		_, err := infer.Collect(ctx, db, tc.names, tc.sample, infer.Options{})
		var ie *infer.InputError
		if !errors.As(err, &ie) || !errors.Is(err, infer.ErrInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v sample %d: %v, want an *InputError saying %q", tc.names, tc.sample, err, tc.want)
		}
	}
	names, _ := db.ListCollectionNames(ctx, bson.D{})
	if len(names) != 1 {
		t.Errorf("collections after bad input: %v, want only empty", names)
	}
}

func TestInexpressibleFieldName(t *testing.T) {
	p := infer.NewProfile("odd", infer.Options{MinCount: 1})
	for i := range 3 {
		doc, _ := bson.Marshal(bson.D{{Key: "_id", Value: int32(i)}, {Key: "", Value: "x"}, {Key: "ok", Value: int32(i)}})
		if err := p.Add(doc); err != nil {
			t.Fatal(err)
		}
	}
	p.Total = 3
	inf, err := infer.Plan("odd", []*infer.Profile{p})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range inf.Notes {
		found = found || (n.Inexpressible && strings.Contains(n.Text, "left out of the plan"))
	}
	if !found {
		t.Errorf("notes %v: want the empty field name reported as left out", inf.Notes)
	}
}
