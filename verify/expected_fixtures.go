package verify

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/fixtures"
)

// ExpectFixtures expects the documents of fixture files (NDJSON or array,
// Extended JSON), in the order given, in collection coll of database db. It
// reads the files once to index their _ids and learn what the checks need
// (the _id types and order, the ObjectID window); VerifyDB reads them again
// only to describe mismatches. A file that cannot serve as the expected
// content is a *fixtures.LineError: a bad document, a document without _id,
// or an _id given twice.
func ExpectFixtures(ctx context.Context, db, coll string, paths []string) (*Expected, error) {
	return ExpectFixturesWith(ctx, db, coll, paths, FixtureOptions{})
}

// FixtureOptions are how ExpectFixturesWith reads the files.
type FixtureOptions struct {
	// InexactNumbers reads a number that no double or int64 holds as
	// written as its nearest double (fixtures.Reader.InexactNumbers), as
	// a load with the same option stored it.
	InexactNumbers bool
	// FS, when set, holds the files: the paths are its names, read and
	// named in errors as in FS. nil is the operating system's file system.
	FS fs.FS
}

// ExpectFixturesWith is ExpectFixtures reading the files with opts.
func ExpectFixturesWith(ctx context.Context, db, coll string, paths []string, opts FixtureOptions) (*Expected, error) {
	if len(paths) == 0 {
		return nil, errors.New("no fixture file")
	}
	for _, p := range paths {
		if _, err := statFile(opts.FS, p); err != nil {
			return nil, err
		}
	}
	s := &fixtureSource{paths: paths, inexact: opts.InexactNumbers, fsys: opts.FS}
	e := &Expected{DB: db, Collection: coll, src: s}
	if err := s.index(ctx, e); err != nil {
		return nil, err
	}
	return e, nil
}

type fixtureSource struct {
	paths   []string
	inexact bool  // FixtureOptions.InexactNumbers
	fsys    fs.FS // FixtureOptions.FS
	n       int64
	entries []keyEntry
	full    []digest // the digest of each document, _id first
	lines   []uint32 // the line each document starts at
	starts  []int64  // the index of the first document of each file
}

func (s *fixtureSource) count() int64 { return s.n }

// statFile is os.Stat of name, or fs.Stat in fsys when it is set.
func statFile(fsys fs.FS, name string) (fs.FileInfo, error) {
	if fsys == nil {
		return os.Stat(name)
	}
	return fs.Stat(fsys, name)
}

// openFile is os.Open of name, or fsys.Open when fsys is set.
func openFile(fsys fs.FS, name string) (fs.File, error) {
	if fsys == nil {
		return os.Open(name)
	}
	return fsys.Open(name)
}

// read streams the documents of every file, _id first, with their index.
func (s *fixtureSource) read(ctx context.Context, fn func(i int64, file string, line int, doc bson.Raw) error) error {
	var i int64
	for _, p := range s.paths {
		f, err := openFile(s.fsys, p)
		if err != nil {
			return err
		}
		r := fixtures.NewReader(f, p)
		r.RequireID = true
		r.InexactNumbers = s.inexact
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
					return err
				}
				return fmt.Errorf("%s: %w", p, err)
			}
			doc, err := idFirst(d.Raw)
			if err != nil {
				f.Close()
				return &fixtures.LineError{File: p, Line: d.Line, Err: err}
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

// index reads the files once: the _id table, the digests and lines of the
// documents, and the facts of e that depend on the files.
func (s *fixtureSource) index(ctx context.Context, e *Expected) error {
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
			return &fixtures.LineError{File: file, Line: line, Err: errors.New("no _id: verify db finds documents by _id")}
		}
		if line > 1<<32-1 {
			return &fixtures.LineError{File: file, Line: line, Err: errors.New("too many lines")}
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
			e.fileObjectID(doc, oid, label, oidCount)
			oidCount++
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.n = int64(len(s.entries))
	if err := s.sortEntries(); err != nil {
		return err
	}
	e.fileIDTypes(types)
	e.oids = oidCount > 0
	if !e.oids {
		e.oidsReason = "the files have no ObjectID _id"
		e.createdAt = false
	}
	e.winDesc = "the files' ObjectID timestamps"
	return nil
}

// fileObjectID widens the ObjectID window of e to the timestamp of oid,
// the _id of doc (the first ObjectID when n, the count of those before,
// is 0), and checks that doc's createdAt is that timestamp.
func (e *Expected) fileObjectID(doc bson.Raw, oid bson.ObjectID, label string, n int64) {
	secs := int64(binary.BigEndian.Uint32(oid[:4]))
	if n == 0 || secs < e.winLo {
		e.winLo = secs
	}
	if n == 0 || secs > e.winHi {
		e.winHi = secs
	}
	if e.createdAt {
		ca, err := doc.LookupErr("createdAt")
		ms, isDate := ca.DateTimeOK()
		if err != nil || !isDate || ms != secs*1000 {
			e.createdAt = false
			e.createdAtReason = fmt.Sprintf("the expected documents do not all have a createdAt equal to their _id timestamp (%s)", label)
		}
	}
}

// sortEntries sorts the _id table by key; an _id given twice is a
// *fixtures.LineError at its second document.
func (s *fixtureSource) sortEntries() error {
	slices.SortFunc(s.entries, func(a, b keyEntry) int { return bytes.Compare(a.key[:], b.key[:]) })
	for k := 1; k < len(s.entries); k++ {
		if s.entries[k].key == s.entries[k-1].key {
			a, b := s.entries[k-1].i, s.entries[k].i
			if a > b {
				a, b = b, a
			}
			file, line := s.where(b)
			return &fixtures.LineError{File: file, Line: line, Err: fmt.Errorf("%w: the same _id as %s", fixtures.ErrDuplicateID, s.label(a))}
		}
	}
	return nil
}

// fileIDTypes sets what e says of the _id types of the files, types.
func (e *Expected) fileIDTypes(types map[bson.Type]bool) {
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

// match compares digests: the files are not at hand, only the digest of
// each document.
func (s *fixtureSource) match(_ context.Context, items []item) error {
	for k := range items {
		if it := &items[k]; it.i >= 0 {
			it.equal = digestOf(it.stored) == s.full[it.i]
		}
	}
	return nil
}

func (s *fixtureSource) scan(ctx context.Context, fn func(i int64, doc bson.Raw)) error {
	return s.read(ctx, func(i int64, _ string, _ int, doc bson.Raw) error {
		fn(i, doc)
		return nil
	})
}
