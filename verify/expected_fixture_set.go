package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/rules"
)

// FixtureSetOptions say how ExpectFixtureSet reads a fixture set.
type FixtureSetOptions struct {
	// Collection, when set, is the collection of every file; otherwise
	// each file's collection is named by its file name, as load names it.
	Collection string
	FixtureOptions
}

// FileError is a fixture file of a set that cannot serve as expected
// content, named as given.
type FileError struct {
	File string
	Err  error
}

func (e *FileError) Error() string { return fmt.Sprintf("%q: %v", e.File, e.Err) }
func (e *FileError) Unwrap() error { return e.Err }

// ErrNoCollectionName is why a file's name gives no collection name.
var ErrNoCollectionName = errors.New("collection name from the file name")

// SidecarError is an index sidecar beside a set's files that cannot be
// read.
type SidecarError struct{ Err error }

func (e *SidecarError) Error() string { return e.Err.Error() }
func (e *SidecarError) Unwrap() error { return e.Err }

// ExpectFixtureSet is what the collections of database db must hold after a
// load of the fixture files: the files grouped by collection as load groups
// them (in the order first named), each collection's documents and the
// indexes of the sidecars load would read beside its files. Every file must
// be a regular file (it is read twice: once to index it, once to compare).
// With o.FS the files and sidecars are read from that fs.FS and named as
// in it.
func ExpectFixtureSet(ctx context.Context, db string, files []string, o FixtureSetOptions) ([]*Expected, error) {
	var order []string
	byName := map[string][]string{}
	for _, f := range files {
		name, err := fixtureCollection(o.FS, f, o.Collection)
		if err != nil {
			return nil, err
		}
		if _, ok := byName[name]; !ok {
			order = append(order, name)
		}
		byName[name] = append(byName[name], f)
	}
	var out []*Expected
	for _, name := range order {
		e, err := ExpectFixturesWith(ctx, db, name, byName[name], o.FixtureOptions)
		if err != nil {
			return nil, err
		}
		if e.Indexes, err = fixtures.SidecarIndexesFS(o.FS, name, byName[name]); err != nil {
			return nil, &SidecarError{Err: err}
		}
		out = append(out, e)
	}
	return out, nil
}

// fixtureCollection is the collection of fixture file f of fsys (nil: the
// operating system's): only, or the one its name gives.
func fixtureCollection(fsys fs.FS, f, only string) (string, error) {
	fi, err := statFile(fsys, f)
	if err != nil {
		return "", &FileError{File: f, Err: errors.Unwrap(err)}
	}
	if fi.IsDir() {
		return "", &FileError{File: f, Err: errors.New("is a directory, expected a fixture file")}
	}
	if !fi.Mode().IsRegular() {
		// A FIFO or a device would wait in open(2), or never end, and
		// cannot be read twice.
		return "", &FileError{File: f, Err: fmt.Errorf("%s, expected a regular file (a fixture is read twice: once to index it, once to compare)", fileKind(fi.Mode()))}
	}
	if only != "" {
		return only, nil
	}
	name := fixtures.CollectionName(f)
	if err := rules.CheckFileName(name); err != nil {
		return "", &FileError{File: f, Err: fmt.Errorf("%w: %v", ErrNoCollectionName, err)}
	}
	return name, nil
}

// fileKind names the type of a file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}
