package oidkittest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
)

// embeddedBackend is the embedded server: one shared server for empty
// databases; for a seeded one, a copy of its template's SQLite file, named
// after the test's database, in the data directory of a clone server.
//
// FerretDB's SQLite backend opens the database files of its directory when
// it starts and never looks again: a file copied in later is not seen, and
// a write to its name makes the server create the database over the file,
// fail on its existing metadata table and delete the file. So a clone's
// file must be in place before its server starts. One clone server serves
// the clones of every test that asked for one of the same template while
// the previous clone server was being made, at most maxClonesPerServer:
// 64 parallel tests share 4 or more servers, not 64.
type embeddedBackend struct {
	mu     sync.Mutex
	dir    string // the shared server's data directory
	srv    *embedded.Server
	client *mongo.Client
	err    error
	tpls   map[string]*fileTemplate
	groups map[*cloneGroup]bool // running clone servers
	made   atomic.Int64         // clone servers started
	makers sync.WaitGroup       // the running clone makers
	spared atomic.Int64         // clones that took a spare
}

// maxClonesPerServer bounds the clones one clone server holds (and so the
// files copied before it starts).
const maxClonesPerServer = 16

// fileTemplate is a template: the SQLite file of database tpl of a stopped
// server, built once per test binary (or read from the cache on disk), and
// the tests waiting for a clone of it.
type fileTemplate struct {
	once sync.Once
	err  error
	file string
	hit  bool // read from the cache on disk

	mu     sync.Mutex
	queue  []*cloneReq
	making bool // a goroutine is making clone servers for the queue

	// spare is a copy of file made ahead, while no test waited, that the
	// next clone takes by renaming it: the copy (most of a clone's cost)
	// is then off the path of New. Only the clone maker touches it.
	spare       string
	spareFailed bool // making one failed: the clones copy for themselves
}

// cloneReq is one test's wait for a clone.
type cloneReq struct {
	name  string
	done  chan struct{}
	group *cloneGroup
	err   error
}

// cloneGroup is a clone server and the clones in its data directory.
type cloneGroup struct {
	dir    string
	srv    *embedded.Server
	client *mongo.Client

	mu   sync.Mutex
	open int  // clones whose test has not ended
	kept bool // a clone is kept: the directory stays
}

const tplDB = "tpl"

// sqliteExt ends the file of a database in FerretDB's SQLite backend.
const sqliteExt = ".sqlite"

func (e *embeddedBackend) shared() (*embedded.Server, *mongo.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.srv == nil && e.err == nil {
		r, err := rootDir()
		if err != nil {
			return nil, nil, err
		}
		e.dir = filepath.Join(r, "shared")
		e.srv, e.client, e.err = startEmbedded(e.dir)
	}
	return e.srv, e.client, e.err
}

func startEmbedded(dir string) (*embedded.Server, *mongo.Client, error) {
	s, err := embedded.Start(embedded.Options{DataDir: dir})
	if err != nil {
		return nil, nil, fmt.Errorf("embedded server: %w", err)
	}
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetTimeout(opTimeout))
	if err != nil {
		_ = s.Close()
		return nil, nil, fmt.Errorf("embedded server: %w", err)
	}
	return s, c, nil
}

func stopEmbedded(s *embedded.Server, c *mongo.Client) {
	_ = c.Disconnect(context.Background())
	_ = s.Close()
}

func (e *embeddedBackend) open(t testing.TB, c *content, keep bool) (*handle, error) {
	if c.empty() {
		srv, client, err := e.shared()
		if err != nil {
			return nil, err
		}
		name := dbName(t, false)
		db := client.Database(name)
		dir := e.dir
		t.Cleanup(func() {
			if keep || t.Failed() {
				markKept(filepath.Base(dir))
				kept(t, name, fmt.Sprintf("in the shared data directory %s (after the test binary exits: oidkit server --data-dir %s)", dir, dir))
				return
			}
			if err := db.Drop(context.Background()); err != nil {
				t.Errorf("oidkittest: dropping database %s: %v", name, err)
			}
		})
		return &handle{db: db, uri: srv.URI(), ferret: true}, nil
	}
	tpl, err := e.template(c)
	if err != nil {
		return nil, err
	}
	return e.clone(t, tpl, keep)
}

// template is c's template, built once per test binary: read from the
// cache on disk if it holds it, otherwise c loaded into database tpl of a
// server of its own, stopped so its file can be copied (and then stored in
// the cache).
func (e *embeddedBackend) template(c *content) (*fileTemplate, error) {
	e.mu.Lock()
	if e.tpls == nil {
		e.tpls = map[string]*fileTemplate{}
	}
	tpl := e.tpls[c.key]
	if tpl == nil {
		tpl = &fileTemplate{}
		e.tpls[c.key] = tpl
	}
	e.mu.Unlock()
	tpl.once.Do(func() {
		r, err := rootDir()
		if err != nil {
			tpl.err = err
			return
		}
		cache, err := cacheDir()
		if err != nil {
			tpl.err = err
			return
		}
		dir := filepath.Join(r, "template-"+c.key)
		tpl.file = filepath.Join(dir, tplDB+sqliteExt)
		var key string
		if cache != "" {
			if key, err = c.cacheKey(); err != nil {
				cache = "" // no key, no cache
			}
		}
		if cache != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				tpl.err = err
				return
			}
			if cacheGet(cache, key, tpl.file) {
				tpl.hit = true
				return
			}
		}
		if tpl.err = buildTemplate(dir, c); tpl.err != nil {
			return
		}
		if cache != "" {
			cachePut(cache, key, tpl.file)
		}
	})
	return tpl, tpl.err
}

// buildTemplate loads c into database tpl of a server over dir and stops
// it; the template is then the one file dir/tpl.sqlite (the server's last
// connection checkpoints the write-ahead log into it).
func buildTemplate(dir string, c *content) error {
	s, client, err := startEmbedded(dir)
	if err != nil {
		return err
	}
	err = c.load(context.Background(), client.Database(tplDB), true)
	stopEmbedded(s, client)
	if err != nil {
		return err
	}
	for _, suffix := range []string{"-wal", "-journal"} {
		if _, err := os.Stat(filepath.Join(dir, tplDB+sqliteExt+suffix)); err == nil {
			return fmt.Errorf("embedded server: template %s: the server left its %s file after stopping", dir, suffix)
		}
	}
	return nil
}

// clone waits for a clone of tpl under the test's database name, made by
// the template's clone maker (started here if none runs).
func (e *embeddedBackend) clone(t testing.TB, tpl *fileTemplate, keep bool) (*handle, error) {
	req := &cloneReq{name: dbName(t, false), done: make(chan struct{})}
	tpl.mu.Lock()
	tpl.queue = append(tpl.queue, req)
	if !tpl.making {
		tpl.making = true
		e.makers.Add(1)
		go func() {
			defer e.makers.Done()
			e.makeClones(tpl)
		}()
	}
	tpl.mu.Unlock()
	<-req.done
	if req.err != nil {
		return nil, req.err
	}
	g := req.group
	t.Cleanup(func() { e.release(t, g, req.name, keep) })
	return &handle{db: g.client.Database(req.name), uri: g.srv.URI(), ferret: true}, nil
}

// makeClones makes clone servers for the tests waiting on tpl, as many at
// a time as wait (at most maxClonesPerServer), until none waits; it then
// copies the template once more (the spare) before it ends. One maker
// runs per template, so the copies of one template are made one after the
// other.
func (e *embeddedBackend) makeClones(tpl *fileTemplate) {
	for {
		tpl.mu.Lock()
		n := min(len(tpl.queue), maxClonesPerServer)
		if n == 0 && tpl.spare == "" && !tpl.spareFailed {
			tpl.mu.Unlock()
			if err := e.makeSpare(tpl); err != nil {
				tpl.spareFailed = true
			}
			continue
		}
		if n == 0 {
			tpl.making = false
			tpl.mu.Unlock()
			return
		}
		batch := append([]*cloneReq(nil), tpl.queue[:n]...)
		tpl.queue = append([]*cloneReq(nil), tpl.queue[n:]...)
		tpl.mu.Unlock()
		g, err := e.newGroup(tpl, batch)
		for _, r := range batch {
			r.group, r.err = g, err
			close(r.done)
		}
	}
}

// newGroup copies the template once per request into a new data directory,
// named after each request's database, and starts a server over it.
func (e *embeddedBackend) newGroup(tpl *fileTemplate, batch []*cloneReq) (*cloneGroup, error) {
	r, err := rootDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(r, "clones-")
	if err != nil {
		return nil, err
	}
	for i, req := range batch {
		dst := filepath.Join(dir, req.name+sqliteExt)
		if i == 0 && tpl.spare != "" {
			spare := tpl.spare
			tpl.spare = ""
			if os.Rename(spare, dst) == nil {
				e.spared.Add(1)
				continue
			}
			_ = os.Remove(spare)
		}
		if err := copyFile(tpl.file, dst); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("copying the template: %w", err)
		}
	}
	s, client, err := startEmbedded(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	e.made.Add(1)
	g := &cloneGroup{dir: dir, srv: s, client: client, open: len(batch)}
	e.mu.Lock()
	if e.groups == nil {
		e.groups = map[*cloneGroup]bool{}
	}
	e.groups[g] = true
	e.mu.Unlock()
	return g, nil
}

// release ends one test's clone: it is dropped (or kept, and the test told
// where); the last clone of a server stops it and removes its directory
// unless a clone in it is kept.
func (e *embeddedBackend) release(t testing.TB, g *cloneGroup, name string, keep bool) {
	keepIt := keep || t.Failed()
	if keepIt {
		markKept(filepath.Base(g.dir))
		kept(t, name, fmt.Sprintf("in data directory %s (once the tests sharing its server end: oidkit server --data-dir %s)", g.dir, g.dir))
	} else if err := g.client.Database(name).Drop(context.Background()); err != nil {
		t.Errorf("oidkittest: dropping database %s: %v", name, err)
	}
	g.mu.Lock()
	g.open--
	g.kept = g.kept || keepIt
	last, keepDir := g.open == 0, g.kept
	g.mu.Unlock()
	if !last {
		return
	}
	e.mu.Lock()
	delete(e.groups, g)
	e.mu.Unlock()
	stopEmbedded(g.srv, g.client)
	if !keepDir {
		_ = os.RemoveAll(g.dir)
	}
}

// makeSpare copies tpl's file into the root directory as its spare.
func (e *embeddedBackend) makeSpare(tpl *fileTemplate) error {
	r, err := rootDir()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(r, "spare-*"+sqliteExt)
	if err != nil {
		return err
	}
	name := f.Name()
	_ = f.Close()
	if err := os.Remove(name); err != nil {
		return err
	}
	if err := copyFile(tpl.file, name); err != nil {
		_ = os.Remove(name)
		return err
	}
	tpl.spare = name
	return nil
}

// close stops the shared server and any clone server still running, once
// the clone makers have ended (all tests have: close runs after them).
func (e *embeddedBackend) close() error {
	e.makers.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	for g := range e.groups {
		stopEmbedded(g.srv, g.client)
		delete(e.groups, g)
	}
	if e.srv != nil {
		stopEmbedded(e.srv, e.client)
		e.srv, e.client = nil, nil
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
