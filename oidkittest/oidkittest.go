package oidkittest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// KeepEnv, set to 1, keeps every database New makes (not only those of
// failed tests) and logs where it is.
const KeepEnv = "OIDKIT_TEST_KEEP"

// Option changes what New puts into the database.
type Option func(*config)

type config struct {
	plans    []*seed.Plan
	fixtures []fixtureSet
	keep     bool
}

type fixtureSet struct {
	fsys     fs.FS
	patterns []string
}

// WithPlan seeds the database with the documents of a seeded plan (and
// creates its indexes). The plan's DB is ignored: every test has a database
// of its own. The plan is built once per test binary; each test gets a copy.
func WithPlan(p *seed.Plan) Option {
	return func(c *config) { c.plans = append(c.plans, p) }
}

// WithFixtures loads the fixture files of fsys that the glob patterns
// (fs.Glob) match, as oidkit load reads them: each file into the collection
// its name says (fixtures.CollectionName), with the indexes of the
// <collection>.metadata.json sidecar next to it. embed.FS and os.DirFS both
// work. It may be given several times and beside WithPlan, as long as no
// collection comes from two places.
func WithFixtures(fsys fs.FS, patterns ...string) Option {
	return func(c *config) { c.fixtures = append(c.fixtures, fixtureSet{fsys: fsys, patterns: patterns}) }
}

// Keep keeps the test's database after it ends, passed or not, and logs
// where it is (as OIDKIT_TEST_KEEP=1 does for every test). A failed test's
// database is always kept.
func Keep() Option {
	return func(c *config) { c.keep = true }
}

// handle is what New knows of a database it made.
type handle struct {
	db      *mongo.Database
	uri     string        // of the server the database is on
	where   string        // for the keep message: the data directory, or the masked URI
	profile rules.Profile // of the server the database is on
	content *content
}

var handles sync.Map // *mongo.Database → *handle

// New gives the test a database of its own, holding what the options put
// there, and drops it when the test ends (unless the test failed or Keep or
// OIDKIT_TEST_KEEP=1 asks to keep it: then the test logs where it is). Any
// problem (a bad plan or fixture file, contradictory options, an unreachable
// OIDKIT_TEST_URI) fails the test with t.Fatal; New never skips.
func New(t testing.TB, opts ...Option) *mongo.Database {
	t.Helper()
	h, err := newHandle(t, opts)
	if err != nil {
		t.Fatalf("oidkittest.New: %v", err)
		return nil
	}
	return h.db
}

func newHandle(t testing.TB, opts []Option) (*handle, error) {
	return newHandleOn(t, sharedBackend, opts)
}

// newHandleOn is newHandle on the backend that backendOf gives.
func newHandleOn(t testing.TB, backendOf func() (backend, error), opts []Option) (*handle, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	ct, err := newContent(&cfg)
	if err != nil {
		return nil, err
	}
	b, err := backendOf()
	if err != nil {
		return nil, err
	}
	keep := cfg.keep || os.Getenv(KeepEnv) == "1"
	h, err := b.open(t, ct, keep)
	if err != nil {
		return nil, err
	}
	h.content = ct
	handles.Store(h.db, h)
	t.Cleanup(func() { handles.Delete(h.db) })
	return h, nil
}

// lookup is the handle of a database New made.
func lookup(db *mongo.Database) (*handle, error) {
	if db == nil {
		return nil, errors.New("nil database")
	}
	v, ok := handles.Load(db)
	if !ok {
		return nil, fmt.Errorf("database %q was not made by oidkittest.New (or its test has ended)", db.Name())
	}
	return v.(*handle), nil
}

// URI is the connection string of the server that holds db (a database New
// made), for code that connects by itself: connect to it and use DBName(db).
// It fails t-less callers by panicking: use it only on New's databases while
// the test runs.
func URI(db *mongo.Database) string {
	h, err := lookup(db)
	if err != nil {
		panic("oidkittest.URI: " + err.Error())
	}
	return h.uri
}

// DBName is the name of db, a database New made: the same as db.Name(),
// kept beside URI for code that takes both.
func DBName(db *mongo.Database) string { return db.Name() }

// Verify fails t, with the verify report, unless db (a database New made)
// holds exactly what New put there: the same collections, each with the
// same documents byte for byte and the same indexes.
func Verify(t testing.TB, db *mongo.Database) {
	t.Helper()
	h, err := lookup(db)
	if err != nil {
		t.Errorf("oidkittest.Verify: %v", err)
		return
	}
	ctx := context.Background()
	rep, err := h.content.verify(ctx, db, h.profile)
	if err != nil {
		t.Errorf("oidkittest.Verify: database %s: %v", db.Name(), err)
		return
	}
	if !rep.OK() {
		var b strings.Builder
		_ = rep.WriteTable(&b)
		t.Errorf("oidkittest.Verify: database %s does not hold what New put there:\n%s", db.Name(), b.String())
	}
}

// Close stops what New started for the test binary (the shared embedded
// server and any clone server, the client of OIDKIT_TEST_URI, the container
// of OIDKIT_TEST_MONGO_IMAGE) and removes the binary's temporary directory,
// oidkittest-PID-* in os.TempDir, except the data directories of kept
// databases. Call it after m.Run in a TestMain of your own, or use Main.
// Without it all of that lasts until the test binary exits (the next
// binary removes the directory). A New after Close starts afresh.
func Close() error {
	shared.mu.Lock()
	b, chosen := shared.b, shared.chosen
	shared.b, shared.err, shared.chosen = nil, nil, false
	shared.mu.Unlock()
	var err error
	if chosen && b != nil {
		err = b.close()
	}
	if e := removeRoot(); err == nil {
		err = e
	}
	return err
}

// Main runs the tests of m, then Close, and exits with their status (or 1
// if Close fails): the whole TestMain of a package that uses oidkittest,
//
//	func TestMain(m *testing.M) { oidkittest.Main(m) }
func Main(m *testing.M) { os.Exit(runAndClose(m)) }

// runAndClose runs the tests of m, then Close, and returns the exit code.
func runAndClose(m *testing.M) int {
	code := m.Run()
	if err := Close(); err != nil {
		fmt.Fprintf(os.Stderr, "oidkittest: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
