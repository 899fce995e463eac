package oidkittest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/verify"
)

// content is what New puts into a database: a plan's documents, fixture
// files, or nothing. key names it for the template cache: equal keys, equal
// bytes.
type content struct {
	key    string     // the first 16 hex digits of sum
	sum    string     // SHA-256 of the plan's manifests and the fixture files
	what   string     // for oidkit cache: the plan, the fixture files
	plan   *seed.Plan // the plan given, written as oidkit seed writes it
	ds     *seed.Dataset
	groups []fixtureGroup
}

// fixtureGroup is the fixture files of one collection, read from their
// fs.FS as oidkit load reads a directory (fixtures.OpenSet), with the
// indexes of their sidecars.
type fixtureGroup struct {
	*fixtures.SetGroup
	fsys fs.FS
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
		c.plan, c.ds = p, ds
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
		groups, err := openFixtures(set, h)
		if err != nil {
			return nil, err
		}
		for _, g := range groups {
			files := strings.Join(g.Files, ", ")
			if from, ok := seen[g.Collection]; ok {
				return nil, fmt.Errorf("WithFixtures: collection %s comes from %s and from %s; expected each collection from one place", g.Collection, from, files)
			}
			seen[g.Collection] = files
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
	rec := seed.NewPlanRecord(ds)
	rec.DB, rec.Oidkit, rec.Gofakeit = "", "", ""
	plan, err := bson.Marshal(rec)
	if err != nil {
		return fmt.Errorf("WithPlan: %w", err)
	}
	for _, col := range ds.Written() {
		m := mongowrite.NewManifest(&mongowrite.Dataset{Plan: plan}, col)
		m.Started, m.Updated = time.Time{}, time.Time{}
		raw, err := bson.Marshal(m)
		if err != nil {
			return fmt.Errorf("WithPlan: %w", err)
		}
		_, _ = h.Write(raw)
	}
	return nil
}

// openFixtures groups the files of set by collection with their sidecars'
// indexes, read from set's fs.FS (errors name the files as in it), and
// hashes the names and bytes of the files and sidecars into h.
func openFixtures(set fixtureSet, h io.Writer) ([]fixtureGroup, error) {
	names, err := fixtureNames(set)
	if err != nil {
		return nil, err
	}
	s, err := fixtures.OpenSet(context.Background(), names, fixtures.OpenOptions{FS: set.fsys})
	if err != nil {
		return nil, fmt.Errorf("WithFixtures: %w", err)
	}
	sum := sha256.New()
	out := make([]fixtureGroup, 0, len(s.Groups))
	for _, g := range s.Groups {
		if len(g.Files) == 0 {
			return nil, fmt.Errorf("WithFixtures: index sidecar %s has no fixture file of collection %s", strings.Join(g.Sidecars, ", "), g.Collection)
		}
		for _, n := range slices.Concat(g.Files, g.Sidecars) {
			b, err := fs.ReadFile(set.fsys, n)
			if err != nil {
				return nil, fmt.Errorf("WithFixtures: %w", err)
			}
			fmt.Fprintf(sum, "%d:%s:%d:", len(n), n, len(b))
			sum.Write(b)
		}
		out = append(out, fixtureGroup{SetGroup: g, fsys: set.fsys})
	}
	fmt.Fprintf(h, "fixtures:%x;", sum.Sum(nil))
	return out, nil
}

// fixtureNames is the files the patterns of set match, in order.
func fixtureNames(set fixtureSet) ([]string, error) {
	if set.fsys == nil {
		return nil, errors.New("WithFixtures: nil fs.FS")
	}
	if len(set.patterns) == 0 {
		return nil, errors.New("WithFixtures: no pattern; expected glob patterns such as \"testdata/*.ndjson\"")
	}
	var names []string
	for _, pat := range set.patterns {
		m, err := fs.Glob(set.fsys, pat)
		if err != nil {
			return nil, fmt.Errorf("WithFixtures: pattern %q: %w", pat, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("WithFixtures: pattern %q matches no file", pat)
		}
		for _, n := range m {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names, nil
}

// load writes the content into db, on a server of profile p, through the
// writers of oidkit seed and oidkit load: the plan's collections with
// run.Seed (its checks, as many inserters as the profile takes, the indexes
// after the documents; no run manifest, since a test's database is never
// resumed), then the fixture files with fixtures.LoadAll (every document
// validated first).
func (c *content) load(ctx context.Context, db *mongo.Database, p rules.Profile) error {
	if c.plan != nil {
		if _, err := run.Seed(ctx, db, c.plan, run.Options{Profile: p, NoManifest: true}); err != nil {
			return fmt.Errorf("WithPlan: %w", err)
		}
	}
	if len(c.groups) == 0 {
		return nil
	}
	targets := make([]fixtures.Target, len(c.groups))
	for k, g := range c.groups {
		targets[k] = fixtures.Target{Collection: db.Collection(g.Collection), Sources: g.Sources, Indexes: g.Indexes}
	}
	if _, err := fixtures.LoadAll(ctx, targets, fixtures.LoadOptions{Mode: fixtures.Insert, Profile: p}); err != nil {
		return fmt.Errorf("WithFixtures: %w", err)
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
		e, err := verify.ExpectFixturesWith(ctx, db.Name(), g.Collection, g.Files, verify.FixtureOptions{FS: g.fsys})
		if err != nil {
			return nil, err
		}
		e.Indexes = g.Indexes
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
