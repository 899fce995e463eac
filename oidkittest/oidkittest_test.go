package oidkittest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"go.mongodb.org/mongo-driver/v2/bson"

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

// 64 parallel tests, each with its own clone of a 10,000-document plan, see
// exactly the template plus their own writes.
func TestSixtyFourClones(t *testing.T) {
	if os.Getenv("OIDKIT_TEST_SIXTYFOUR") != "1" {
		t.Skip("64 clones of 10,000 documents: set OIDKIT_TEST_SIXTYFOUR=1")
	}
	plan := usersPlan(10000)
	t.Run("group", func(t *testing.T) { sixtyFour(t, plan) })
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			t.Logf("peak RSS of the test binary: %s", strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")))
		}
	}
}

func sixtyFour(t *testing.T, plan *seed.Plan) {
	for i := range 64 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			db := New(t, WithPlan(plan))
			users := db.Collection("users")
			if _, err := users.InsertOne(t.Context(), bson.D{{Key: "_id", Value: fmt.Sprint("w", i)}, {Key: "writer", Value: i}}); err != nil {
				t.Fatal(err)
			}
			n, err := users.CountDocuments(t.Context(), bson.D{})
			if err != nil || n != 10001 {
				t.Fatalf("%d documents, %v; want 10,000 and this test's one", n, err)
			}
			w, err := users.CountDocuments(t.Context(), bson.D{{Key: "writer", Value: bson.D{{Key: "$exists", Value: true}}}})
			if err != nil || w != 1 {
				t.Fatalf("%d written documents, %v; want only this test's", w, err)
			}
			if i%16 == 0 { // the template's documents, byte for byte
				if _, err := users.DeleteOne(t.Context(), bson.D{{Key: "writer", Value: i}}); err != nil {
					t.Fatal(err)
				}
				Verify(t, db)
			}
		})
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

// The image backend cannot pull or run a container here; it fails naming
// the image instead of skipping.
func TestImageBackendFailsNamingImage(t *testing.T) {
	if testing.Short() {
		t.Skip("asks Docker")
	}
	_, err := backendFor("", "oidkit-test-no-such-image:0")
	if err == nil {
		t.Skip("a container of a missing image started: Docker has it")
	}
	if !strings.Contains(err.Error(), ImageEnv+"=oidkit-test-no-such-image:0") {
		t.Fatalf("message %q does not name the image", err)
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
	if len(r.tpls) != 1 || len(r.tpls[ct.key].colls[0].docs) != 300 {
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
	err = buildTemplate(t.TempDir(), ct)
	var le *fixtures.LineError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "x/a.ndjson:") {
		t.Fatalf("err = %v; want a *fixtures.LineError naming x/a.ndjson", err)
	}
}
