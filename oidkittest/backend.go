package oidkittest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/ready"
	"github.com/oidkit/oidkit/internal/redact"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
)

// The environment variables that pick the backend; neither means the
// embedded server.
const (
	URIEnv   = "OIDKIT_TEST_URI"
	ImageEnv = "OIDKIT_TEST_MONGO_IMAGE"
)

// markerCollection holds the document that says oidkittest created a
// database on a server it does not own; it is checked before the drop.
const markerCollection = "oidkittest_marker"

// opTimeout bounds every operation of oidkittest's clients, so a stuck
// server fails the test instead of hanging it.
const opTimeout = 2 * time.Minute

type backend interface {
	open(t testing.TB, c *content, keep bool) (*handle, error)
	close() error
}

var shared struct {
	mu     sync.Mutex
	chosen bool
	b      backend
	err    error
}

// sharedBackend is the backend of this test binary, chosen by the
// environment the first time a test asks (and again after Close).
func sharedBackend() (backend, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.chosen {
		shared.b, shared.err = backendFor(os.Getenv(URIEnv), os.Getenv(ImageEnv))
		shared.chosen = true
	}
	return shared.b, shared.err
}

func backendFor(uri, image string) (backend, error) {
	switch {
	case uri != "" && image != "":
		return nil, fmt.Errorf("both %s and %s are set; expected one backend", URIEnv, ImageEnv)
	case uri != "":
		return newRemote(uri, "")
	case image != "":
		return startContainer(image)
	}
	return &embeddedBackend{}, nil
}

// ContainerStarter starts a MongoDB container of image for a test binary
// and returns its connection string and how to terminate it. Package
// oidkittest/mongocontainer registers one (through Testcontainers); it
// lives apart so that a module using oidkittest without containers does
// not depend on a container library.
type ContainerStarter func(ctx context.Context, image string) (uri string, stop func() error, err error)

var containerStarter atomic.Pointer[ContainerStarter]

// RegisterContainer sets how OIDKIT_TEST_MONGO_IMAGE starts its
// container; a blank import of oidkittest/mongocontainer calls it.
func RegisterContainer(start ContainerStarter) { containerStarter.Store(&start) }

// startContainer starts one MongoDB container of image for the test binary
// with the registered starter; Close (or Main) terminates it.
func startContainer(image string) (backend, error) {
	start := containerStarter.Load()
	if start == nil {
		return nil, fmt.Errorf("%s=%s: no container backend in this test binary; expected a blank import of %q in one of its test files", ImageEnv, image, "github.com/oidkit/oidkit/oidkittest/mongocontainer")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	uri, stop, err := (*start)(ctx, image)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: starting the container: %w", ImageEnv, image, err)
	}
	r, err := newRemote(uri, "container "+image)
	if err != nil {
		_ = stop()
		return nil, err
	}
	r.stop = stop
	return r, nil
}

var dbCounter atomic.Int64

// dbName is a fresh database name that says which test it belongs to:
// the test's name (letters, digits and _ only, at most 40), a number and,
// on a shared server, a random suffix.
func dbName(t testing.TB, random bool) string {
	var b strings.Builder
	for _, r := range t.Name() {
		if b.Len() >= 40 {
			break
		}
		if r < 128 && (r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	fmt.Fprintf(&b, "_%d", dbCounter.Add(1))
	if random {
		b.WriteString("_" + randomHex(4))
	}
	return b.String()
}

func randomHex(n int) string {
	buf := make([]byte, n)
	_, _ = rand.Read(buf)
	return hex.EncodeToString(buf)
}

// kept logs where a kept database is.
func kept(t testing.TB, name, where string) {
	why := "the test failed"
	if !t.Failed() {
		why = "asked to keep it"
	}
	t.Logf("oidkittest: kept database %s (%s): %s", name, why, where)
}

var root struct {
	mu  sync.Mutex
	dir string
}

// rootDir is this test binary's directory of embedded data,
// oidkittest-PID-* in the temporary directory. Making it removes
// those of test binaries that have exited, unless they hold a kept database
// (a file KEEP in them).
func rootDir() (string, error) {
	root.mu.Lock()
	defer root.mu.Unlock()
	if root.dir == "" {
		sweep()
		dir, err := os.MkdirTemp("", fmt.Sprintf("oidkittest-%d-", os.Getpid()))
		if err != nil {
			return "", err
		}
		root.dir = dir
	}
	return root.dir, nil
}

// removeRoot removes the root directory but what a kept database needs
// (the entries KEEP names, and KEEP itself), and forgets it.
func removeRoot() error {
	root.mu.Lock()
	defer root.mu.Unlock()
	if root.dir == "" {
		return nil
	}
	dir := root.dir
	root.dir = ""
	keep, err := os.ReadFile(filepath.Join(dir, "KEEP"))
	if errors.Is(err, os.ErrNotExist) {
		return os.RemoveAll(dir)
	}
	kept := strings.Fields(string(keep))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var first error
	for _, e := range ents {
		if e.Name() == "KEEP" || slices.Contains(kept, e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// KeptRuns is how many exited test binaries' directories holding a kept
// database a later run leaves in place (the most recently kept); it
// removes older ones, unless it runs with OIDKIT_TEST_KEEP=1.
const KeptRuns = 5

// sweep removes the directories of test binaries that have exited, but
// those holding a kept database among the KeptRuns most recently kept.
func sweep() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "oidkittest-*-*"))
	type keptDir struct {
		dir string
		at  time.Time
	}
	var keptDirs []keptDir
	for _, d := range dirs {
		f := strings.SplitN(filepath.Base(d), "-", 3)
		pid, err := strconv.Atoi(f[1])
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			continue // alive, or not ours to know
		}
		if fi, err := os.Stat(filepath.Join(d, "KEEP")); err == nil {
			keptDirs = append(keptDirs, keptDir{d, fi.ModTime()})
			continue
		}
		_ = os.RemoveAll(d)
	}
	if os.Getenv(KeepEnv) == "1" || len(keptDirs) <= KeptRuns {
		return
	}
	slices.SortFunc(keptDirs, func(a, b keptDir) int { return b.at.Compare(a.at) })
	for _, k := range keptDirs[KeptRuns:] {
		_ = os.RemoveAll(k.dir)
	}
}

var keepMu sync.Mutex

// markKept records, in the root's file KEEP, the root's entry (a data
// directory) that holds a kept database, so that neither sweep nor Close
// removes it.
func markKept(entry string) {
	keepMu.Lock()
	defer keepMu.Unlock()
	dir, err := rootDir()
	if err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, "KEEP"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintln(f, entry)
	_ = f.Close()
}

// remoteBackend is a MongoDB the tests do not own (OIDKIT_TEST_URI, or the
// container): a fresh, marked database per test; templates kept in memory
// as the documents the server returned (read from the disk cache, or
// loaded into the first test's database and read back), inserted into
// each clone.
type remoteBackend struct {
	uri     string
	shown   string // the URI with its password masked, or what started it
	client  *mongo.Client
	profile rules.Profile // the server's, from its buildInfo answer
	stop    func() error  // terminates the container; nil for OIDKIT_TEST_URI

	mu   sync.Mutex
	tpls map[string]*memTemplate
}

func newRemote(uri, what string) (*remoteBackend, error) {
	shown := redact.URI(uri)
	if what != "" {
		shown = what + " at " + shown
	}
	fail := func(err error) error {
		return fmt.Errorf("%s %s: %s", URIEnv, shown, redact.In(err.Error(), uri))
	}
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(opTimeout).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		return nil, fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var bi bson.M
	if err := ready.Ping(ctx, client); err != nil {
		_ = client.Disconnect(ctx)
		return nil, fail(fmt.Errorf("unreachable: %w", err))
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi); err != nil {
		_ = client.Disconnect(ctx)
		return nil, fail(fmt.Errorf("unreachable: %w", err))
	}
	return &remoteBackend{uri: uri, shown: shown, client: client, profile: rules.ProfileOfBuildInfo(bi), tpls: map[string]*memTemplate{}}, nil
}

// marker is the document a remote database's marker collection holds.
type marker struct {
	ID      string    `bson:"_id"`
	Token   string    `bson:"token"`
	Test    string    `bson:"test"`
	Created time.Time `bson:"created"`
}

func (r *remoteBackend) open(t testing.TB, c *content, keep bool) (*handle, error) {
	ctx := context.Background()
	name := dbName(t, true)
	db := r.client.Database(name)
	// Claim the name: it must hold nothing yet.
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("%s: database %s: %s", r.shown, name, redact.In(err.Error(), r.uri))
	}
	if len(names) > 0 {
		return nil, fmt.Errorf("%s: database %s exists already; oidkittest writes only to databases it creates", r.shown, name)
	}
	token := randomHex(16)
	if _, err := db.Collection(markerCollection).InsertOne(ctx, marker{ID: "oidkittest", Token: token, Test: t.Name(), Created: time.Now().UTC()}); err != nil {
		return nil, fmt.Errorf("%s: database %s: writing its marker: %s", r.shown, name, redact.In(err.Error(), r.uri))
	}
	t.Cleanup(func() {
		if keep || t.Failed() {
			kept(t, name, "on "+r.shown)
			return
		}
		if err := r.drop(ctx, db, token); err != nil {
			t.Errorf("oidkittest: %v", err)
		}
	})
	h := &handle{db: db, uri: r.uri, profile: r.profile}
	if c.empty() {
		return h, nil
	}
	r.mu.Lock()
	tpl := r.tpls[c.key]
	if tpl == nil {
		tpl = &memTemplate{}
		r.tpls[c.key] = tpl
	}
	r.mu.Unlock()
	filled := false
	tpl.once.Do(func() {
		filled = true
		tpl.colls, tpl.err = fillTemplate(ctx, c, db, r.profile, true)
	})
	if tpl.err != nil {
		return nil, tpl.err
	}
	if !filled {
		if err := insertColls(ctx, db, tpl.colls, mongowrite.WorkersFor(r.profile)); err != nil {
			return nil, fmt.Errorf("%s: database %s: %s", r.shown, name, redact.In(err.Error(), r.uri))
		}
	}
	return h, nil
}

// drop drops db if its marker is the one open wrote; otherwise it refuses,
// saying why.
func (r *remoteBackend) drop(ctx context.Context, db *mongo.Database, token string) error {
	var m marker
	err := db.Collection(markerCollection).FindOne(ctx, bson.D{{Key: "_id", Value: "oidkittest"}}).Decode(&m)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return fmt.Errorf("did not drop database %s on %s: its marker document (%s) is gone, so oidkittest cannot tell it created this database", db.Name(), r.shown, markerCollection)
	case err != nil:
		return fmt.Errorf("did not drop database %s on %s: reading its marker: %s", db.Name(), r.shown, redact.In(err.Error(), r.uri))
	case m.Token != token:
		return fmt.Errorf("did not drop database %s on %s: its marker was written by another run (test %s at %s)", db.Name(), r.shown, m.Test, m.Created.Format(time.RFC3339))
	}
	if err := db.Drop(ctx); err != nil {
		return fmt.Errorf("dropping database %s on %s: %s", db.Name(), r.shown, redact.In(err.Error(), r.uri))
	}
	return nil
}

// close disconnects from the server and terminates the container.
func (r *remoteBackend) close() error {
	_ = r.client.Disconnect(context.Background())
	if r.stop != nil {
		return r.stop()
	}
	return nil
}
