package engine

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"crypto/sha256"
	"errors"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

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

// ientry is one key of a secondary index.
type ientry struct {
	vals []bsoncore.Value
	id   bsoncore.Value
}

// index is a secondary index: its definition and its ordered keys.
type index struct {
	name       string
	key        bsoncore.Document
	fields     []sortKeyField
	unique     bool
	sparse     bool
	partialDoc bsoncore.Document
	partial    *Filter
	ttl        *int64
	spec       bsoncore.Document // as listIndexes shows it
	multikey   bool
	tree       *btree.BTreeG[ientry]
}

func (ix *index) less(a, b ientry) bool { return ix.compare(a, b) < 0 }

func (ix *index) cmpVals(a, b []bsoncore.Value) int {
	for i := range ix.fields {
		if i >= len(a) || i >= len(b) {
			return cmpInt(len(a), len(b))
		}
		c := compareValues(a[i], b[i])
		if ix.fields[i].desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
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
			return compareValues(a.id, b.id) < 0
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

func (c *collection) index(name string) *index {
	for _, ix := range c.indexes {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

// keys is the index keys of doc: one per array element of a multikey
// field. Parallel arrays are refused as MongoDB refuses them.
func (ix *index) keys(doc bsoncore.Document) ([][]bsoncore.Value, bool, error) {
	if ix.partial != nil && !ix.partial.Match(doc) {
		return nil, false, nil
	}
	if len(ix.fields) == 1 && !strings.Contains(ix.fields[0].path, ".") {
		// One top-level field that is not an array: one key, the value.
		v, err := doc.LookupErr(ix.fields[0].path)
		switch {
		case err != nil || v.Type == 0:
			if ix.sparse {
				return nil, false, nil
			}
			return [][]bsoncore.Value{{vNull()}}, false, nil
		case v.Type != bsoncore.TypeArray:
			return [][]bsoncore.Value{{v}}, false, nil
		}
	}
	per := make([][]bsoncore.Value, len(ix.fields))
	multi := -1
	present := false
	for i, f := range ix.fields {
		vals := fanValues(doc, f.path)
		for _, v := range vals {
			if v.Type != 0 {
				present = true
			}
		}
		if len(vals) == 0 {
			vals = []bsoncore.Value{vNull()}
		}
		for j, v := range vals {
			if v.Type == 0 {
				vals[j] = vNull()
			}
		}
		if len(vals) > 1 || lookup(doc, f.path).Type == bsoncore.TypeArray {
			if multi >= 0 {
				return nil, false, mongoerr.New(mongoerr.Location(171), "cannot index parallel arrays [%s] [%s]", ix.fields[multi].path, f.path)
			}
			multi = i
		}
		per[i] = dedup(vals)
	}
	if ix.sparse && !present {
		return nil, false, nil
	}
	out := [][]bsoncore.Value{{}}
	for _, vals := range per {
		var next [][]bsoncore.Value
		for _, prefix := range out {
			for _, v := range vals {
				k := append(append([]bsoncore.Value{}, prefix...), v)
				next = append(next, k)
			}
		}
		out = next
	}
	return out, multi >= 0, nil
}

func dedup(vals []bsoncore.Value) []bsoncore.Value {
	if len(vals) < 2 {
		return vals
	}
	var out []bsoncore.Value
	for _, v := range vals {
		dup := false
		for _, o := range out {
			if valuesEqual(o, v) && v.Type == o.Type {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	return out
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
		if err := checkNamespace(db, name); err != nil {
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

func checkNamespace(db, coll string) error {
	if db == "" || strings.ContainsAny(db, "/\\. \"$\x00") || len(db) > 63 {
		return mongoerr.New(mongoerr.InvalidNamespace, "Invalid database name: '%s'", db)
	}
	if coll == "" || strings.Contains(coll, "$") || strings.Contains(coll, "\x00") || strings.HasPrefix(coll, ".") {
		return mongoerr.New(mongoerr.InvalidNamespace, "Invalid collection name: %s", coll)
	}
	return nil
}

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
	type change struct {
		ix    *index
		add   [][]bsoncore.Value
		del   [][]bsoncore.Value
		multi bool
	}
	var changes []change
	for _, ix := range c.indexes {
		nk, multi, err := ix.keys(doc)
		if err != nil {
			return err
		}
		var ok [][]bsoncore.Value
		if exists {
			if ok, _, err = ix.keys(old); err != nil {
				ok = nil
			}
		}
		if ix.unique {
			for _, k := range nk {
				if other, found := ix.holder(k, id); found {
					_ = other
					names := make([]string, len(ix.fields))
					for i, f := range ix.fields {
						names[i] = f.path
					}
					return dupKeyError(c, ix.name, ix.key, names, k)
				}
			}
		}
		changes = append(changes, change{ix, nk, ok, multi})
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
	op := bsoncore.NewDocumentBuilder().AppendString("o", "p").AppendString("db", c.db).AppendString("c", c.name).AppendDocument("d", doc)
	ch := changeEvent{kind: chUpdate, db: c.db, coll: c.name, id: id, doc: doc, images: c.keepsImages()}
	switch {
	case !exists:
		ch.kind = chInsert
	case t.replacing:
		ch.kind = chReplace
		op.AppendString("k", "r")
	}
	if exists {
		ch.prev = old
	}
	t.log(op.Build())
	t.note(ch)
	if !exists {
		t.trimCapped(c)
	}
	return nil
}

// holder is a document other than id holding key k in a unique index.
func (ix *index) holder(k []bsoncore.Value, id bsoncore.Value) (bsoncore.Value, bool) {
	var found bsoncore.Value
	ok := false
	ix.tree.Ascend(ientry{vals: k, id: bsoncore.Value{Type: bsoncore.TypeMinKey}}, func(e ientry) bool {
		if ix.cmpVals(e.vals, k) != 0 {
			return false
		}
		if compareValues(e.id, id) != 0 {
			found, ok = e.id, true
			return false
		}
		return true
	})
	return found, ok
}

func dupKeyError(c *collection, name string, pattern bsoncore.Document, fields []string, vals []bsoncore.Value) error {
	var parts []string
	kv := bsoncore.NewDocumentBuilder()
	for i, f := range fields {
		parts = append(parts, f+": "+shell(vals[i]))
		kv.AppendValue(f, vals[i])
	}
	extra := bsoncore.NewDocumentBuilder().AppendDocument("keyPattern", pattern).AppendDocument("keyValue", kv.Build()).Build()
	return &mongoerr.Error{
		Code:  mongoerr.DuplicateKey,
		Msg:   "E11000 duplicate key error collection: " + c.db + "." + c.name + " index: " + name + " dup key: { " + strings.Join(parts, ", ") + " }",
		Extra: extra,
	}
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

// createIndex builds a secondary index over c's documents.
func (t *tx) createIndex(c *collection, spec bsoncore.Document) (bool, error) {
	ix, err := parseIndexSpec(spec)
	if err != nil {
		return false, err
	}
	if err := checkIndexCollation(c, ix, spec); err != nil {
		return false, err
	}
	if ix.name == "_id_" {
		return false, nil
	}
	for _, o := range c.indexes {
		sameKey := bytes.Equal(o.key, ix.key)
		switch {
		case o.name == ix.name && sameKey:
			if o.unique != ix.unique || o.sparse != ix.sparse || !bytes.Equal(o.partialDoc, ix.partialDoc) {
				return false, mongoerr.New(mongoerr.IndexKeySpecsConflict, "An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: %s, existing index: %s", shell(vDoc(ix.spec)), shell(vDoc(o.spec)))
			}
			return false, nil
		case o.name == ix.name:
			return false, mongoerr.New(mongoerr.IndexKeySpecsConflict, "An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: %s, existing index: %s", shell(vDoc(ix.spec)), shell(vDoc(o.spec)))
		case sameKey && bytes.Equal(o.partialDoc, ix.partialDoc):
			return false, mongoerr.New(mongoerr.IndexOptionsConflict, "Index already exists with a different name: %s", o.name)
		}
	}
	entries, err := buildEntries(c, ix)
	if err != nil {
		return false, err
	}
	if ix.unique {
		for i := 1; i < len(entries); i++ {
			if ix.cmpVals(entries[i-1].vals, entries[i].vals) == 0 && compareValues(entries[i-1].id, entries[i].id) != 0 {
				names := make([]string, len(ix.fields))
				for j, f := range ix.fields {
					names[j] = f.path
				}
				return false, dupKeyError(c, ix.name, ix.key, names, entries[i].vals)
			}
		}
	}
	for _, e := range entries {
		ix.tree.Load(e)
	}
	c.indexes = append(c.indexes, ix)
	t.log(bsoncore.NewDocumentBuilder().AppendString("o", "ci").AppendString("db", c.db).AppendString("c", c.name).AppendDocument("spec", spec).Build())
	t.note(changeEvent{kind: chCreateIndex, db: c.db, coll: c.name, spec: ix.spec})
	return true, nil
}

// parseIndexSpec reads one createIndexes entry.
func parseIndexSpec(spec bsoncore.Document) (*index, error) {
	kv, err := spec.LookupErr("key")
	if err != nil || kv.Type != bsoncore.TypeEmbeddedDocument || len(elements(bsoncore.Document(kv.Data))) == 0 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The 'key' field is a required property of an index specification")
	}
	ix := &index{key: bsoncore.Document(kv.Data)}
	var nameParts []string
	for _, e := range elements(ix.key) {
		v := e.Value()
		if v.Type == bsoncore.TypeString {
			return nil, mongoerr.New(mongoerr.CannotCreateIndex, "index type '%s' is not supported by oidkit's server (only ascending and descending indexes are)", v.StringValue())
		}
		if !isNumber(v) || numberFloat(v) == 0 {
			return nil, mongoerr.New(mongoerr.CannotCreateIndex, "Values in the index key pattern can only be numbers or strings: %s", shell(vDoc(ix.key)))
		}
		ix.fields = append(ix.fields, sortKeyField{e.Key(), numberFloat(v) < 0})
		nameParts = append(nameParts, e.Key()+"_"+toStr(v))
	}
	if nv, err := spec.LookupErr("name"); err == nil {
		if nv.Type != bsoncore.TypeString || nv.StringValue() == "" {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "The field 'name' must be a non-empty string")
		}
		ix.name = nv.StringValue()
	} else {
		ix.name = strings.Join(nameParts, "_")
	}
	if v, err := spec.LookupErr("unique"); err == nil {
		ix.unique = truthy(v)
	}
	if v, err := spec.LookupErr("sparse"); err == nil {
		ix.sparse = truthy(v)
	}
	if v, err := spec.LookupErr("partialFilterExpression"); err == nil {
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "partialFilterExpression must be an object")
		}
		ix.partialDoc = bsoncore.Document(v.Data)
		if ix.partial, err = compileFilter(ix.partialDoc, nil); err != nil {
			return nil, err
		}
	}
	if v, err := spec.LookupErr("expireAfterSeconds"); err == nil {
		if !isNumber(v) {
			return nil, mongoerr.New(mongoerr.CannotCreateIndex, "TTL index 'expireAfterSeconds' option must be numeric")
		}
		n := int64(numberFloat(v))
		ix.ttl = &n
	}
	if ix.name == "_id_" {
		return ix, nil
	}
	b := bsoncore.NewDocumentBuilder().AppendInt32("v", 2).AppendDocument("key", ix.key).AppendString("name", ix.name)
	for _, e := range elements(spec) {
		switch e.Key() {
		case "key", "name", "v", "ns":
		default:
			b.AppendValue(e.Key(), e.Value())
		}
	}
	ix.spec = b.Build()
	ix.tree = btree.NewBTreeGOptions(ix.less, btree.Options{NoLocks: true})
	return ix, nil
}

// setOptions sets a collection's options (create, collMod).
func (t *tx) setOptions(c *collection, opts bsoncore.Document) {
	c.opts = opts
	c.valid, _ = parseValidation(opts) // the commands refuse a bad one first
	t.log(bsoncore.NewDocumentBuilder().AppendString("o", "o").AppendString("db", c.db).AppendString("c", c.name).AppendDocument("opts", opts).Build())
	if n := len(t.changes); n > 0 && t.changes[n-1].kind == chCreate && t.changes[n-1].db == c.db && t.changes[n-1].coll == c.name {
		t.changes[n-1].spec = opts
		return
	}
	t.note(changeEvent{kind: chModify, db: c.db, coll: c.name, spec: opts})
}

// dropIndex removes a secondary index.
func (t *tx) dropIndex(c *collection, name string) bool {
	for i, ix := range c.indexes {
		if ix.name == name {
			c.indexes = append(c.indexes[:i:i], c.indexes[i+1:]...)
			t.log(bsoncore.NewDocumentBuilder().AppendString("o", "di").AppendString("db", c.db).AppendString("c", c.name).AppendString("name", name).Build())
			t.note(changeEvent{kind: chDropIndex, db: c.db, coll: c.name, spec: bsoncore.NewDocumentBuilder().AppendString("name", name).Build()})
			return true
		}
	}
	return false
}

func (t *tx) dropCollection(db, name string) bool {
	if t.st.dbs[db][name] == nil {
		return false
	}
	t.note(changeEvent{kind: chDrop, db: db, coll: name})
	nm := make(map[string]*collection, len(t.st.dbs[db]))
	for k, v := range t.st.dbs[db] {
		if k != name {
			nm[k] = v
		}
	}
	if len(nm) == 0 {
		delete(t.st.dbs, db)
	} else {
		t.st.dbs[db] = nm
	}
	t.log(bsoncore.NewDocumentBuilder().AppendString("o", "x").AppendString("db", db).AppendString("c", name).Build())
	return true
}

func (t *tx) dropDatabase(db string) {
	if _, ok := t.st.dbs[db]; !ok {
		return
	}
	names := make([]string, 0, len(t.st.dbs[db]))
	for name := range t.st.dbs[db] {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.note(changeEvent{kind: chDrop, db: db, coll: name})
	}
	t.note(changeEvent{kind: chDropDatabase, db: db})
	delete(t.st.dbs, db)
	t.log(bsoncore.NewDocumentBuilder().AppendString("o", "X").AppendString("db", db).Build())
}

// rename moves a collection, with its documents and indexes.
func (t *tx) rename(db, from, toDB, to string) {
	c := t.st.dbs[db][from]
	if c == nil {
		return
	}
	t.dropCollection(db, from)
	t.ops = t.ops[:len(t.ops)-1]
	t.changes = t.changes[:len(t.changes)-1]
	nc := c.clone()
	nc.db, nc.name = toDB, to
	nm := make(map[string]*collection, len(t.st.dbs[toDB])+1)
	for k, v := range t.st.dbs[toDB] {
		nm[k] = v
	}
	nm[to] = nc
	t.st.dbs[toDB] = nm
	t.touched[nc] = true
	t.log(bsoncore.NewDocumentBuilder().AppendString("o", "r").AppendString("db", db).AppendString("c", from).AppendString("tdb", toDB).AppendString("tc", to).Build())
	t.note(changeEvent{kind: chRename, db: db, coll: from, toDB: toDB, to: to, uuid: c.uuid})
}

// cloneDatabase makes database to a copy of from in O(collections).
func (t *tx) cloneDatabase(from, to string) {
	nm := map[string]*collection{}
	for name, c := range t.st.dbs[from] {
		nc := c.clone()
		nc.db = to
		nc.uuid = cloneUUID(c.uuid, to)
		nm[name] = nc
		t.touched[nc] = true
	}
	t.st.dbs[to] = nm
	t.log(bsoncore.NewDocumentBuilder().AppendString("o", "cl").AppendString("db", from).AppendString("tdb", to).Build())
}

// replay applies a journaled change.
func (t *tx) replay(op bsoncore.Document) error {
	str := func(k string) string {
		v, _ := op.LookupErr(k)
		return toStr(v)
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

// CloneDatabase makes database to a copy of database from, in time that
// does not grow with the number of documents: the copy shares the
// original's B-trees until either side writes (copy on write).
func (s *Store) CloneDatabase(ctx context.Context, from, to string) error {
	return s.write(ctx, func(t *tx) error {
		if _, ok := t.st.dbs[from]; !ok {
			return mongoerr.New(mongoerr.NamespaceNotFound, "database %s does not exist", from)
		}
		if _, ok := t.st.dbs[to]; ok {
			return mongoerr.New(mongoerr.NamespaceExists, "database %s already exists", to)
		}
		if err := checkNamespace(to, "x"); err != nil {
			return err
		}
		t.cloneDatabase(from, to)
		return nil
	})
}

// newUUID is a random (version 4) UUID.
func newUUID() [16]byte {
	var u [16]byte
	_, _ = crand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

// cloneUUID is the UUID of a clone of a collection into database db: a
// function of both, so that a replayed clone gets the same UUID.
func cloneUUID(orig [16]byte, db string) [16]byte {
	h := sha256.Sum256(append(orig[:], db...))
	var u [16]byte
	copy(u[:], h[:16])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}
