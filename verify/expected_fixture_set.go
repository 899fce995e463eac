package verify

import (
	"context"
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

// ExpectFixtureSet is what the collections of database db must hold after a
// load of the fixture files: the files grouped by collection as load groups
// them (in the order first named), each collection's documents and the
// indexes of the sidecars load would read beside its files. Every file must
// be a regular file (it is read twice: once to index it, once to compare).
// With o.FS the files and sidecars are read from that fs.FS and named as
// in it. A file or sidecar that cannot serve is a *fixtures.SetError: of
// fixtures.OpStat, OpDir (a directory or no regular file), OpName (no
// collection name from the file name, a *rules.NameError) or OpSidecars.
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
			return nil, &fixtures.SetError{Op: fixtures.OpSidecars, Collection: name, Err: err}
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
		return "", &fixtures.SetError{Op: fixtures.OpStat, Path: f, Err: err}
	}
	if fi.IsDir() {
		return "", &fixtures.SetError{Op: fixtures.OpDir, Path: f, Err: fixtures.ErrIsDirectory}
	}
	if !fi.Mode().IsRegular() {
		// A FIFO or a device would wait in open(2), or never end, and
		// cannot be read twice.
		return "", &fixtures.SetError{Op: fixtures.OpDir, Path: f, Err: fmt.Errorf("%s, expected a regular file (a fixture is read twice: once to index it, once to compare)", fileKind(fi.Mode()))}
	}
	if only != "" {
		return only, nil
	}
	name := fixtures.CollectionName(f)
	if err := rules.CheckFileName(name); err != nil {
		return "", &fixtures.SetError{Op: fixtures.OpName, Path: f, Err: err}
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
