package verify

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/oid"
	"github.com/oidkit/oidkit/seed"
)

// Expected is what one collection should hold: the documents a seeded plan
// generates, or the documents of fixture files. Build it with
// ExpectCollection or ExpectFixtures.
type Expected struct {
	// DB and Collection name the collection to read.
	DB, Collection string

	src source

	// typeDesc says which _id types are allowed ("ObjectID (--id
	// objectid)"); typeOK tests one.
	typeDesc string
	typeOK   func(bson.RawValue) bool

	// oids is set when the _ids are ObjectIDs: their timestamps are checked.
	oids bool
	// oidsReason says why they are not checked.
	oidsReason string
	// createdAt is set when every expected document with an ObjectID _id
	// has a createdAt date equal to the _id timestamp; createdAtReason
	// says why not.
	createdAt       bool
	createdAtReason string
	// winLo, winHi bound the ObjectID timestamps (Unix seconds); winDesc
	// says where the window comes from.
	winLo, winHi int64
	winDesc      string

	// ordered is set when the expected _ids increase in generation (or
	// file) order, so that reading sorted by _id must give that order;
	// orderReason says why not.
	ordered     bool
	orderReason string

	refs []refSpec
}

// refSpec is a reference field whose values must be _ids of another
// collection.
type refSpec struct {
	Field, To string
}

// Len is the number of expected documents.
func (e *Expected) Len() int64 { return e.src.count() }

// source is where expected documents come from.
type source interface {
	count() int64
	// lookup finds the expected document with this _id.
	lookup(id bson.RawValue) (int64, bool)
	// newMatcher returns a matcher for one goroutine.
	newMatcher() matcher
	// label names document i in messages: "document 17", "users.ndjson:12".
	label(i int64) string
	// id returns the _id of document i when that is cheap.
	id(i int64) (bson.RawValue, bool)
	// doc returns document i when that is cheap (random access).
	doc(i int64) (bson.Raw, bool)
	// scan visits every expected document; fn may be called from several
	// goroutines at once, each i once.
	scan(ctx context.Context, fn func(i int64, doc bson.Raw)) error
	// setup builds what lookup needs, if anything (a pass over the _ids).
	setup(ctx context.Context, progress func(done int64)) error
}

// matcher compares stored documents with expected ones. equal reports
// whether they are the same bytes; expected is the expected document when
// the source has it at hand (nil otherwise: the details come later).
type matcher interface {
	match(i int64, stored bson.Raw) (equal bool, expected bson.Raw)
}

// ---------------------------------------------------------------------------
// Seeded plans

// ExpectCollection expects what collection c of a seeded dataset generates.
// An unseeded dataset cannot be rebuilt and is an error.
func ExpectCollection(ds *seed.Dataset, c *seed.Collection) (*Expected, error) {
	if !ds.Seeded {
		return nil, errors.New("the plan has no seed: its documents cannot be rebuilt; expected the seed the data was written with")
	}
	s := &seedSource{ds: ds, c: c, n: c.Len()}
	spec := c.Spec()
	e := &Expected{DB: ds.DB, Collection: c.Name(), src: s}
	base := ds.Base.Unix()
	e.winLo, e.winHi = base-int64(ds.Span/time.Second), base
	e.winDesc = "the plan's window"
	switch spec.ID.Kind {
	case seed.IDObjectID:
		e.typeDesc = "ObjectID (--id objectid)"
		e.typeOK = func(v bson.RawValue) bool { return v.Type == bson.TypeObjectID }
		e.oids, e.createdAt = true, true
		e.ordered, e.orderReason = s.objectIDOrdered()
		if s.n > 0 {
			first := c.ObjectID(0)
			s.tail0 = binary.BigEndian.Uint64(first[4:])
		}
	case seed.IDInt:
		e.typeDesc = "int32 or int64 (--id int)"
		e.typeOK = func(v bson.RawValue) bool { return v.Type == bson.TypeInt32 || v.Type == bson.TypeInt64 }
		e.ordered = true
	case seed.IDUUID:
		e.typeDesc = "binary subtype 4, 16 bytes (--id uuid)"
		e.typeOK = func(v bson.RawValue) bool {
			st, data, ok := v.BinaryOK()
			return ok && st == bson.TypeBinaryUUID && len(data) == 16
		}
		e.orderReason = "uuid _ids are random: sorted order is not generation order"
		s.table = true
	case seed.IDField:
		s.table = true
		e.typeDesc = "the type of field " + spec.ID.Field + " (--id " + spec.ID.String() + ")"
		if s.n > 0 {
			t := rawValueOf(c.ID(0)).Type
			e.typeDesc = typeName(t) + ", the type of field " + spec.ID.Field + " (--id " + spec.ID.String() + ")"
			e.typeOK = func(v bson.RawValue) bool { return v.Type == t }
		} else {
			e.typeOK = func(bson.RawValue) bool { return true }
		}
		// Whether the natural key increases with the document number is
		// learnt while the _id table is built.
		e.ordered = true
		s.orderOut = e
	}
	if spec.ID.Kind != seed.IDObjectID {
		e.oidsReason = "the _ids are not ObjectIDs (--id " + spec.ID.String() + ")"
	}
	for _, r := range spec.Refs {
		e.refs = append(e.refs, refSpec{Field: r.Field, To: r.To})
	}
	return e, nil
}

type seedSource struct {
	ds    *seed.Dataset
	c     *seed.Collection
	n     int64
	tail0 uint64 // bytes 4..11 of ObjectID 0, for inverting ObjectIDs

	// table strategies (uuid, field) keep a sorted (key, i) table.
	table    bool
	entries  []keyEntry
	orderOut *Expected
}

type keyEntry struct {
	key idKey
	i   int64
}

func (s *seedSource) count() int64 { return s.n }

// objectIDOrdered says whether ObjectID i < ObjectID i+1 for every i. The
// timestamps never decrease with i; bytes 4..11 (random value and counter)
// are one 64-bit number that grows by one per document and wraps only past
// 2^64, which breaks the order only where the wrap falls between two
// documents with the same timestamp.
func (s *seedSource) objectIDOrdered() (bool, string) {
	if s.n < 2 {
		return true, ""
	}
	k, wraps := wrapIndex(s.c.ObjectID(0), s.c.ObjectID(s.n-1))
	if wraps && s.c.Time(k-1).Equal(s.c.Time(k)) {
		return false, fmt.Sprintf("the ObjectID random value and counter wrap past 2^64 at document %d, within one second: sorted order is not generation order", k)
	}
	return true, ""
}

// wrapIndex finds where bytes 4..11 of a run of consecutive seeded
// ObjectIDs (one 64-bit number, +1 per document) wrap to zero: the document
// number k, when the run from first to last wraps at all.
func wrapIndex(first, last oid.ID) (k int64, wraps bool) {
	t0 := binary.BigEndian.Uint64(first[4:])
	tl := binary.BigEndian.Uint64(last[4:])
	if tl >= t0 {
		return 0, false
	}
	return int64(-t0), true
}

func (s *seedSource) setup(ctx context.Context, progress func(int64)) error {
	if !s.table || s.entries != nil {
		return nil
	}
	entries := make([]keyEntry, s.n)
	// bad is the first document whose natural key does not sort after the
	// previous one's, or -1.
	bad := int64(-1)
	var mu sync.Mutex
	var done int64
	err := parallel(ctx, s.n, func(from, to int64) {
		var prev bson.RawValue
		first := int64(-1)
		for i := from; i < to; i++ {
			v := rawValueOf(s.c.ID(i))
			entries[i] = keyEntry{key: keyOf(v), i: i}
			if i > from && first < 0 {
				if c, ok := compareIDs(prev, v); !ok || c >= 0 {
					first = i
				}
			}
			prev = v
		}
		mu.Lock()
		if first >= 0 && (bad < 0 || first < bad) {
			bad = first
		}
		done += to - from
		if progress != nil {
			progress(done)
		}
		mu.Unlock()
	})
	if err != nil {
		return err
	}
	// Chunk boundaries: the last of one chunk against the first of the next.
	for b := int64(chunk); b < s.n && (bad < 0 || b < bad); b += chunk {
		if r, ok := compareIDs(rawValueOf(s.c.ID(b-1)), rawValueOf(s.c.ID(b))); !ok || r >= 0 {
			bad = b
			break
		}
	}
	if s.orderOut != nil && bad >= 0 {
		s.orderOut.ordered = false
		s.orderOut.orderReason = fmt.Sprintf("natural key %s does not increase with the document number (document %d does not sort after document %d): sorted order is not generation order",
			s.c.Spec().ID.Field, bad, bad-1)
	}
	slices.SortFunc(entries, func(a, b keyEntry) int { return bytes.Compare(a.key[:], b.key[:]) })
	s.entries = entries
	return nil
}

func (s *seedSource) lookup(id bson.RawValue) (int64, bool) {
	if s.n == 0 {
		return 0, false
	}
	spec := s.c.Spec()
	switch spec.ID.Kind {
	case seed.IDObjectID:
		oid, ok := id.ObjectIDOK()
		if !ok {
			return 0, false
		}
		i := binary.BigEndian.Uint64(oid[4:]) - s.tail0
		if i >= uint64(s.n) || bson.ObjectID(s.c.ObjectID(int64(i))) != oid {
			return 0, false
		}
		return int64(i), true
	case seed.IDInt:
		v, ok := integral(id)
		if !ok {
			return 0, false
		}
		i := uint64(v) - uint64(spec.IDStart)
		if i >= uint64(s.n) {
			return 0, false
		}
		return int64(i), true
	}
	return findEntry(s.entries, keyOf(id))
}

func findEntry(entries []keyEntry, k idKey) (int64, bool) {
	at, ok := slices.BinarySearchFunc(entries, k, func(e keyEntry, k idKey) int { return bytes.Compare(e.key[:], k[:]) })
	if !ok {
		return 0, false
	}
	return entries[at].i, true
}

func (s *seedSource) label(i int64) string { return fmt.Sprintf("document %d", i) }

func (s *seedSource) id(i int64) (bson.RawValue, bool) { return rawValueOf(s.c.ID(i)), true }

func (s *seedSource) doc(i int64) (bson.Raw, bool) {
	b, err := bson.Marshal(s.c.Doc(i))
	return b, err == nil
}

func (s *seedSource) newMatcher() matcher { return &seedMatcher{w: s.c.NewWorker()} }

type seedMatcher struct{ w *seed.Worker }

func (m *seedMatcher) match(i int64, stored bson.Raw) (bool, bson.Raw) {
	b, err := bson.Marshal(m.w.Doc(i))
	if err != nil {
		return false, nil
	}
	if bytes.Equal(stored, b) {
		return true, nil
	}
	return false, b
}

// chunk is the number of documents a worker generates at a time.
const chunk = 1024

// parallel runs fn over [0, n) in chunks on every CPU.
func parallel(ctx context.Context, n int64, fn func(from, to int64)) error {
	workers := runtime.GOMAXPROCS(0)
	next := make(chan int64)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for from := range next {
				fn(from, min(from+chunk, n))
			}
		}()
	}
	var err error
feed:
	for from := int64(0); from < n; from += chunk {
		select {
		case next <- from:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	return err
}

func (s *seedSource) scan(ctx context.Context, fn func(i int64, doc bson.Raw)) error {
	return parallel(ctx, s.n, func(from, to int64) {
		w := s.c.NewWorker()
		for i := from; i < to; i++ {
			if b, err := bson.Marshal(w.Doc(i)); err == nil {
				fn(i, b)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// Fixture files

// FixtureError is a fixture file that cannot serve as the expected content:
// a bad document, a document without _id, or an _id given twice.
type FixtureError struct {
	File string
	Line int
	Err  error
}

func (e *FixtureError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *FixtureError) Unwrap() error { return e.Err }

// ExpectFixtures expects the documents of fixture files (NDJSON or array,
// Extended JSON), in the order given, in collection coll of database db.
// The files are read when the check runs: twice at most (an index pass, and
// a second one only to describe mismatches).
func ExpectFixtures(db, coll string, paths []string) (*Expected, error) {
	if len(paths) == 0 {
		return nil, errors.New("no fixture file")
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, &FixtureError{File: p, Err: err}
		}
	}
	s := &fixtureSource{paths: paths}
	e := &Expected{DB: db, Collection: coll, src: s}
	s.e = e
	return e, nil
}

type fixtureSource struct {
	paths   []string
	e       *Expected
	n       int64
	entries []keyEntry
	full    []digest // the digest of each document, _id first
	lines   []uint32 // the line each document starts at
	starts  []int64  // the index of the first document of each file
	ready   bool
}

func (s *fixtureSource) count() int64 { return s.n }

// read streams the documents of every file, _id first, with their index.
func (s *fixtureSource) read(ctx context.Context, fn func(i int64, file string, line int, doc bson.Raw) error) error {
	var i int64
	for _, p := range s.paths {
		f, err := os.Open(p)
		if err != nil {
			return &FixtureError{File: p, Err: err}
		}
		r := fixtures.NewReader(f, p)
		r.RequireID = true
		for {
			if i%1024 == 0 && ctx.Err() != nil {
				f.Close()
				return ctx.Err()
			}
			d, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				var le *fixtures.LineError
				if errors.As(err, &le) {
					return &FixtureError{File: le.File, Line: le.Line, Err: le.Err}
				}
				return &FixtureError{File: p, Err: err}
			}
			doc, err := idFirst(d.Raw)
			if err != nil {
				f.Close()
				return &FixtureError{File: p, Line: d.Line, Err: err}
			}
			if err := fn(i, p, d.Line, doc); err != nil {
				f.Close()
				return err
			}
			i++
		}
		f.Close()
	}
	return nil
}

func (s *fixtureSource) setup(ctx context.Context, progress func(int64)) error {
	if s.ready {
		return nil
	}
	e := s.e
	types := map[bson.Type]bool{}
	var prev bson.RawValue
	var prevLabel string
	e.ordered = true
	e.createdAt = true
	oidCount := int64(0)
	fileIdx := -1
	var lastFile string
	err := s.read(ctx, func(i int64, file string, line int, doc bson.Raw) error {
		if file != lastFile || fileIdx < 0 {
			fileIdx++
			lastFile = file
			s.starts = append(s.starts, i)
		}
		id, err := doc.LookupErr("_id")
		if err != nil {
			return &FixtureError{File: file, Line: line, Err: errors.New("no _id: verify db finds documents by _id")}
		}
		if line > 1<<32-1 {
			return &FixtureError{File: file, Line: line, Err: errors.New("too many lines")}
		}
		s.entries = append(s.entries, keyEntry{key: keyOf(id), i: i})
		s.full = append(s.full, digestOf(doc))
		s.lines = append(s.lines, uint32(line))
		types[id.Type] = true
		label := fmt.Sprintf("%s:%d", filepath.Base(file), line)
		if e.ordered && i > 0 {
			if c, ok := compareIDs(prev, id); !ok || c >= 0 {
				e.ordered = false
				e.orderReason = fmt.Sprintf("the files' _ids are not in increasing order (%s sorts before %s): sorted order is not file order", label, prevLabel)
			}
		}
		prev = bson.RawValue{Type: id.Type, Value: bytes.Clone(id.Value)}
		prevLabel = label
		if oid, ok := id.ObjectIDOK(); ok {
			secs := int64(binary.BigEndian.Uint32(oid[:4]))
			if oidCount == 0 || secs < e.winLo {
				e.winLo = secs
			}
			if oidCount == 0 || secs > e.winHi {
				e.winHi = secs
			}
			oidCount++
			if e.createdAt {
				ca, err := doc.LookupErr("createdAt")
				ms, isDate := ca.DateTimeOK()
				if err != nil || !isDate || ms != secs*1000 {
					e.createdAt = false
					e.createdAtReason = fmt.Sprintf("the expected documents do not all have a createdAt equal to their _id timestamp (%s)", label)
				}
			}
		}
		if progress != nil && i%4096 == 0 {
			progress(i)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.n = int64(len(s.entries))
	slices.SortFunc(s.entries, func(a, b keyEntry) int { return bytes.Compare(a.key[:], b.key[:]) })
	for k := 1; k < len(s.entries); k++ {
		if s.entries[k].key == s.entries[k-1].key {
			a, b := s.entries[k-1].i, s.entries[k].i
			if a > b {
				a, b = b, a
			}
			file, line := s.where(b)
			return &FixtureError{File: file, Line: line, Err: fmt.Errorf("%w: the same _id as %s", fixtures.ErrDuplicateID, s.label(a))}
		}
	}
	var names []string
	for t := range types {
		names = append(names, typeName(t))
	}
	slices.Sort(names)
	e.typeDesc = fmt.Sprintf("%v, the _id types of the files", names)
	if len(names) == 1 {
		e.typeDesc = names[0] + ", the _id type of the files"
	}
	e.typeOK = func(v bson.RawValue) bool { return types[v.Type] }
	e.oids = oidCount > 0
	if !e.oids {
		e.oidsReason = "the files have no ObjectID _id"
		e.createdAt = false
	}
	e.winDesc = "the files' ObjectID timestamps"
	s.ready = true
	return nil
}

func (s *fixtureSource) where(i int64) (string, int) {
	k := 0
	for k+1 < len(s.starts) && s.starts[k+1] <= i {
		k++
	}
	return s.paths[k], int(s.lines[i])
}

func (s *fixtureSource) label(i int64) string {
	if i < 0 || i >= int64(len(s.lines)) {
		return fmt.Sprintf("document %d", i)
	}
	file, line := s.where(i)
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}

func (s *fixtureSource) lookup(id bson.RawValue) (int64, bool) {
	return findEntry(s.entries, keyOf(id))
}

func (s *fixtureSource) id(int64) (bson.RawValue, bool) { return bson.RawValue{}, false }

func (s *fixtureSource) doc(int64) (bson.Raw, bool) { return nil, false }

func (s *fixtureSource) newMatcher() matcher { return fixtureMatcher{s} }

type fixtureMatcher struct{ s *fixtureSource }

func (m fixtureMatcher) match(i int64, stored bson.Raw) (bool, bson.Raw) {
	return digestOf(stored) == m.s.full[i], nil
}

func (s *fixtureSource) scan(ctx context.Context, fn func(i int64, doc bson.Raw)) error {
	return s.read(ctx, func(i int64, _ string, _ int, doc bson.Raw) error {
		fn(i, doc)
		return nil
	})
}
