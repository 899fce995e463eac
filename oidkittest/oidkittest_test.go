package oidkittest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/seed"
)

func usersPlan(n int64) *seed.Plan {
	return &seed.Plan{Seed: 3, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: n}}}
}

// recorder records failures instead of failing; New's t.Fatalf returns.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	msgs   []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Failed() bool                      { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }
func (r *recorder) text() string                      { r.mu.Lock(); defer r.mu.Unlock(); return strings.Join(r.msgs, "\n") }

func TestEmptyIsolatedAndDropped(t *testing.T) {
	var names [2]string
	t.Run("group", func(t *testing.T) {
		for i := range 2 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				db := New(t)
				names[i] = db.Name()
				Verify(t, db) // empty: passes
				if _, err := db.Collection("c").InsertOne(t.Context(), bson.D{{Key: "_id", Value: i}}); err != nil {
					t.Fatal(err)
				}
				if n, err := db.Collection("c").CountDocuments(t.Context(), bson.D{}); err != nil || n != 1 {
					t.Fatalf("%d documents, %v; want this test's one", n, err)
				}
				rec := &recorder{TB: t}
				Verify(rec, db)
				if !rec.Failed() || !strings.Contains(rec.text(), "collection c: not put there by New") {
					t.Fatalf("Verify of a database with an extra collection: %q", rec.text())
				}
			})
		}
	})
	b, _ := sharedBackend()
	e, ok := b.(*embeddedBackend)
	if !ok {
		t.Skip("the drop is checked on the embedded backend")
	}
	dbs, err := e.client.ListDatabaseNames(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		for _, d := range dbs {
			if d == n {
				t.Errorf("database %s left after its test ended", n)
			}
		}
	}
}

// 64 tests at once (each in a goroutine of its own, so -parallel does not
// hold them back), each with its own clone of a 10,000-document plan: each
// counts its clone, writes a document, waits until all 64 have, and counts
// again: the template's 10,000 before its write, 10,001 after, and still
// 10,001 once every other test has written (so no other write is seen).
// The counts are exact and cheap: $collStats answers from the
// collection's metadata. Each also reads one of three template documents and
// compares it byte for byte with the plan's; test 0 Verifies every
// document and index.
func TestSixtyFourClones(t *testing.T) {
	if testing.Short() {
		t.Skip("64 clones of 10,000 documents")
	}
	if _, ok := mustBackend(t).(*embeddedBackend); !ok {
		t.Skip("64 clones of 10,000 documents on a remote server insert 640,000 documents: run on the embedded server")
	}
	const clones, docs = 64, 10000
	plan := usersPlan(int64(docs))
	samples := planSamples(t, plan, 0, docs/2, docs-1)
	var wrote, all sync.WaitGroup
	wrote.Add(clones)
	for i := range clones {
		all.Add(1)
		go func() {
			defer all.Done()
			t.Run(fmt.Sprint(i), func(t *testing.T) { checkClone(t, plan, i, docs, &wrote, samples[i%len(samples)]) })
		}()
	}
	all.Wait()
	logPeakRSS(t)
}

func mustBackend(t *testing.T) backend { return mustBackendTB(t) }

func mustBackendTB(t testing.TB) backend {
	b, err := sharedBackend()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// planSamples are the plan's documents at the given positions, as the
// plan builds them.
func planSamples(t *testing.T, plan *seed.Plan, at ...int) []bson.Raw {
	ds, err := plan.Build()
	if err != nil {
		t.Fatal(err)
	}
	s := ds.Collection("users").Stream(context.Background(), seed.StreamOptions{})
	defer s.Close()
	var out []bson.Raw
	n := 0
	for len(out) < len(at) {
		batch, err := s.Next()
		if err != nil {
			t.Fatalf("the plan's documents: %v", err)
		}
		for _, d := range batch.Docs {
			if slices.Contains(at, n) {
				raw, err := bson.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, raw)
			}
			n++
		}
	}
	return out
}

func checkClone(t *testing.T, plan *seed.Plan, i, docs int, wrote *sync.WaitGroup, sample bson.Raw) {
	var once sync.Once
	done := func() { once.Do(wrote.Done) }
	defer done() // a test that stops early does not hold the others
	db := New(t, WithPlan(plan))
	users := db.Collection("users")
	if n := tableCount(t, users); n != int64(docs) {
		t.Fatalf("%d documents before this test's write; want the template's %d", n, docs)
	}
	if _, err := users.InsertOne(t.Context(), bson.D{{Key: "_id", Value: fmt.Sprint("w", i)}, {Key: "writer", Value: i}}); err != nil {
		t.Fatal(err)
	}
	if n := tableCount(t, users); n != int64(docs+1) {
		t.Fatalf("%d documents after this test's write; want %d", n, docs+1)
	}
	done()
	wrote.Wait()
	if n := tableCount(t, users); n != int64(docs+1) {
		t.Fatalf("%d documents once every test has written; want the template's %d and this test's one", n, docs)
	}
	got, err := users.FindOne(t.Context(), bson.D{{Key: "_id", Value: sample.Lookup("_id")}}).Raw()
	if err != nil || !bytes.Equal(got, sample) {
		t.Fatalf("template document %v: %v, %v; want %v", sample.Lookup("_id"), got, err, sample)
	}
	if i == 0 { // every document and index, byte for byte
		if _, err := users.DeleteOne(t.Context(), bson.D{{Key: "_id", Value: fmt.Sprint("w", i)}}); err != nil {
			t.Fatal(err)
		}
		Verify(t, db)
	}
}

// tableCount is the number of documents of coll as $collStats counts them:
// the cells of its table's leaf pages, one per document, without reading
// any document.
func tableCount(t *testing.T, coll *mongo.Collection) int64 {
	cur, err := coll.Aggregate(t.Context(), bson.A{bson.D{{Key: "$collStats", Value: bson.D{{Key: "count", Value: bson.D{}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var res []struct {
		Count int64 `bson:"count"`
	}
	if err := cur.All(t.Context(), &res); err != nil || len(res) != 1 {
		t.Fatalf("$collStats: %v, %v", res, err)
	}
	return res[0].Count
}

// logPeakRSS logs the test binary's peak resident set (VmHWM).
func logPeakRSS(t *testing.T) {
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			t.Logf("peak RSS of the test binary: %s", strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")))
		}
	}
}

func TestFixturesBadLineNamesFileAndLine(t *testing.T) {
	fsys := fstest.MapFS{
		"fx/users.ndjson": {Data: []byte("{\"_id\":1,\"a\":1}\n{\"_id\":2,\"a\":{\"$numberInt\":\"x\"}}\n")},
	}
	rec := &recorder{TB: t}
	if db := New(rec, WithFixtures(fsys, "fx/*.ndjson")); db != nil {
		t.Fatal("New returned a database for a bad fixture file")
	}
	if msg := rec.text(); !strings.Contains(msg, "fx/users.ndjson:2") || strings.Contains(msg, os.TempDir()) {
		t.Fatalf("message %q: want the file as in its fs.FS with line 2", msg)
	}
}

func TestFixturesWithPlanAndSidecar(t *testing.T) {
	fsys := fstest.MapFS{
		"d/tags.json":          {Data: []byte(`[{"_id":"a","n":1},{"_id":"b","n":2}]`)},
		"d/tags.metadata.json": {Data: []byte(`{"options":{},"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"},{"v":2,"key":{"n":1},"name":"n_1","unique":true}]}`)},
	}
	db := New(t, WithPlan(usersPlan(50)), WithFixtures(fsys, "d/tags.json"))
	if n, err := db.Collection("tags").CountDocuments(t.Context(), bson.D{}); err != nil || n != 2 {
		t.Fatalf("tags: %d, %v", n, err)
	}
	Verify(t, db)
	if err := db.Collection("tags").Indexes().DropOne(t.Context(), "n_1"); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	Verify(rec, db)
	if !rec.Failed() {
		t.Fatal("Verify passed a database that lost an index")
	}
}

func TestContradictoryOptions(t *testing.T) {
	fsys := fstest.MapFS{"users.ndjson": {Data: []byte(`{"_id":1}` + "\n")}}
	unseeded := usersPlan(5)
	unseeded.Seeded = false
	bad := usersPlan(5)
	bad.Collections[0].Kind = "nosuchkind"
	for _, tc := range []struct {
		name string
		opts []Option
		want string
	}{
		{"two plans", []Option{WithPlan(usersPlan(1)), WithPlan(usersPlan(2))}, "WithPlan given more than once"},
		{"nil plan", []Option{WithPlan(nil)}, "WithPlan(nil)"},
		{"unseeded", []Option{WithPlan(unseeded)}, "not seeded"},
		{"plan error", []Option{WithPlan(bad)}, "nosuchkind"},
		{"collection twice", []Option{WithPlan(usersPlan(1)), WithFixtures(fsys, "*.ndjson")}, "collection users comes from the plan and from users.ndjson"},
		{"no match", []Option{WithFixtures(fsys, "*.json")}, `pattern "*.json" matches no file`},
		{"no pattern", []Option{WithFixtures(fsys)}, "no pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			if db := New(rec, tc.opts...); db != nil || !strings.Contains(rec.text(), tc.want) {
				t.Fatalf("New: %q; want a failure with %q", rec.text(), tc.want)
			}
		})
	}
}

func TestUnreachableURIFailsMasked(t *testing.T) {
	_, err := newRemote("mongodb://alice:s3cret@127.0.0.1:1/?serverSelectionTimeoutMS=300", "")
	if err == nil {
		t.Fatal("no error for an unreachable URI")
	}
	if msg := err.Error(); strings.Contains(msg, "s3cret") || !strings.Contains(msg, "alice:****@127.0.0.1:1") || !strings.Contains(msg, URIEnv) {
		t.Fatalf("message %q: want the URI with its password masked", msg)
	}
	if _, err := backendFor("mongodb://x", "mongo:8.0"); err == nil || !strings.Contains(err.Error(), "expected one backend") {
		t.Fatalf("both variables: %v", err)
	}
}

// Without oidkittest/mongocontainer in the test binary, the image backend
// fails naming the image and the import that gives it containers.
func TestImageBackendNeedsMongocontainer(t *testing.T) {
	_, err := backendFor("", "oidkit-test-no-such-image:0")
	if err == nil || !strings.Contains(err.Error(), ImageEnv+"=oidkit-test-no-such-image:0") || !strings.Contains(err.Error(), "oidkittest/mongocontainer") {
		t.Fatalf("message %v: want the image and the import to add", err)
	}
}

// OIDKIT_TEST_URI's backend, against an embedded server reached by its
// URI as any MongoDB would be: a template, then clones, each marked; a
// database whose marker is gone is not dropped.
func TestRemoteBackend(t *testing.T) {
	s, err := embedded.Start(embedded.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRemote(s.URI(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.client.Disconnect(context.Background()); _ = s.Close() })
	ct, err := newContent(&config{plans: []*seed.Plan{usersPlan(300)}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // the first builds the template, the second clones it
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			h, err := r.open(t, ct, false)
			if err != nil {
				t.Fatal(err)
			}
			h.content = ct
			handles.Store(h.db, h)
			defer handles.Delete(h.db)
			Verify(t, h.db)
		})
	}
	if len(r.tpls) != 1 || len(r.tpls[ct.key].colls[0].Docs) != 300 {
		t.Fatalf("templates: %d", len(r.tpls))
	}
	// The marker is checked before the drop: a database whose marker is
	// gone, or another run's, is left alone and the test told why.
	for _, tc := range []struct{ name, marker, want string }{
		{"marker gone", "", "marker document (oidkittest_marker) is gone"},
		{"another run", "another", "written by another run"},
	} {
		rec := &recorder{TB: t}
		var name string
		t.Run(tc.name, func(t *testing.T) {
			rec.TB = t
			h, err := r.open(rec, &content{}, false)
			if err != nil {
				t.Fatal(err)
			}
			name = h.db.Name()
			if err := h.db.Collection(markerCollection).Drop(t.Context()); err != nil {
				t.Fatal(err)
			}
			if tc.marker != "" {
				_, err = h.db.Collection(markerCollection).InsertOne(t.Context(), marker{ID: "oidkittest", Token: tc.marker})
			} else {
				_, err = h.db.Collection("theirs").InsertOne(t.Context(), bson.D{{Key: "_id", Value: 1}})
			}
			if err != nil {
				t.Fatal(err)
			}
		})
		if !strings.Contains(rec.text(), tc.want) {
			t.Errorf("%s: cleanup said %q; want %q", tc.name, rec.text(), tc.want)
		}
		left, err := r.client.Database(name).ListCollectionNames(context.Background(), bson.D{})
		if err != nil || len(left) != 1 {
			t.Errorf("%s: database %s holds %v, %v; want it left alone", tc.name, name, left, err)
		}
		_ = r.client.Database(name).Drop(context.Background())
	}
}

func TestFixtureErrorKeepsItsType(t *testing.T) {
	fsys := fstest.MapFS{"x/a.ndjson": {Data: []byte("{\n")}}
	_, err := newContent(&config{fixtures: []fixtureSet{{fsys: fsys, patterns: []string{"x/a.ndjson"}}}})
	if err != nil {
		t.Fatalf("a file is read only when loaded: %v", err)
	}
	ct, _ := newContent(&config{fixtures: []fixtureSet{{fsys: fsys, patterns: []string{"x/a.ndjson"}}}})
	e, ok := mustBackend(t).(*embeddedBackend)
	if !ok {
		t.Skip("templates are the embedded server's")
	}
	err = e.loadTemplate(ct)
	var le *fixtures.LineError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "x/a.ndjson:") {
		t.Fatalf("err = %v; want a *fixtures.LineError naming x/a.ndjson", err)
	}
}

// Tests one after the other each see exactly the template and their own
// writes, never an earlier test's.
func TestSequentialClones(t *testing.T) {
	plan := usersPlan(50)
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			db := New(t, WithPlan(plan))
			Verify(t, db)
			if _, err := db.Collection("users").InsertOne(context.Background(), bson.D{{Key: "run", Value: i}}); err != nil {
				t.Fatal(err)
			}
			if n, err := db.Collection("users").CountDocuments(context.Background(), bson.D{}); err != nil || n != 51 {
				t.Fatalf("%d documents (%v); want the 50 of the plan and this test's one", n, err)
			}
		})
	}
}
