package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/storage"
)

// record is a stored document, its _id and its place in the collection's
// natural order (insertion order; an update keeps the place, as MongoDB's
// record ids do).
type record struct {
	id  bsoncore.Value
	doc bsoncore.Document
	seq uint64
}

// collection is a collection's documents and indexes.
type collection struct {
	db, name string
	uuid     [16]byte // the collection's UUID, made at its creation
	opts     bsoncore.Document
	docs     *btree.BTreeG[*record] // by _id
	natural  *btree.BTreeG[*record] // by seq: the order of a scan
	nextSeq  uint64
	bytes    int64       // the documents' BSON size in all
	indexes  []*index    // secondary indexes, in creation order
	valid    *validation // the validator of opts, nil without one
	derived  bool        // a view's documents, made for one read
}

func newCollection(db, name string, opts bsoncore.Document) *collection {
	valid, _ := parseValidation(opts) // refused before it was stored
	return &collection{db: db, name: name, opts: opts, valid: valid,
		docs: btree.NewBTreeGOptions(func(a, b *record) bool {
			return bsonval.Compare(a.id, b.id) < 0
		}, btree.Options{NoLocks: true}),
		natural: btree.NewBTreeGOptions(func(a, b *record) bool {
			return a.seq < b.seq
		}, btree.Options{NoLocks: true}),
	}
}

// scan calls fn with every record in natural order until fn returns false.
func (c *collection) scan(fn func(*record) bool) { c.natural.Scan(fn) }

// cloneMu serializes clones: the B-tree's copy-on-write Copy marks the
// tree it copies, so two transactions cloning one published collection at
// once would write that mark together.
var cloneMu sync.Mutex

func (c *collection) clone() *collection {
	cloneMu.Lock()
	defer cloneMu.Unlock()
	n := &collection{db: c.db, name: c.name, uuid: c.uuid, opts: c.opts, valid: c.valid, docs: c.docs.Copy(), natural: c.natural.Copy(), nextSeq: c.nextSeq, bytes: c.bytes}
	for _, ix := range c.indexes {
		cp := *ix
		cp.tree = ix.tree.Copy()
		n.indexes = append(n.indexes, &cp)
	}
	return n
}

func (c *collection) get(id bsoncore.Value) (bsoncore.Document, bool) {
	r, ok := c.docs.Get(&record{id: id})
	if !ok {
		return nil, false
	}
	return r.doc, true
}

// state is one version of all data: databases, their collections.
type state struct {
	dbs map[string]map[string]*collection
}

func (s *state) coll(db, name string) *collection {
	return s.dbs[db][name]
}

// Store holds the current state; readers take it without locks, writers
// take turns.
type Store struct {
	cur     atomic.Pointer[state]
	mu      sync.Mutex       // one writer at a time
	journal *storage.Journal // nil: memory only
	changes changeLog        // what published writes changed, for change streams
	clock   clock            // the logical clock writes and replies are stamped with
}

func newStore() *Store {
	s := &Store{}
	s.cur.Store(&state{dbs: map[string]map[string]*collection{}})
	return s
}

// view is the current state, O(1); it never changes.
func (s *Store) view() *state { return s.cur.Load() }

// tx is a writer's working copy.
type tx struct {
	st      *state
	touched map[*collection]bool
	ops     []bsoncore.Document
	changes []changeEvent // what the ops change, as change streams tell it

	replacing bool              // putDoc stores a replacement document
	validate  bool              // putDoc checks collections' validators (a client's write)
	client    bool              // a client's command: views are not written
	uuid      *[16]byte         // the UUID mut gives the next collection it creates (replay)
	lsid      bsoncore.Document // the session of a transaction's commit
	txnNumber int64
}

// write runs fn on a copy of the current state and publishes it, after
// the journal has it, if fn succeeds.
func (s *Store) write(ctx context.Context, fn func(t *tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return mongoerr.New(mongoerr.Interrupted, "operation was interrupted")
	}
	old := s.cur.Load()
	t := &tx{st: &state{dbs: make(map[string]map[string]*collection, len(old.dbs))}, touched: map[*collection]bool{}}
	for db, colls := range old.dbs {
		t.st.dbs[db] = colls // copied on first change
	}
	if err := fn(t); err != nil {
		return err
	}
	if len(t.ops) == 0 {
		return nil
	}
	if s.journal != nil {
		if err := s.journal.Append(journalRecord(t.ops), dump(t.st)); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return mongoerr.New(mongoerr.OutOfDiskSpace, "the disk is full: journal write failed, nothing written: %v", err)
			}
			return mongoerr.New(mongoerr.InternalError, "journal write failed, nothing written: %v", err)
		}
	}
	s.cur.Store(t.st)
	ct, ci := s.clock.tick()
	stamp(t.changes, ct, ci, time.Now())
	s.changes.add(t.changes)
	return nil
}

// mut is collection db.name ready for changes in this tx; created if
// create is set, nil otherwise when it does not exist.
func (t *tx) mut(db, name string, create bool) (*collection, error) {
	colls := t.st.dbs[db]
	c := colls[name]
	if c == nil && !create {
		return nil, nil
	}
	nm := make(map[string]*collection, len(colls)+1)
	for k, v := range colls {
		nm[k] = v
	}
	t.st.dbs[db] = nm
	if c == nil {
		if err := mongoerr.CheckNamespace(db, name); err != nil {
			return nil, err
		}
		c = newCollection(db, name, nil)
		if t.uuid != nil {
			c.uuid, t.uuid = *t.uuid, nil
		} else {
			c.uuid = newUUID()
		}
		t.touched[c] = true
		nm[name] = c
		t.log(bsoncore.NewDocumentBuilder().AppendString("o", "c").AppendString("db", db).AppendString("c", name).AppendBinary("u", 4, c.uuid[:]).Build())
		t.note(changeEvent{kind: chCreate, db: db, coll: name})
		return c, nil
	}
	if t.client && c.isView() {
		return nil, notOnView(db, name)
	}
	if !t.touched[c] {
		c = c.clone()
		t.touched[c] = true
	}
	nm[name] = c
	return c, nil
}

func (t *tx) log(op bsoncore.Document) { t.ops = append(t.ops, op) }

// putDoc stores doc under its _id: indexes updated, unique keys checked;
// nothing changes on error.
func (t *tx) putDoc(c *collection, doc bsoncore.Document, insert bool) error {
	id, err := doc.LookupErr("_id")
	if err != nil {
		return mongoerr.New(mongoerr.InternalError, "document without _id")
	}
	old, exists := c.get(id)
	if insert && exists {
		return dupKeyError(c, "_id_", bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build(), []string{"_id"}, []bsoncore.Value{id})
	}
	if t.validate {
		if err := c.valid.check(doc, old, exists); err != nil {
			return err
		}
	}
	if t.client {
		if err := checkTimeField(c, doc); err != nil {
			return err
		}
	}
	changes, err := indexChanges(c, id, doc, old, exists)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		for _, k := range ch.del {
			ch.ix.tree.Delete(ientry{k, id})
		}
		for _, k := range ch.add {
			ch.ix.tree.Set(ientry{k, id})
		}
		if ch.multi {
			ch.ix.multikey = true
		}
	}
	r := &record{id: id, doc: doc}
	if prev, ok := c.docs.Get(r); ok {
		r.seq = prev.seq
	} else {
		r.seq = c.nextSeq
		c.nextSeq++
	}
	c.docs.Set(r)
	c.natural.Set(r)
	c.bytes += int64(len(doc))
	if exists {
		c.bytes -= int64(len(old))
	}
	t.notePut(c, id, doc, old, exists)
	return nil
}

// notePut journals the storing of doc under id in c and notes its change
// event: an insert, a replace or an update of old; an insert trims a
// capped collection.
func (t *tx) notePut(c *collection, id bsoncore.Value, doc, old bsoncore.Document, exists bool) {
	ch := changeEvent{kind: chUpdate, db: c.db, coll: c.name, id: id, doc: doc, images: c.keepsImages()}
	switch {
	case !exists:
		ch.kind = chInsert
	case t.replacing:
		ch.kind = chReplace
	}
	if exists {
		ch.prev = old
	}
	t.log(putOp(c.db, c.name, doc, ch.kind == chReplace))
	t.note(ch)
	if !exists {
		t.trimCapped(c)
	}
}

// putOp is the journal's operation that puts doc into db.c: {o: "p", db,
// c, d[, k: "r" for a replacement]}, built in one buffer of its size.
func putOp(db, c string, doc bsoncore.Document, replace bool) bsoncore.Document {
	oi, out := bsoncore.ReserveLength(make([]byte, 0, 48+len(db)+len(c)+len(doc)))
	out = bsoncore.AppendStringElement(out, "o", "p")
	out = bsoncore.AppendStringElement(out, "db", db)
	out = bsoncore.AppendStringElement(out, "c", c)
	out = bsoncore.AppendDocumentElement(out, "d", doc)
	if replace {
		out = bsoncore.AppendStringElement(out, "k", "r")
	}
	out = append(out, 0)
	return bsoncore.UpdateLength(out, oi, int32(len(out[oi:])))
}

func (t *tx) deleteDoc(c *collection, id bsoncore.Value) {
	old, ok := c.get(id)
	if !ok {
		return
	}
	for _, ix := range c.indexes {
		ks, _, _ := ix.keys(old)
		for _, k := range ks {
			ix.tree.Delete(ientry{k, id})
		}
	}
	if r, ok := c.docs.Delete(&record{id: id}); ok {
		c.natural.Delete(r)
		c.bytes -= int64(len(r.doc))
	}
	t.log(bsoncore.NewDocumentBuilder().AppendString("o", "d").AppendString("db", c.db).AppendString("c", c.name).AppendValue("id", id).Build())
	t.note(changeEvent{kind: chDelete, db: c.db, coll: c.name, id: id, prev: old, images: c.keepsImages()})
}

// replay applies a journaled change.
func (t *tx) replay(op bsoncore.Document) error {
	str := func(k string) string {
		v, _ := op.LookupErr(k)
		return bsonval.Text(v)
	}
	db, c := str("db"), str("c")
	switch str("o") {
	case "c":
		if u, err := op.LookupErr("u"); err == nil && u.Type == bsoncore.TypeBinary {
			if _, data := u.Binary(); len(data) == 16 {
				t.uuid = (*[16]byte)(data)
			}
		}
		_, err := t.mut(db, c, true)
		t.uuid = nil
		return err
	case "x":
		t.dropCollection(db, c)
	case "X":
		t.dropDatabase(db)
	case "r":
		t.rename(db, c, str("tdb"), str("tc"))
	case "cl":
		t.cloneDatabase(db, str("tdb"))
	case "ci":
		col, err := t.mut(db, c, true)
		if err != nil {
			return err
		}
		spec, _ := op.LookupErr("spec")
		_, err = t.createIndex(col, bsoncore.Document(spec.Data))
		return err
	case "di":
		col, _ := t.mut(db, c, false)
		if col != nil {
			t.dropIndex(col, str("name"))
		}
	case "p":
		col, err := t.mut(db, c, true)
		if err != nil {
			return err
		}
		d, _ := op.LookupErr("d")
		t.replacing = str("k") == "r"
		defer func() { t.replacing = false }()
		return t.putDoc(col, bsoncore.Document(d.Data), false)
	case "o":
		col, err := t.mut(db, c, true)
		if err != nil {
			return err
		}
		o, _ := op.LookupErr("opts")
		t.setOptions(col, bsoncore.Document(o.Data))
	case "d":
		col, _ := t.mut(db, c, false)
		if col != nil {
			id, _ := op.LookupErr("id")
			t.deleteDoc(col, id)
		}
	}
	return nil
}
