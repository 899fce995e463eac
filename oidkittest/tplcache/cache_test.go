package tplcache

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
)

// testKey is a key as KeyInputs.Key makes them, different for each name.
func testKey(name string) string { return KeyInputs{Content: name}.Key() }

// testEntry is an entry of two collections: users, n documents of about
// 100 bytes and three indexes, and empty, none.
func testEntry(t testing.TB, name string, n int) *Entry {
	t.Helper()
	ttl := int32(3600)
	e := &Entry{Key: testKey(name), What: "plan seed 3: " + name, Collections: []Collection{
		{Name: "users", Indexes: []indexes.Index{
			{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true},
			{Key: bson.D{{Key: "createdAt", Value: int32(-1)}}, ExpireAfterSeconds: &ttl},
			{Key: bson.D{{Key: "age", Value: int32(1)}}, Name: "adults", PartialFilterExpression: bson.D{{Key: "age", Value: bson.D{{Key: "$gte", Value: int32(18)}}}}},
		}},
		{Name: "empty"},
	}}
	for i := range n {
		d, err := bson.Marshal(bson.D{{Key: "_id", Value: int32(i)}, {Key: "name", Value: fmt.Sprintf("%s-%d", name, i)}, {Key: "pad", Value: strings.Repeat("x", 60)}})
		if err != nil {
			t.Fatal(err)
		}
		e.Collections[0].Docs = append(e.Collections[0].Docs, d)
	}
	return e
}

func sameEntry(t *testing.T, got, want *Entry) {
	t.Helper()
	if got.Key != want.Key || got.What != want.What || len(got.Collections) != len(want.Collections) {
		t.Fatalf("entry %s %q with %d collections; want %s %q with %d", got.Key, got.What, len(got.Collections), want.Key, want.What, len(want.Collections))
	}
	for k, w := range want.Collections {
		g := got.Collections[k]
		if g.Name != w.Name || len(g.Docs) != len(w.Docs) || len(g.Indexes) != len(w.Indexes) {
			t.Fatalf("collection %d: %s, %d documents, %d indexes; want %s, %d, %d", k, g.Name, len(g.Docs), len(g.Indexes), w.Name, len(w.Docs), len(w.Indexes))
		}
		for i := range w.Docs {
			if !bytes.Equal(g.Docs[i], w.Docs[i]) {
				t.Fatalf("collection %s document %d: %s; want %s", w.Name, i, g.Docs[i], w.Docs[i])
			}
		}
		for i := range w.Indexes {
			if d := indexes.Diff(g.Indexes[i], w.Indexes[i]); d != "" {
				t.Fatalf("collection %s index %d: %s", w.Name, i, d)
			}
		}
	}
}

func newCache(t *testing.T, max int64) *Cache {
	return &Cache{Dir: filepath.Join(t.TempDir(), "templates"), Max: max}
}

func TestCacheRoundTrip(t *testing.T) {
	c := newCache(t, DefaultMax)
	want := testEntry(t, "a", 500)
	if _, err := c.Get(want.Key); !errors.Is(err, ErrMiss) {
		t.Fatalf("Get of an empty cache: %v; want ErrMiss", err)
	}
	if err := c.Put(want); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(want.Key)
	if err != nil {
		t.Fatal(err)
	}
	sameEntry(t, got, want)
	// An append to a document never writes into the next one.
	d0 := got.Collections[0].Docs[0]
	_ = append(d0, 0xFF)
	if !bytes.Equal(got.Collections[0].Docs[1], want.Collections[0].Docs[1]) {
		t.Fatal("an append to a document changed the next one")
	}
	if m, _ := filepath.Glob(filepath.Join(c.Dir, ".tmp-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// A damaged, cut-short, or other-version entry is a miss and is removed;
// reading one never panics.
func TestCacheCorruptEntryIsRemoved(t *testing.T) {
	c := newCache(t, DefaultMax)
	e := testEntry(t, "a", 20)
	if err := c.Put(e); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(c.path(e.Key))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(at int) []byte { b := bytes.Clone(good); b[at] ^= 0x40; return b }
	other := bytes.Clone(good)
	other[len(magic)] = FormatVersion + 1
	cases := map[string][]byte{
		"empty":                {},
		"a byte of a document": flip(len(good) - sumLen - 50),
		"a byte of the header": flip(prefixLen + 10),
		"the checksum":         flip(len(good) - 1),
		"the magic":            flip(0),
		"another version":      other,
		"cut short":            good[:len(good)/2],
		"a byte more":          append(bytes.Clone(good), 0),
	}
	for i := range len(good) { // every length it can be cut to
		cases[fmt.Sprintf("cut to %d", i)] = good[:i]
	}
	for name, data := range cases {
		if err := os.WriteFile(c.path(e.Key), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := c.Get(e.Key); !errors.Is(err, ErrMiss) {
			t.Fatalf("%s: Get = %v, %v; want ErrMiss", name, got, err)
		}
		if _, err := os.Stat(c.path(e.Key)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: the entry is still there (%v)", name, err)
		}
	}
	// The entry of one key under another's name is not given for it.
	other2 := testKey("b")
	if err := os.WriteFile(c.path(other2), good, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(other2); !errors.Is(err, ErrMiss) || !strings.Contains(err.Error(), "holds key "+e.Key) {
		t.Fatalf("an entry under another key: %v", err)
	}
}

// After a write, the least recently used entries go until the total is
// within the bound; a Get counts as a use.
func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	probe := newCache(t, DefaultMax)
	if err := probe.Put(testEntry(t, "a", 100)); err != nil {
		t.Fatal(err)
	}
	list, _ := probe.List()
	size := list[0].Size
	c := newCache(t, 3*size+size/2) // room for three
	base := time.Now().Add(-time.Hour)
	for i, name := range []string{"a", "b", "c"} {
		if err := c.Put(testEntry(t, name, 100)); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute) // a oldest, then b, then c
		if err := os.Chtimes(c.path(testKey(name)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Get(testKey("a")); err != nil { // a is now the most recent
		t.Fatal(err)
	}
	if err := c.Put(testEntry(t, "d", 100)); err != nil {
		t.Fatal(err)
	}
	if got := keys(t, c); got != "a c d" {
		t.Fatalf("entries after d: %s; want a c d (b least recently used)", got)
	}
	if err := c.Put(testEntry(t, "e", 100)); err != nil { // c is the oldest now
		t.Fatal(err)
	}
	if got := keys(t, c); got != "a d e" {
		t.Fatalf("entries after e: %s; want a d e", got)
	}
	// An entry larger than the bound is not written, and evicts nothing.
	if err := c.Put(testEntry(t, "big", 500)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Put of an entry over the bound: %v; want ErrTooLarge", err)
	}
	if got := keys(t, c); got != "a d e" {
		t.Fatalf("entries after a refused Put: %s", got)
	}
}

// keys names the entries of c ("a c d"), in the order of their names.
func keys(t *testing.T, c *Cache) string {
	t.Helper()
	list, err := c.List()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range []string{"a", "b", "c", "d", "e", "big"} {
		for _, in := range list {
			if in.Key == testKey(name) {
				out = append(out, name)
			}
		}
	}
	if len(out) != len(list) {
		t.Fatalf("%d entries, %d known", len(list), len(out))
	}
	return strings.Join(out, " ")
}

// Writers of one key at once all succeed, and readers meanwhile get the
// whole entry or a miss, never a part.
func TestCacheConcurrentWritersOfOneKey(t *testing.T) {
	c := newCache(t, DefaultMax)
	want := testEntry(t, "a", 2000)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 8 {
		wg.Add(2)
		go func() { defer wg.Done(); errs <- (&Cache{Dir: c.Dir, Max: c.Max}).Put(want) }()
		go func() {
			defer wg.Done()
			if got, err := c.Get(want.Key); err == nil && len(got.Collections[0].Docs) != 2000 {
				errs <- fmt.Errorf("a reader got %d documents", len(got.Collections[0].Docs))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	got, err := c.Get(want.Key)
	if err != nil {
		t.Fatal(err)
	}
	sameEntry(t, got, want)
	if m, _ := filepath.Glob(filepath.Join(c.Dir, "*")); len(m) != 1 {
		t.Errorf("files left: %v; want the one entry", m)
	}
}

// Writers of many keys under a small bound evict at once, each removing
// files another has removed already: every Put succeeds, and the total
// ends within the bound.
func TestCacheConcurrentEviction(t *testing.T) {
	c := newCache(t, 0)
	if err := (&Cache{Dir: c.Dir, Max: DefaultMax}).Put(testEntry(t, "probe", 50)); err != nil {
		t.Fatal(err)
	}
	list, _ := c.List()
	c.Max = 4 * list[0].Size
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- c.Put(testEntry(t, fmt.Sprint(i), 50)) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if err := c.trim(); err != nil {
		t.Fatal(err)
	}
	list, _ = c.List()
	var total int64
	for _, in := range list {
		total += in.Size
	}
	if total > c.Max || len(list) == 0 {
		t.Fatalf("%d entries, %d bytes; want some, within %d", len(list), total, c.Max)
	}
}

func TestCacheListAndClear(t *testing.T) {
	c := newCache(t, DefaultMax)
	if list, err := c.List(); err != nil || len(list) != 0 {
		t.Fatalf("List of a cache not made yet: %v, %v", list, err)
	}
	for _, name := range []string{"a", "b"} {
		if err := c.Put(testEntry(t, name, 10)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(c.path(testKey("bad")), []byte("oidkit template\nxx"), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(c.Dir, tmpPrefix+"stale")
	if err := os.WriteFile(stale, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := c.List()
	if err != nil || len(list) != 3 {
		t.Fatalf("List: %d entries, %v", len(list), err)
	}
	var total int64
	for _, in := range list {
		total += in.Size
		switch in.Key {
		case testKey("bad"):
			if in.Err == nil {
				t.Errorf("a damaged entry listed without its error")
			}
		default:
			if in.Err != nil || len(in.Collections) != 2 || in.Collections[0] != (CollectionInfo{Name: "users", Docs: 10, Indexes: 3}) || !strings.HasPrefix(in.What, "plan seed 3: ") {
				t.Errorf("listed %+v", in)
			}
		}
	}
	// The cache of an earlier oidkit goes too.
	c.Legacy = filepath.Join(t.TempDir(), "oidkittest")
	if err := os.MkdirAll(c.Legacy, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"0123.tpl", ".0123.tpl.tmp"} {
		if err := os.WriteFile(filepath.Join(c.Legacy, name), make([]byte, 1000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n, size := c.LegacySize(); n != 2 || size != 2000 {
		t.Fatalf("LegacySize = %d, %d", n, size)
	}
	r, err := c.Clear()
	if err != nil || r != (Cleared{Entries: 3, Bytes: total + 4 + 2000, LegacyFiles: 2}) {
		t.Fatalf("Clear: %+v, %v; want 3 entries, 2 earlier files, %d bytes", r, err, total+4+2000)
	}
	if m, _ := filepath.Glob(filepath.Join(c.Dir, "*")); len(m) != 0 {
		t.Fatalf("left after Clear: %v", m)
	}
	if _, err := os.Stat(c.Legacy); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the earlier cache's directory after Clear: %v", err)
	}
}

func TestCacheOff(t *testing.T) {
	c := newCache(t, DefaultMax)
	c.Off, c.Why = true, "OIDKIT_CACHE=off"
	e := testEntry(t, "a", 1)
	if err := c.Put(e); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(e.Key); !errors.Is(err, ErrMiss) {
		t.Fatalf("Get of a cache that is off: %v", err)
	}
	if _, err := os.Stat(c.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a cache that is off made its directory: %v", err)
	}
	if err := (&Cache{Dir: c.Dir, Max: DefaultMax}).Put(&Entry{Key: "../x"}); err == nil || !strings.Contains(err.Error(), "64 lowercase hex digits") {
		t.Fatalf("Put of a bad key: %v", err)
	}
}
