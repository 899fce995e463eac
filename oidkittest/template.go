package oidkittest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/indexes"
)

// memTemplate is a template held in memory: each collection's documents as
// the server returned them, and its indexes.
type memTemplate struct {
	once  sync.Once
	err   error
	colls []memColl
}

type memColl struct {
	name    string
	docs    []any // bson.Raw, as InsertMany takes them
	indexes []indexes.Index
}

// read fills the template from db, collection by collection.
func (m *memTemplate) read(ctx context.Context, db *mongo.Database, names []string) error {
	for _, n := range names {
		coll := db.Collection(n)
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(1000))
		if err != nil {
			return err
		}
		mc := memColl{name: n}
		for cur.Next(ctx) {
			mc.docs = append(mc.docs, bson.Raw(append([]byte(nil), cur.Current...)))
		}
		if err := cur.Err(); err != nil {
			_ = cur.Close(ctx)
			return err
		}
		_ = cur.Close(ctx)
		if mc.indexes, err = indexes.List(ctx, coll); err != nil {
			return err
		}
		m.colls = append(m.colls, mc)
	}
	return nil
}

// insert copies the template into db: unordered InsertMany batches of
// 1,000, then the indexes.
func (m *memTemplate) insert(ctx context.Context, db *mongo.Database) error {
	for _, mc := range m.colls {
		coll := db.Collection(mc.name)
		for i := 0; i < len(mc.docs); i += 1000 {
			if _, err := coll.InsertMany(ctx, mc.docs[i:min(i+1000, len(mc.docs))], options.InsertMany().SetOrdered(false)); err != nil {
				return err
			}
		}
		if len(mc.docs) == 0 {
			if err := db.CreateCollection(ctx, mc.name); err != nil {
				return err
			}
		}
		if err := indexes.Create(ctx, coll, mc.indexes); err != nil {
			return err
		}
	}
	return nil
}

// embeddedBackend is the embedded server: one shared server for empty
// databases, and for a seeded one a copy of its template's SQLite file in a
// data directory of its own, served by a server of its own.
type embeddedBackend struct {
	mu     sync.Mutex
	once   sync.Once
	err    error
	dir    string
	srv    *embedded.Server
	client *mongo.Client
	tpls   map[string]*fileTemplate
}

// fileTemplate is a template database "tpl" in a stopped server's data
// directory.
type fileTemplate struct {
	once sync.Once
	err  error
	dir  string
}

const tplDB = "tpl"

// sqliteExt ends the file of a database in FerretDB's SQLite backend.
const sqliteExt = ".sqlite"

func (e *embeddedBackend) shared() error {
	e.once.Do(func() {
		var r string
		if r, e.err = rootDir(); e.err != nil {
			return
		}
		e.dir = filepath.Join(r, "shared")
		e.srv, e.client, e.err = startEmbedded(e.dir)
	})
	return e.err
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
		if err := e.shared(); err != nil {
			return nil, err
		}
		name := dbName(t, false)
		db := e.client.Database(name)
		t.Cleanup(func() {
			if keep || t.Failed() {
				markKept(name)
				kept(t, name, fmt.Sprintf("in the shared data directory %s (after the test binary exits: oidkit server --data-dir %s)", e.dir, e.dir))
				return
			}
			if err := db.Drop(context.Background()); err != nil {
				t.Errorf("oidkittest: dropping database %s: %v", name, err)
			}
		})
		return &handle{db: db, uri: e.srv.URI(), ferret: true}, nil
	}
	tpl, err := e.template(c)
	if err != nil {
		return nil, err
	}
	return e.clone(t, tpl, keep)
}

// template builds c's template once per test binary: c loaded into
// database tpl of a server of its own, stopped so its file can be copied.
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
		tpl.dir = filepath.Join(r, "template-"+c.key)
		tpl.err = buildTemplate(tpl.dir, c)
	})
	return tpl, tpl.err
}

func buildTemplate(dir string, c *content) error {
	s, client, err := startEmbedded(dir)
	if err != nil {
		return err
	}
	err = c.load(context.Background(), client.Database(tplDB))
	stopEmbedded(s, client)
	return err
}

// clone copies the template's file into a new data directory under the
// test's database name and starts a server over it.
func (e *embeddedBackend) clone(t testing.TB, tpl *fileTemplate, keep bool) (*handle, error) {
	name := dbName(t, false)
	dir := filepath.Join(filepath.Dir(tpl.dir), "db-"+name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, suffix := range []string{"", "-wal"} {
		src := filepath.Join(tpl.dir, tplDB+sqliteExt+suffix)
		if _, err := os.Stat(src); suffix != "" && err != nil {
			continue
		}
		if err := copyFile(src, filepath.Join(dir, name+sqliteExt+suffix)); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("copying the template: %w", err)
		}
	}
	s, client, err := startEmbedded(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	t.Cleanup(func() {
		stopEmbedded(s, client)
		if keep || t.Failed() {
			markKept(dir)
			kept(t, name, fmt.Sprintf("in data directory %s (oidkit server --data-dir %s)", dir, dir))
			return
		}
		_ = os.RemoveAll(dir)
	})
	return &handle{db: client.Database(name), uri: s.URI(), ferret: true}, nil
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
