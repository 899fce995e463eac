package oidkittest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/seed"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// templateOf builds (or reads from the cache) the template of plan as a
// new test binary would: a backend of its own.
func templateOf(t *testing.T, plan *seed.Plan) (*fileTemplate, *content) {
	t.Helper()
	ct, err := newContent(&config{plans: []*seed.Plan{plan}})
	if err != nil {
		t.Fatal(err)
	}
	e := &embeddedBackend{}
	tpl, err := e.template(ct)
	if err != nil {
		t.Fatal(err)
	}
	return tpl, ct
}

// countIn starts a server over a copy of the template file and counts its
// users, as a clone would see them.
func countIn(t *testing.T, tpl *fileTemplate) int64 {
	t.Helper()
	dir := t.TempDir()
	if err := copyFile(tpl.file, filepath.Join(dir, "c"+sqliteExt)); err != nil {
		t.Fatal(err)
	}
	s, c, err := startEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer stopEmbedded(s, c)
	n, err := c.Database("c").Collection("users").CountDocuments(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func entryOf(t *testing.T, dir string, ct *content) string {
	t.Helper()
	key, err := ct.cacheKey()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, key+cacheExt)
}

// A second test binary reads the template from the cache; a changed plan
// never gets another plan's template; a corrupt or truncated entry is
// never used, and is rebuilt.
func TestTemplateCache(t *testing.T) {
	skipOnOwnEngine(t)
	dir := t.TempDir()
	t.Setenv(CacheEnv, dir)
	first, ct := templateOf(t, usersPlan(300))
	if first.hit {
		t.Fatal("first build: read from an empty cache")
	}
	entry := entryOf(t, dir, ct)
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("no cache entry after the build: %v", err)
	}
	again, _ := templateOf(t, usersPlan(300))
	if !again.hit {
		t.Fatal("second binary: the cache was not read")
	}
	a, _ := os.ReadFile(first.file)
	b, _ := os.ReadFile(again.file)
	if !bytes.Equal(a, b) {
		t.Fatal("the cached template differs from the one built")
	}

	// Changed plans: other keys, their own documents.
	for _, p := range []*seed.Plan{usersPlan(301), func() *seed.Plan { p := usersPlan(300); p.Seed = 4; return p }()} {
		tpl, ct2 := templateOf(t, p)
		if tpl.hit || entryOf(t, dir, ct2) == entry {
			t.Fatalf("plan %+v: got the cached template of another plan", p.Collections)
		}
		if n := countIn(t, tpl); n != p.Collections[0].Count {
			t.Fatalf("plan of %d: the template holds %d", p.Collections[0].Count, n)
		}
	}

	good, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		bad  func([]byte) []byte
	}{
		{"a byte flipped", func(b []byte) []byte { b = bytes.Clone(b); b[len(b)/2] ^= 1; return b }},
		{"truncated to half", func(b []byte) []byte { return b[:len(b)/2] }},
		{"trailer cut", func(b []byte) []byte { return b[:len(b)-1] }},
		{"shorter than a trailer", func(b []byte) []byte { return b[:10] }},
		{"empty", func([]byte) []byte { return nil }},
		{"other magic", func(b []byte) []byte { b = bytes.Clone(b); b[len(b)-1] = '0'; return b }},
		{"length off", func(b []byte) []byte {
			return append(bytes.Clone(b[:len(b)-cacheTrailer-1]), b[len(b)-cacheTrailer:]...)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(entry, tc.bad(good), 0o644); err != nil {
				t.Fatal(err)
			}
			tpl, _ := templateOf(t, usersPlan(300))
			if tpl.hit {
				t.Fatal("a bad entry was used")
			}
			if n := countIn(t, tpl); n != 300 {
				t.Fatalf("the template holds %d users; want 300", n)
			}
			if ok, err := readEntry(entry, filepath.Join(t.TempDir(), "x")); !ok || err != nil {
				t.Fatalf("the bad entry was not replaced by a good one: %v", err)
			}
		})
	}
}

// Fixture files with other bytes or names give other keys.
func TestCacheKeyFixtures(t *testing.T) {
	keyOf := func(fsys fstest.MapFS) string {
		ct, err := newContent(&config{fixtures: []fixtureSet{{fsys: fsys, patterns: []string{"*.ndjson"}}}})
		if err != nil {
			t.Fatal(err)
		}
		k, err := ct.cacheKey()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	a := keyOf(fstest.MapFS{"a.ndjson": {Data: []byte(`{"_id":1}` + "\n")}})
	for name, fsys := range map[string]fstest.MapFS{
		"one byte":    {"a.ndjson": {Data: []byte(`{"_id":2}` + "\n")}},
		"other name":  {"b.ndjson": {Data: []byte(`{"_id":1}` + "\n")}},
		"a file more": {"a.ndjson": {Data: []byte(`{"_id":1}` + "\n")}, "c.ndjson": {Data: []byte(`{"_id":1}` + "\n")}},
	} {
		if keyOf(fsys) == a {
			t.Errorf("%s: the same key", name)
		}
	}
	if keyOf(fstest.MapFS{"a.ndjson": {Data: []byte(`{"_id":1}` + "\n")}}) != a {
		t.Error("the same files: another key")
	}
}

// Other versions of what shapes the bytes give other keys; this test
// binary's oidkit has no version, so its build ID is in the key.
func TestCacheKeyVersions(t *testing.T) {
	v, err := shapingVersions()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{cacheFormat, "go " + runtime.Version(), "binary "}, shapingModules...) {
		if !strings.Contains(v, want) {
			t.Errorf("versions %q: want %q in them", v, want)
		}
	}
	ct, _ := newContent(&config{plans: []*seed.Plan{usersPlan(3)}})
	k1, _ := ct.cacheKey()
	versions.text = strings.Replace(v, "gofakeit/v7 ", "gofakeit/v7 x", 1)
	k2, _ := ct.cacheKey()
	versions.text = v
	if k1 == k2 {
		t.Fatal("another gofakeit version gave the same key")
	}
}

func TestCacheEnv(t *testing.T) {
	skipOnOwnEngine(t)
	file := filepath.Join(t.TempDir(), "file")
	_ = os.WriteFile(file, nil, 0o644)
	t.Setenv(CacheEnv, filepath.Join(file, "sub"))
	if _, err := cacheDir(); err == nil || !strings.Contains(err.Error(), CacheEnv+"="+file) {
		t.Fatalf("a cache directory that cannot be made: %v", err)
	}
	t.Setenv(CacheEnv, "")
	t.Setenv("XDG_CACHE_HOME", file) // the default under a file: no cache, no failure
	if d, err := cacheDir(); d != "" || err != nil {
		t.Fatalf("default directory that cannot be made: %q, %v; want no cache", d, err)
	}

	t.Setenv(CacheEnv, "off")
	if d, err := cacheDir(); d != "" || err != nil {
		t.Fatalf("off: %q, %v", d, err)
	}
	t.Setenv(CacheEnv, "relative/dir")
	rec := &recorder{TB: t}
	if db := New(rec, WithPlan(usersPlan(2))); db != nil || !strings.Contains(rec.text(), `OIDKIT_TEST_CACHE="relative/dir": expected off or an absolute directory`) {
		t.Fatalf("a relative cache directory: %q", rec.text())
	}
}

// Two test binaries writing and reading one entry at once: every read
// that finds an entry gets the whole template.
func TestCachePutConcurrent(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "tpl.sqlite")
	want := bytes.Repeat([]byte("SQLite format 3\x00 0123456789"), 200000)
	if err := os.WriteFile(src, want, 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	hits := make([]bool, 8)
	for i := range 8 {
		wg.Add(2)
		go func() { defer wg.Done(); cachePut(dir, "k", src) }()
		go func() {
			defer wg.Done()
			dst := filepath.Join(t.TempDir(), "out")
			if hits[i] = cacheGet(dir, "k", dst); hits[i] {
				if got, _ := os.ReadFile(dst); !bytes.Equal(got, want) {
					t.Errorf("read %d: %d bytes, not the template", i, len(got))
				}
			}
		}()
	}
	wg.Wait()
	dst := filepath.Join(t.TempDir(), "out")
	if !cacheGet(dir, "k", dst) {
		t.Fatal("no entry after the writes")
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	// An old temporary file of a dead writer is removed by the next write.
	old := filepath.Join(dir, "k"+cacheExt+".tmp-1")
	_ = os.WriteFile(old, []byte("x"), 0o644)
	past := time.Now().Add(-2 * time.Hour)
	_ = os.Chtimes(old, past, past)
	cachePut(dir, "k", src)
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("old temporary file: %v", err)
	}
}

// FerretDB opens a data directory's database files only when it starts:
// a file copied in later is not seen, which is why every clone server has
// its clones' files in place before it starts.
func TestServerIgnoresLateFile(t *testing.T) {
	skipOnOwnEngine(t)
	tpl, _ := templateOf(t, usersPlan(5))
	dir := t.TempDir()
	s, c, err := startEmbedded(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer stopEmbedded(s, c)
	if err := copyFile(tpl.file, filepath.Join(dir, "late"+sqliteExt)); err != nil {
		t.Fatal(err)
	}
	names, err := c.ListDatabaseNames(t.Context(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n == "late" {
			t.Fatal("the server saw a file copied in after it started: clones could share the shared server")
		}
	}
	n, err := c.Database("late").Collection("users").CountDocuments(t.Context(), bson.D{})
	if err == nil && n == 5 {
		t.Fatal("the server read a file copied in after it started")
	}
	// After a write to its name, the database does not show the file's
	// documents either.
	if _, err := c.Database("late").Collection("users").InsertOne(t.Context(), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Database("late").Collection("users").CountDocuments(t.Context(), bson.D{}); err != nil || n != 1 {
		t.Fatalf("after a write: %d documents, %v; want only the one written, the file's 5 unseen", n, err)
	}
}

// Close stops every server New started and removes the binary's directory
// (but a kept database's); New then starts afresh.
func TestCloseLeavesNothing(t *testing.T) {
	if _, ok := mustBackend(t).(*embeddedBackend); !ok {
		t.Skip("about the embedded server")
	}
	if err := Close(); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	var keptName string
	rec := &logRecorder{}
	t.Run("use", func(t *testing.T) {
		t.Run("empty", func(t *testing.T) { New(t) })
		t.Run("seeded", func(t *testing.T) { New(t, WithPlan(usersPlan(20))) })
		t.Run("kept", func(t *testing.T) {
			rec.TB = t
			db := New(rec, WithPlan(usersPlan(20)), Keep())
			keptName = db.Name()
		})
	})
	dir := root.dir
	if dir == "" {
		t.Fatal("no directory made")
	}
	if err := Close(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != "KEEP" || !strings.HasPrefix(names[1], "clones-") {
		t.Fatalf("left in %s: %v; want only KEEP and the kept clone's directory", dir, names)
	}
	if _, err := os.Stat(filepath.Join(dir, names[1], keptName+sqliteExt)); err != nil {
		t.Fatalf("the kept database: %v", err)
	}
	if !strings.Contains(rec.log.String(), "kept database "+keptName+" (asked to keep it): in data directory "+filepath.Join(dir, names[1])) {
		t.Fatalf("the kept message %q does not say where", rec.log.String())
	}
	_ = os.RemoveAll(dir)
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
	db := New(t) // starts afresh
	if err := db.Client().Ping(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
}

// logRecorder swallows logs (the kept message) into a buffer.
type logRecorder struct {
	testing.TB
	mu  sync.Mutex
	log bytes.Buffer
}

func (r *logRecorder) Helper() {}
func (r *logRecorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(&r.log, format+"\n", args...)
}

// skipOnOwnEngine skips a test of the template cache, which holds FerretDB's
// SQLite files: oidkit's own engine clones templates in memory instead.
func skipOnOwnEngine(t *testing.T) {
	t.Helper()
	if embedded.OwnEngineChosen() {
		t.Skip("the template cache holds FerretDB's SQLite files; oidkit's own engine clones templates in memory")
	}
}
