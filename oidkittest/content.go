package oidkittest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/verify"
)

// content is what New puts into a database: a plan's documents, fixture
// files, or nothing. key names it for the template cache: equal keys, equal
// bytes.
type content struct {
	key    string // the first 16 hex digits of sum
	sum    string // SHA-256 of the plan's manifests and the fixture files
	what   string // for oidkit cache: the plan, the fixture files
	ds     *seed.Dataset
	groups []fixtureGroup
}

// fixtureGroup is the fixture files of one collection, copied out of their
// fs.FS (so the fixtures and verify functions read them as files).
type fixtureGroup struct {
	fixtures.Group
	indexes []indexes.Index
	shown   func(error) error // names the files as in their fs.FS
}

func (c *content) empty() bool { return c.ds == nil && len(c.groups) == 0 }

// collections are the names of the collections New writes, in order.
func (c *content) collections() []string {
	var out []string
	if c.ds != nil {
		for _, col := range c.ds.Written() {
			out = append(out, col.Name())
		}
	}
	for _, g := range c.groups {
		out = append(out, g.Collection)
	}
	return out
}

// newContent checks the options against each other and prepares what they
// put into a database.
func newContent(cfg *config) (*content, error) {
	c := &content{}
	h := sha256.New()
	switch {
	case len(cfg.plans) > 1:
		return nil, errors.New("WithPlan given more than once; expected one plan (a plan holds several collections)")
	case len(cfg.plans) == 1:
		p := cfg.plans[0]
		if p == nil {
			return nil, errors.New("WithPlan(nil); expected a *seed.Plan")
		}
		if !p.Seeded {
			return nil, errors.New("WithPlan: the plan is not seeded; expected Seeded with a Seed, so every test gets the same documents and Verify can rebuild them")
		}
		ds, err := p.Build()
		if err != nil {
			return nil, fmt.Errorf("WithPlan: %w", err)
		}
		c.ds = ds
		if err := hashPlan(h, ds); err != nil {
			return nil, err
		}
	}
	seen := map[string]string{}
	if c.ds != nil {
		for _, col := range c.ds.Written() {
			seen[col.Name()] = "the plan"
		}
	}
	for _, set := range cfg.fixtures {
		groups, err := copyFixtures(set, h)
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			if from, ok := seen[g.Collection]; ok {
				return nil, fmt.Errorf("WithFixtures: collection %s comes from %s and from %s; expected each collection from one place", g.Collection, from, strings.Join(g.shownFiles(), ", "))
			}
			seen[g.Collection] = strings.Join(g.shownFiles(), ", ")
		}
		c.groups = append(c.groups, groups...)
	}
	if !c.empty() {
		c.sum = hex.EncodeToString(h.Sum(nil))
		c.key = c.sum[:16]
		c.what = c.describe()
	}
	return c, nil
}

// hashPlan writes what shapes the plan's documents into h: each written
// collection's run manifest without its run fields and the plan's DB,
// which New ignores (so: the plan, seed, time base, span, stored
// references and document format). The module versions are left to the
// cache key (tplcache.Inputs), which takes them only where they name a
// release.
func hashPlan(h io.Writer, ds *seed.Dataset) error {
	for _, col := range ds.Written() {
		m := seed.NewManifest(ds, col, "")
		m.Started, m.Updated = time.Time{}, time.Time{}
		m.DB, m.Oidkit, m.Gofakeit = "", "", ""
		raw, err := bson.Marshal(m)
		if err != nil {
			return fmt.Errorf("WithPlan: %w", err)
		}
		_, _ = h.Write(raw)
	}
	return nil
}

// fixtureCopies are the fs.FS fixture sets copied to disk, once per test
// binary, by the content of their files.
var fixtureCopies struct {
	sync.Mutex
	dirs map[string]string // hash of names and bytes → directory
}

// copyFixtures reads the files of set, hashes them into h and copies them
// into a directory of their own (once per distinct content), keeping their
// paths, then groups them by collection.
func copyFixtures(set fixtureSet, h io.Writer) ([]fixtureGroup, error) {
	names, all, err := fixtureNames(set)
	if err != nil {
		return nil, err
	}
	data := make([][]byte, len(all))
	sum := sha256.New()
	for k, n := range all {
		b, err := fs.ReadFile(set.fsys, n)
		if err != nil {
			return nil, fmt.Errorf("WithFixtures: %w", err)
		}
		data[k] = b
		fmt.Fprintf(sum, "%d:%s:%d:", len(n), n, len(b))
		sum.Write(b)
	}
	digest := hex.EncodeToString(sum.Sum(nil))
	fmt.Fprintf(h, "fixtures:%s;", digest)

	fixtureCopies.Lock()
	defer fixtureCopies.Unlock()
	dir, err := copyOnce(digest, all, data)
	if err != nil {
		return nil, err
	}
	return groupFixtures(dir, names)
}

// fixtureNames is the files the patterns of set match, in order, and all
// of them with the index sidecars next to them.
func fixtureNames(set fixtureSet) (names, all []string, err error) {
	if set.fsys == nil {
		return nil, nil, errors.New("WithFixtures: nil fs.FS")
	}
	if len(set.patterns) == 0 {
		return nil, nil, errors.New("WithFixtures: no pattern; expected glob patterns such as \"testdata/*.ndjson\"")
	}
	for _, pat := range set.patterns {
		m, err := fs.Glob(set.fsys, pat)
		if err != nil {
			return nil, nil, fmt.Errorf("WithFixtures: pattern %q: %w", pat, err)
		}
		if len(m) == 0 {
			return nil, nil, fmt.Errorf("WithFixtures: pattern %q matches no file", pat)
		}
		for _, n := range m {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	// The sidecars next to the files come along (load reads them).
	all = slices.Clone(names)
	for _, n := range names {
		if indexes.IsSidecar(n) {
			continue
		}
		side := filepath.ToSlash(indexes.SidecarPath(filepath.Dir(n), fixtures.CollectionName(n)))
		if _, err := fs.Stat(set.fsys, side); err == nil && !slices.Contains(all, side) {
			all = append(all, side)
		}
	}
	return names, all, nil
}

// copyOnce returns the directory of the files all, whose contents are
// data and digest, writing it the first time; fixtureCopies must be
// locked.
func copyOnce(digest string, all []string, data [][]byte) (string, error) {
	dir, ok := fixtureCopies.dirs[digest]
	if ok {
		return dir, nil
	}
	root, err := rootDir()
	if err != nil {
		return "", err
	}
	dir = filepath.Join(root, "fixtures-"+digest[:16])
	for k, n := range all {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, data[k], 0o644); err != nil {
			return "", err
		}
	}
	if fixtureCopies.dirs == nil {
		fixtureCopies.dirs = map[string]string{}
	}
	fixtureCopies.dirs[digest] = dir
	return dir, nil
}

// groupFixtures groups the copies in dir of the files names by
// collection, with the indexes of their sidecars.
func groupFixtures(dir string, names []string) ([]fixtureGroup, error) {
	paths := make([]string, len(names))
	for k, n := range names {
		paths[k] = filepath.Join(dir, filepath.FromSlash(n))
	}
	shown := func(err error) error { return showPaths(err, dir) }
	groups, err := fixtures.GroupFiles(paths)
	if err != nil {
		return nil, fmt.Errorf("WithFixtures: %w", shown(err))
	}
	out := make([]fixtureGroup, 0, len(groups))
	for _, g := range groups {
		if len(g.Files) == 0 {
			return nil, fmt.Errorf("WithFixtures: index sidecar %s has no fixture file of collection %s", strings.Join(rel(dir, g.Sidecars), ", "), g.Collection)
		}
		ix, err := fixtures.ReadSidecars(g.Collection, g.Sidecars)
		if err != nil {
			return nil, fmt.Errorf("WithFixtures: %w", shown(err))
		}
		out = append(out, fixtureGroup{Group: *g, indexes: ix, shown: shown})
	}
	return out, nil
}

func (g fixtureGroup) shownFiles() []string {
	return strings.Split(g.shown(errors.New(strings.Join(g.Files, "\x00"))).Error(), "\x00")
}

// rel is paths relative to dir, with slashes: their names in the fs.FS.
func rel(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for k, p := range paths {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			r = p
		}
		out[k] = filepath.ToSlash(r)
	}
	return out
}

// shownError is an error whose message names the fixture files as in their
// fs.FS instead of in the copy; errors.As still finds the original
// (*fixtures.LineError with its line, *indexes.SidecarError, ...).
type shownError struct {
	err error
	dir string
}

func (e *shownError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.dir+string(filepath.Separator), "")
}
func (e *shownError) Unwrap() error { return e.err }

func showPaths(err error, dir string) error {
	if err == nil {
		return nil
	}
	return &shownError{err: err, dir: dir}
}

// load writes the content into db, on a server of profile p: the plan's
// collections (documents, with as many inserters as the server's profile
// takes, then indexes), then the fixture files (validated first, as oidkit
// load does).
func (c *content) load(ctx context.Context, db *mongo.Database, p rules.Profile) error {
	workers := seed.WorkersFor(p)
	if c.ds != nil {
		for _, col := range c.ds.Written() {
			coll := db.Collection(col.Name())
			if _, err := seed.Insert(ctx, coll, col, seed.InsertOptions{Workers: workers}); err != nil {
				return fmt.Errorf("WithPlan: collection %s: %w", col.Name(), err)
			}
			if err := indexes.Create(ctx, coll, col.Spec().Indexes); err != nil {
				return fmt.Errorf("WithPlan: collection %s: %w", col.Name(), err)
			}
		}
	}
	if len(c.groups) == 0 {
		return nil
	}
	targets := make([]fixtures.Target, len(c.groups))
	for k, g := range c.groups {
		src := make([]fixtures.Source, len(g.Files))
		for i, f := range g.Files {
			src[i] = fixtures.FileSource(f)
		}
		targets[k] = fixtures.Target{Collection: db.Collection(g.Collection), Sources: src, Indexes: g.indexes}
	}
	if _, err := fixtures.LoadAll(ctx, targets, fixtures.LoadOptions{Mode: fixtures.Insert}); err != nil {
		return fmt.Errorf("WithFixtures: %w", c.groups[0].shown(err))
	}
	return nil
}

// verify compares db, on a server of profile p, with the content.
func (c *content) verify(ctx context.Context, db *mongo.Database, p rules.Profile) (*verify.Report, error) {
	var set verify.ExpectedSet
	if c.ds != nil {
		for _, col := range c.ds.Collections() {
			e, err := verify.ExpectCollection(ctx, c.ds, col)
			if err != nil {
				return nil, err
			}
			e.DB = db.Name()
			if col.RefOnly() {
				set.Referenced = append(set.Referenced, e)
			} else {
				set.Verify = append(set.Verify, e)
			}
		}
	}
	for _, g := range c.groups {
		e, err := verify.ExpectFixtures(ctx, db.Name(), g.Collection, g.Files)
		if err != nil {
			return nil, g.shown(err)
		}
		e.Indexes = g.indexes
		set.Verify = append(set.Verify, e)
	}
	rep := verify.NewReport("oidkittest.Verify")
	if len(set.Verify) > 0 {
		r, err := verify.VerifyDB(ctx, db.Client(), set, verify.DBOptions{Profile: p})
		if err != nil {
			return nil, err
		}
		rep = r
	}
	// The database holds no other collection.
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, err
	}
	want := c.collections()
	row := rep.Row("collections")
	for _, n := range names {
		if n == markerCollection {
			continue
		}
		row.Check(slices.Contains(want, n), "collection %s: not put there by New", n)
	}
	for _, n := range want {
		if !slices.Contains(names, n) {
			row.Failf("collection %s: missing", n)
		}
	}
	if len(names) == 0 && len(want) == 0 {
		row.Pass()
	}
	return rep, nil
}
