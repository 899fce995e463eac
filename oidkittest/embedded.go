package oidkittest

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/internal/ready"
	"github.com/oidkit/oidkit/rules"
)

// embeddedBackend is the embedded server: one server for the test binary;
// a template is loaded once into a database of its own, and each test's
// database is a copy-on-write clone of it, made in microseconds whatever
// the template holds (embedded.Server.CloneDatabase).
type embeddedBackend struct {
	mu     sync.Mutex
	dir    string // of the server's data; "" is shared in the root directory
	srv    *embedded.Server
	client *mongo.Client
	err    error
	tpls   map[string]*snapTemplate
}

type snapTemplate struct {
	once sync.Once
	name string
	err  error
}

// tplDB prefixes the names of the template databases.
const tplDB = "tpl"

func (e *embeddedBackend) shared() (*embedded.Server, *mongo.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.srv == nil && e.err == nil {
		r, err := rootDir()
		if err != nil {
			return nil, nil, err
		}
		if e.dir == "" {
			e.dir = filepath.Join(r, "shared")
		}
		e.srv, e.client, e.err = startEmbedded(e.dir)
	}
	return e.srv, e.client, e.err
}

func (e *embeddedBackend) open(t testing.TB, c *content, keep bool) (*handle, error) {
	srv, client, err := e.shared()
	if err != nil {
		return nil, err
	}
	name := dbName(t, false)
	db := client.Database(name)
	dir := e.dir
	if !c.empty() {
		tpl, err := e.template(c)
		if err != nil {
			return nil, err
		}
		if err := srv.CloneDatabase(context.Background(), tpl, name); err != nil {
			return nil, fmt.Errorf("embedded server: cloning the template into %s: %w", name, err)
		}
	}
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
	return &handle{db: db, uri: srv.URI(), profile: rules.MongoDB}, nil
}

// template is the database holding c, filled once per test binary from
// the disk cache or by loading c.
func (e *embeddedBackend) template(c *content) (string, error) {
	e.mu.Lock()
	if e.tpls == nil {
		e.tpls = map[string]*snapTemplate{}
	}
	tpl := e.tpls[c.key]
	if tpl == nil {
		tpl = &snapTemplate{name: fmt.Sprintf("%s_%d", tplDB, len(e.tpls))}
		e.tpls[c.key] = tpl
	}
	e.mu.Unlock()
	tpl.once.Do(func() {
		_, client, err := e.shared()
		if err != nil {
			tpl.err = err
			return
		}
		_, tpl.err = fillTemplate(context.Background(), c, client.Database(tpl.name), rules.MongoDB, false)
	})
	return tpl.name, tpl.err
}

// loadTemplate loads c into its template database.
func (e *embeddedBackend) loadTemplate(c *content) error {
	_, err := e.template(c)
	return err
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
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := ready.Ping(ctx, c); err != nil { // the server known before a test's first operation
		stopEmbedded(s, c)
		return nil, nil, fmt.Errorf("embedded server: %w", err)
	}
	return s, c, nil
}

func stopEmbedded(s *embedded.Server, c *mongo.Client) {
	_ = c.Disconnect(context.Background())
	_ = s.Close()
}

func (e *embeddedBackend) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.srv != nil {
		stopEmbedded(e.srv, e.client)
		e.srv, e.client = nil, nil
	}
	return nil
}
