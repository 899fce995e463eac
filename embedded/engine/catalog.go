package engine

import (
	"context"
	crand "crypto/rand"
	"crypto/sha256"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

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
		if err := mongoerr.CheckNamespace(to, "x"); err != nil {
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
