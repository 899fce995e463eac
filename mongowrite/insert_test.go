package mongowrite_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// server starts the embedded server over dir and connects a client with a
// timeout, as openTarget does.
func server(t testing.TB, dir string) (*embedded.Server, *mongo.Client) {
	t.Helper()
	s, err := embedded.Start(embedded.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetTimeout(30 * time.Second).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Disconnect(context.Background())
		_ = s.Close()
	})
	return s, c
}

func build(t testing.TB, p *seed.Plan) *seed.Dataset {
	t.Helper()
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// newManifest is the manifest of a seed run of ds, named name, that
// writes col (run.ToWrite).
func newManifest(t testing.TB, ds *seed.Dataset, col *seed.Collection, name string) *mongowrite.Manifest {
	t.Helper()
	w, err := run.ToWrite(ds, parts.Part{})
	if err != nil {
		t.Fatal(err)
	}
	w.Run = name
	return mongowrite.NewManifest(w, col)
}

// stored reads a collection back: raw documents keyed by their _id bytes.
func stored(t testing.TB, coll *mongo.Collection) map[string]bson.Raw {
	t.Helper()
	cur, err := coll.Find(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bson.Raw{}
	for cur.Next(context.Background()) {
		raw := append(bson.Raw(nil), cur.Current...)
		k := string(raw.Lookup("_id").Value)
		if _, dup := out[k]; dup {
			t.Fatalf("%s: duplicate _id %v", coll.Name(), raw.Lookup("_id"))
		}
		out[k] = raw
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func idKey(t testing.TB, v any) string {
	t.Helper()
	_, b, err := bson.MarshalValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkExact asserts the collection holds exactly the generated documents,
// byte for byte.
func checkExact(t testing.TB, coll *mongo.Collection, c *seed.Collection) map[string]bson.Raw {
	t.Helper()
	got := stored(t, coll)
	if int64(len(got)) != c.Len() {
		t.Fatalf("%s holds %d documents; want %d", coll.Name(), len(got), c.Len())
	}
	for i := range c.Len() {
		want, err := bson.Marshal(c.Doc(i))
		if err != nil {
			t.Fatal(err)
		}
		raw, ok := got[idKey(t, c.ID(i))]
		if !ok {
			t.Fatalf("%s: document %d (_id %v) missing", coll.Name(), i, c.ID(i))
		}
		if !bytes.Equal(raw, want) {
			t.Fatalf("%s: document %d differs:\n got  %v\n want %v", coll.Name(), i, raw, bson.Raw(want))
		}
	}
	return got
}

func TestInsertEveryKindAndStrategy(t *testing.T) {
	_, client := server(t, t.TempDir())
	db := client.Database("kinds")
	unique := map[string]string{seed.KindUser: "email", seed.KindEmployee: "employeeNumber", seed.KindProduct: "code", seed.KindOrder: "number"}
	for _, kind := range seed.Kinds() {
		for _, strat := range []string{"objectid", "int", "uuid", "field:" + unique[kind]} {
			t.Run(kind+"/"+strat, func(t *testing.T) {
				id, _ := seed.ParseIDStrategy(strat)
				name := kind + "_" + strings.ReplaceAll(strat, ":", "_")
				p := &seed.Plan{Seed: 11, Seeded: true, Span: 48 * time.Hour, Collections: []seed.CollectionSpec{
					{Name: name, Kind: kind, Count: 120, ID: id, IDStart: 10},
					{Name: "users", Kind: seed.KindUser, Count: 20, RefOnly: true},
					{Name: "products", Kind: seed.KindProduct, Count: 5, RefOnly: true},
				}}
				c := build(t, p).Collection(name)
				res, err := mongowrite.Insert(context.Background(), db.Collection(name), c, mongowrite.InsertOptions{Batch: 25, Workers: 3})
				if err != nil {
					t.Fatal(err)
				}
				if res.Inserted != 120 || res.Skipped != 0 {
					t.Fatalf("result %+v", res)
				}
				checkExact(t, db.Collection(name), c)
			})
		}
	}
}

func TestInsertPlanReferencesResolve(t *testing.T) {
	_, client := server(t, t.TempDir())
	p, _ := seed.BuiltinPlan("shop", 150)
	p.Seed, p.Seeded, p.DB = 3, true, "shop"
	ds := build(t, p)
	db := client.Database(ds.DB)
	for _, c := range ds.Written() {
		if _, err := mongowrite.Insert(context.Background(), db.Collection(c.Name()), c, mongowrite.InsertOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	users := checkExact(t, db.Collection("users"), ds.Collection("users"))
	products := checkExact(t, db.Collection("products"), ds.Collection("products"))
	orders := checkExact(t, db.Collection("orders"), ds.Collection("orders"))
	refs := 0
	for _, o := range orders {
		u := o.Lookup("userId")
		if _, ok := users[string(u.Value)]; !ok {
			t.Fatalf("order %v: userId %v resolves to no user", o.Lookup("_id"), u)
		}
		vals, err := o.Lookup("productIds").Array().Values()
		if err != nil || len(vals) == 0 {
			t.Fatalf("order %v: productIds %v", o.Lookup("_id"), err)
		}
		for _, v := range vals {
			if _, ok := products[string(v.Value)]; !ok {
				t.Fatalf("order %v: productId %v resolves to no product", o.Lookup("_id"), v)
			}
			refs++
		}
	}
	if refs < len(orders) {
		t.Fatalf("only %d product references", refs)
	}
}

// Two seeded runs into two databases hold byte-identical collections.
func TestInsertDeterministic(t *testing.T) {
	_, client := server(t, t.TempDir())
	dump := func(dbName string) map[string]bson.Raw {
		p, _ := seed.BuiltinPlan("shop", 60)
		p.Seed, p.Seeded, p.DB = 21, true, dbName
		ds := build(t, p)
		all := map[string]bson.Raw{}
		for _, c := range ds.Written() {
			coll := client.Database(dbName).Collection(c.Name())
			if _, err := mongowrite.Insert(context.Background(), coll, c, mongowrite.InsertOptions{Workers: 2, Batch: 7}); err != nil {
				t.Fatal(err)
			}
			for k, v := range stored(t, coll) {
				all[c.Name()+"/"+k] = v
			}
		}
		return all
	}
	a, b := dump("run1"), dump("run2")
	if len(a) != 60+6+180 || len(a) != len(b) {
		t.Fatalf("%d and %d documents", len(a), len(b))
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			t.Fatalf("document %q differs between runs", k)
		}
	}
}

func TestInsertDuplicatesAndResume(t *testing.T) {
	_, client := server(t, t.TempDir())
	coll := client.Database("dup").Collection("users")
	// In one second the first 120 of 300 documents are those of a run of 120.
	c := build(t, &seed.Plan{Seed: 1, Seeded: true, Span: seed.NoSpan, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 300}}}).Collection("users")
	half := build(t, &seed.Plan{Seed: 1, Seeded: true, Span: seed.NoSpan, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 120}}}).Collection("users")
	if _, err := mongowrite.Insert(context.Background(), coll, half, mongowrite.InsertOptions{Batch: 50}); err != nil {
		t.Fatal(err)
	}
	// Without resume a duplicate fails the run and says how far it got and
	// which document the server refused.
	res, err := mongowrite.Insert(context.Background(), coll, c, mongowrite.InsertOptions{Batch: 50, Workers: 1})
	var we *mongowrite.WriteError
	if !errors.As(err, &we) || we.Doc == nil || !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("error = %v; want a WriteError naming the duplicate key", err)
	}
	if res.Skipped != 0 || we.Total != 300 || we.Written != res.Inserted || we.Collection != "users" || we.Doc.Index >= 120 {
		t.Fatalf("result %+v, error %+v", res, we)
	}
	if want := idKey(t, c.ID(we.Doc.Index)); string(we.Doc.ID.Value) != want {
		t.Fatalf("error names _id %v; document %d has %v", we.Doc.ID, we.Doc.Index, c.ID(we.Doc.Index))
	}
	if msg := err.Error(); strings.Contains(msg, "--") || !strings.Contains(msg, fmt.Sprintf("of 300 documents, then: document %d (_id ", we.Doc.Index)) || !strings.Contains(msg, "(code 11000)") {
		t.Fatalf("message %q", msg)
	}
	// With resume the same run completes, counting what was there.
	res, err = mongowrite.Insert(context.Background(), coll, c, mongowrite.InsertOptions{Batch: 50, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserted+res.Skipped != 300 || res.Skipped < 120 {
		t.Fatalf("resume result %+v", res)
	}
	checkExact(t, coll, c)
	// A write error that is not a duplicate key still fails a resumed run.
	bad := build(t, &seed.Plan{Seed: 2, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 10}}}).Collection("users")
	_, err = mongowrite.Insert(context.Background(), client.Database("dup").Collection("$bad"), bad, mongowrite.InsertOptions{Resume: true})
	if err == nil {
		t.Fatal("insert into an invalid collection name succeeded")
	}
}

// The server dies mid-run: the error says how far the run got; after a
// restart over the same data, --resume completes it with exactly N
// documents and no duplicates.
func TestInsertResumeAfterServerStops(t *testing.T) {
	dir := t.TempDir()
	n, batch, stopAfter := int64(20000), 500, int64(2000)
	if raceEnabled {
		n, batch, stopAfter = 5000, 100, 500
	}
	plan := &seed.Plan{Seed: 8, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: n}}}
	c := build(t, plan).Collection("users")

	s, client := server(t, dir)
	coll := client.Database("resume").Collection("users")
	var done atomic.Int64
	stopAt := make(chan struct{})
	var once atomic.Bool
	errc := make(chan error, 1)
	stopped := make(chan struct{})
	go func() {
		_, err := mongowrite.Insert(context.Background(), coll, c, mongowrite.InsertOptions{Batch: batch, Workers: 2, Progress: func(p mongowrite.Progress) {
			done.Store(p.Inserted)
			if p.Inserted >= stopAfter && once.CompareAndSwap(false, true) {
				close(stopAt)
				// Hold the inserters (Progress is called under a lock) until
				// the server is gone: it waits up to 3 s for open
				// connections, time enough to finish the whole run on a
				// fast machine, and then there would be nothing to resume.
				<-stopped
			}
		}})
		errc <- err
	}()
	select {
	case <-stopAt:
	case err := <-errc:
		t.Fatalf("run finished before the server was stopped: %v", err)
	}
	go func() { _ = s.Close(); close(stopped) }()
	var err error
	select {
	case err = <-errc:
	case <-time.After(60 * time.Second):
		t.Fatal("Insert hangs after the server stopped")
	}
	<-stopped
	var ie *mongowrite.WriteError
	if !errors.As(err, &ie) {
		t.Fatalf("error = %v; want a WriteError", err)
	}
	want := fmt.Sprintf("wrote %d of %d documents", ie.Written, n)
	if !strings.Contains(err.Error(), want) || ie.Doc != nil || ie.Written < stopAfter || ie.Written >= n {
		t.Fatalf("error = %v; want %q with %d <= K < %d and no document named", err, want, stopAfter, n)
	}
	t.Logf("stopped after %d of %d: %v", ie.Written, n, err)

	_, client2 := server(t, dir)
	coll2 := client2.Database("resume").Collection("users")
	res, err := mongowrite.Insert(context.Background(), coll2, c, mongowrite.InsertOptions{Batch: batch, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserted+res.Skipped != n || res.Skipped < ie.Written {
		t.Fatalf("resume result %+v after %d inserted", res, ie.Written)
	}
	st := time.Now()
	got, err := coll2.EstimatedDocumentCount(context.Background())
	t.Logf("resume: %+v; count took %v", res, time.Since(st))
	if err != nil || got != n {
		t.Fatalf("count = %d, %v; want %d", got, err, n)
	}
	checkExact(t, coll2, c)
}

// Insert with Ranges writes exactly the documents of those ranges, and its
// progress and result count only them.
func TestInsertRanges(t *testing.T) {
	_, client := server(t, t.TempDir())
	coll := client.Database("ranges").Collection("users")
	c := build(t, &seed.Plan{Seed: 5, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 100}}}).Collection("users")
	ranges := []parts.Range{{From: 70, To: 95}, {From: 3, To: 10}, {From: 98, To: 200}}
	var last mongowrite.Progress
	res, err := mongowrite.Insert(context.Background(), coll, c, mongowrite.InsertOptions{Batch: 4, Workers: 3, Ranges: ranges, Progress: func(p mongowrite.Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	const want = 25 + 7 + 2
	if res.Inserted != want || last.Total != want || last.Inserted != want {
		t.Fatalf("result %+v, last progress %+v; want %d documents", res, last, want)
	}
	got := stored(t, coll)
	if len(got) != want {
		t.Fatalf("%d documents stored; want %d", len(got), want)
	}
	for _, r := range []parts.Range{{From: 70, To: 95}, {From: 3, To: 10}, {From: 98, To: 100}} {
		for i := r.From; i < r.To; i++ {
			raw, err := bson.Marshal(c.Doc(i))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[idKey(t, c.ID(i))], raw) {
				t.Fatalf("document %d missing or different", i)
			}
		}
	}
}

// A batch the server refused in part is Unsettled: neither acknowledged
// nor known to be absent. The batches acknowledged in full are not.
func TestInsertReportsUnsettledBatch(t *testing.T) {
	_, client := server(t, t.TempDir())
	ctx := context.Background()
	ds := build(t, &seed.Plan{DB: "u", Seed: 7, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 30}}})
	col := ds.Collection("users")
	coll := client.Database("u").Collection("users")
	if _, err := coll.InsertOne(ctx, col.Doc(15)); err != nil { // in the second batch
		t.Fatal(err)
	}
	var acked []parts.Range
	res, err := mongowrite.Insert(ctx, coll, col, mongowrite.InsertOptions{Batch: 10, Workers: 1, Acked: func(r parts.Range) { acked = append(acked, r) }})
	var we *mongowrite.WriteError
	if !errors.As(err, &we) || !mongo.IsDuplicateKeyError(we.Err) {
		t.Fatalf("Insert: %v, expected a duplicate key", err)
	}
	want := []parts.Range{{From: 10, To: 20}}
	if fmt.Sprint(res.Unsettled) != fmt.Sprint(want) {
		t.Errorf("Unsettled = %v, expected %v (acknowledged: %v)", res.Unsettled, want, acked)
	}
	if fmt.Sprint(acked) != fmt.Sprint([]parts.Range{{From: 0, To: 10}}) {
		t.Errorf("acknowledged %v, expected the first batch only", acked)
	}
}

// With Resume a duplicate key counts as already there only when the
// collection holds the document as it is, whether the duplicates are asked
// for by _id or told from one read of the collection: another document
// under a generated _id, or a generated document with a changed field,
// stops the run, named, and is not counted.
func TestInsertResumeCountsOnlyStoredAsIs(t *testing.T) {
	_, client := server(t, t.TempDir())
	c := build(t, &seed.Plan{Seed: 4, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 200}}}).Collection("users")
	for _, read := range []bool{false, true} {
		for _, changed := range []bool{false, true} {
			t.Run(fmt.Sprintf("read=%v,changed=%v", read, changed), func(t *testing.T) {
				ctx := context.Background()
				coll := client.Database(fmt.Sprintf("resume_%v_%v", read, changed)).Collection("users")
				if _, err := mongowrite.Insert(ctx, coll, c, mongowrite.InsertOptions{Ranges: []parts.Range{{From: 0, To: 80}}}); err != nil {
					t.Fatal(err)
				}
				var upd bson.D
				if changed {
					upd = bson.D{{Key: "$set", Value: bson.D{{Key: "email", Value: "changed@example.org"}}}}
				} else {
					upd = bson.D{{Key: "$unset", Value: bson.D{{Key: "email", Value: ""}}}}
				}
				if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: c.ID(30)}}, upd); err != nil {
					t.Fatal(err)
				}
				res, err := mongowrite.Insert(ctx, coll, c, mongowrite.InsertOptions{Batch: 50, Workers: 1, Resume: true, ReadStored: read})
				var we *mongowrite.WriteError
				if !errors.As(err, &we) || we.Doc == nil || we.Doc.Index != 30 || !errors.Is(err, mongowrite.ErrNotStored) {
					t.Fatalf("error = %v; want document 30 refused as not the one stored", err)
				}
				if res.Skipped > 79 || res.Inserted+res.Skipped != we.Written {
					t.Fatalf("result %+v, error %+v: at most the 79 documents stored as they are count as there", res, we)
				}
			})
		}
	}
}
