package oidkittest

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/oidkittest/tplcache"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// useCache gives the test a template cache of its own, on, with the
// default bound, and returns its templates directory.
func useCache(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv(tplcache.DirEnv, dir)
	t.Setenv(tplcache.ModeEnv, "on")
	t.Setenv(tplcache.MaxEnv, "512MiB")
	return filepath.Join(dir, "templates")
}

// freshEmbedded is an embedded backend as a new test binary has one: a
// server of its own, no template in memory.
func freshEmbedded(t testing.TB) *embeddedBackend {
	e := &embeddedBackend{dir: t.TempDir()}
	t.Cleanup(func() { _ = e.close() })
	return e
}

// freshRemote is OIDKIT_TEST_URI's backend, as a new test binary has one,
// on an embedded server of its own.
func freshRemote(t testing.TB) *remoteBackend {
	s, err := embedded.Start(embedded.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRemote(s.URI(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.close(); _ = s.Close() })
	return r
}

// newOn is New on backend b.
func newOn(t testing.TB, b backend, opts ...Option) *mongo.Database {
	t.Helper()
	h, err := newHandleOn(t, func() (backend, error) { return b, nil }, opts)
	if err != nil {
		t.Fatalf("oidkittest.New: %v", err)
		return nil
	}
	return h.db
}

// dump is every collection of db but the marker: its documents in _id
// order, as relaxed Extended JSON, and its indexes.
func dump(t *testing.T, db *mongo.Database) map[string][]string {
	t.Helper()
	names, err := db.ListCollectionNames(t.Context(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, n := range names {
		if n == markerCollection {
			continue
		}
		cur, err := db.Collection(n).Find(t.Context(), bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		for cur.Next(t.Context()) {
			out[n] = append(out[n], cur.Current.String())
		}
		if err := cur.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		ixs, err := indexes.List(t.Context(), db.Collection(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, ix := range ixs {
			out[n+" indexes"] = append(out[n+" indexes"], ix.String())
		}
	}
	return out
}

func sameDump(t *testing.T, what string, got, want map[string][]string) {
	t.Helper()
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("%s: collections %v; want the first database's %v, document for document", what, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
}

// entries are the files of the templates directory.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// cachedPlan is a plan of users with an index, and fixture files with a
// sidecar, for one New.
func cachedContent(n int64) []Option {
	plan := usersPlan(n)
	plan.Seed = 33
	plan.Collections[0].Indexes = []indexes.Index{{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true}}
	fsys := fstest.MapFS{
		"d/tags.json":          {Data: []byte(`[{"_id":"a","n":1},{"_id":"b","n":2.5}]`)},
		"d/tags.metadata.json": {Data: []byte(`{"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"},{"v":2,"key":{"n":1},"name":"n_1","unique":true}]}`)},
	}
	return []Option{WithPlan(plan), WithFixtures(fsys, "d/tags.json")}
}

// A template built once is read from the disk cache by a later test
// binary (here: a backend with nothing in memory), on the embedded server
// and on OIDKIT_TEST_URI's backend, without generating it again: the
// database holds the same documents and indexes, and Verify passes.
func TestTemplateCacheSecondBinaryReadsIt(t *testing.T) {
	dir := useCache(t)
	opts := cachedContent(2000)
	before := built.Load()
	first := newOn(t, freshEmbedded(t), opts...)
	if n := built.Load() - before; n != 1 {
		t.Fatalf("the first New built %d templates; want 1", n)
	}
	if e := entries(t, dir); len(e) != 1 || !strings.HasSuffix(e[0], ".tpl") {
		t.Fatalf("cache after the first New: %v; want one entry", e)
	}
	want := dump(t, first)
	if len(want["users"]) != 2000 || len(want["tags"]) != 2 || len(want["users indexes"]) != 1 || len(want["tags indexes"]) != 1 {
		t.Fatalf("the first database: %d users, %d tags, indexes %v %v", len(want["users"]), len(want["tags"]), want["users indexes"], want["tags indexes"])
	}
	for name, b := range map[string]backend{"embedded": freshEmbedded(t), "remote": freshRemote(t)} {
		for i := range 2 { // the template, then a clone of it
			db := newOn(t, b, opts...)
			Verify(t, db)
			sameDump(t, fmt.Sprintf("%s, New %d", name, i), dump(t, db), want)
		}
	}
	if n := built.Load() - before; n != 1 {
		t.Fatalf("%d templates built; want the first only, the others read from the cache", n)
	}
	if e := entries(t, dir); len(e) != 1 {
		t.Fatalf("cache: %v; want the one entry", e)
	}
}

// contentKey is the cache key of the options' template on the embedded
// server, in this binary.
func contentKey(t *testing.T, opts ...Option) string {
	t.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	ct, err := newContent(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tplcache.Inputs(ct.sum, rules.MongoDB.Name()).Key()
}

// The key follows what shapes the documents, and nothing else: the same
// plan built twice has one key; another seed, count, time base, _id
// strategy, index or kind has another; the plan's DB does not count
// (New ignores it).
func TestTemplateCacheKeyFollowsThePlan(t *testing.T) {
	key := func(change func(p *seed.Plan)) string {
		p := usersPlan(100)
		change(p)
		return contentKey(t, WithPlan(p))
	}
	same := key(func(*seed.Plan) {})
	if again := key(func(p *seed.Plan) { p.DB = "other" }); again != same {
		t.Errorf("the plan's DB changed the key")
	}
	seen := map[string]string{same: "the plan"}
	for name, change := range map[string]func(*seed.Plan){
		"seed":        func(p *seed.Plan) { p.Seed = 4 },
		"count":       func(p *seed.Plan) { p.Collections[0].Count = 101 },
		"time base":   func(p *seed.Plan) { p.At = time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC) },
		"id strategy": func(p *seed.Plan) { p.Collections[0].ID, _ = seed.ParseIDStrategy("int") },
		"kind":        func(p *seed.Plan) { p.Collections[0].Kind = seed.KindEmployee },
		"index": func(p *seed.Plan) {
			p.Collections[0].Indexes = []indexes.Index{{Key: bson.D{{Key: "age", Value: int32(1)}}}}
		},
	} {
		k := key(change)
		if other, ok := seen[k]; ok {
			t.Errorf("a change of %s left the key of %s", name, other)
		}
		seen[k] = name
	}
	f1 := fstest.MapFS{"a.ndjson": {Data: []byte(`{"_id":1}` + "\n")}}
	f2 := fstest.MapFS{"a.ndjson": {Data: []byte(`{"_id":2}` + "\n")}}
	if contentKey(t, WithFixtures(f1, "*.ndjson")) == contentKey(t, WithFixtures(f2, "*.ndjson")) {
		t.Error("fixture files of other bytes have one key")
	}
}

// A damaged entry is removed and the template built again, with the
// same content; the entry written then is whole.
func TestTemplateCacheCorruptEntryRebuilt(t *testing.T) {
	dir := useCache(t)
	opts := cachedContent(500)
	want := dump(t, newOn(t, freshEmbedded(t), opts...))
	e := entries(t, dir)
	if len(e) != 1 {
		t.Fatalf("cache: %v", e)
	}
	for _, damage := range []string{"a flipped byte", "cut short", "another format"} {
		data, err := os.ReadFile(e[0])
		if err != nil {
			t.Fatal(err)
		}
		switch damage {
		case "a flipped byte":
			data[len(data)/2] ^= 1
		case "cut short":
			data = data[:len(data)-100]
		case "another format":
			data[16]++ // the version follows the 16-byte magic
		}
		if err := os.WriteFile(e[0], data, 0o600); err != nil {
			t.Fatal(err)
		}
		before := built.Load()
		db := newOn(t, freshEmbedded(t), opts...)
		if built.Load() != before+1 {
			t.Fatalf("%s: the template was not built again", damage)
		}
		Verify(t, db)
		sameDump(t, damage, dump(t, db), want)
		c, err := tplcache.FromEnv()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(strings.TrimSuffix(filepath.Base(e[0]), ".tpl")); err != nil {
			t.Fatalf("%s: the entry written again: %v", damage, err)
		}
	}
}

// With OIDKIT_CACHE=off nothing is read or written: each test binary
// builds its templates.
func TestTemplateCacheOff(t *testing.T) {
	dir := useCache(t)
	t.Setenv(tplcache.ModeEnv, "off")
	before := built.Load()
	for range 2 {
		newOn(t, freshEmbedded(t), WithPlan(usersPlan(20)))
	}
	if n := built.Load() - before; n != 2 {
		t.Fatalf("%d templates built; want 2", n)
	}
	if e := entries(t, dir); len(e) != 0 {
		t.Fatalf("the cache is off, yet holds %v", e)
	}
}

// A bad value of a cache variable fails New, naming the value and what
// was expected.
func TestTemplateCacheBadEnvironment(t *testing.T) {
	useCache(t)
	for env, want := range map[string]string{
		tplcache.MaxEnv:  `OIDKIT_CACHE_MAX="lots": expected a positive size such as 512MiB`,
		tplcache.ModeEnv: `OIDKIT_CACHE="lots": expected "on" or "off"`,
		tplcache.DirEnv:  `OIDKIT_CACHE_DIR="lots": expected an absolute directory`,
	} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "lots")
			rec := &recorder{TB: t}
			if db := newOn(rec, freshEmbedded(t), WithPlan(usersPlan(5))); db != nil {
				t.Fatal("New returned a database")
			}
			var ee *tplcache.EnvError
			if msg := rec.text(); !strings.Contains(msg, want) {
				t.Fatalf("New failed with %q; want %q", msg, want)
			}
			_, err := tplcache.FromEnv()
			if !errors.As(err, &ee) || ee.Var != env {
				t.Fatalf("FromEnv: %v", err)
			}
		})
	}
}

// A copy from the cache that fails half way is undone and the template
// built: the collection is not left with the entry's documents and the
// plan's on top.
func TestTemplateCacheFailedCopyRebuilds(t *testing.T) {
	useCache(t)
	opts := []Option{WithPlan(usersPlan(300))}
	want := dump(t, newOn(t, freshEmbedded(t), opts...))
	c, err := tplcache.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	key := contentKey(t, opts...)
	e, err := c.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	// An entry whose last document repeats the first _id: its copy fails
	// with a duplicate key after the other documents went in.
	docs := e.Collections[0].Docs
	docs[len(docs)-1] = docs[0]
	if err := c.Put(e); err != nil {
		t.Fatal(err)
	}
	before := built.Load()
	db := newOn(t, freshEmbedded(t), opts...)
	if built.Load() != before+1 {
		t.Fatal("the template was not built after the failed copy")
	}
	Verify(t, db)
	sameDump(t, "after a failed copy", dump(t, db), want)
}
