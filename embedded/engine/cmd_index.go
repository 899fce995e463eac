package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// idKey is the key pattern of the _id index.
var idKey = bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build()

// modifyIndex applies collMod's index field: the index named by name or
// keyPattern gets a new expireAfterSeconds or hidden flag, the old and
// new values reported as MongoDB does.
func modifyIndex(t *tx, col *collection, mod bsoncore.Document, reply *bsoncore.DocumentBuilder) error {
	var ix *index
	for _, x := range col.indexes {
		if n, err := mod.LookupErr("name"); err == nil && bsonval.Text(n) == x.name {
			ix = x
		}
		if kp, err := mod.LookupErr("keyPattern"); err == nil && kp.Type == bsoncore.TypeEmbeddedDocument && equalDocs(bsoncore.Document(kp.Data), x.key) {
			ix = x
		}
	}
	if ix == nil {
		return mongoerr.New(mongoerr.IndexNotFound, "cannot find index %s for ns %s.%s", bsonval.Shell(bsonval.Doc(mod)), col.db, col.name)
	}
	spec := bsoncore.NewDocumentBuilder()
	changed := map[string]bsoncore.Value{}
	for _, k := range []string{"expireAfterSeconds", "hidden"} {
		if v, err := mod.LookupErr(k); err == nil {
			changed[k] = v
			if old, err := ix.spec.LookupErr(k); err == nil {
				reply.AppendValue(k+"_old", old)
			}
			reply.AppendValue(k+"_new", v)
		}
	}
	for _, e := range bsonval.Elements(ix.spec) {
		if _, ok := changed[e.Key()]; !ok {
			spec.AppendValue(e.Key(), e.Value())
		}
	}
	for _, k := range []string{"expireAfterSeconds", "hidden"} {
		if v, ok := changed[k]; ok {
			spec.AppendValue(k, v)
		}
	}
	n := len(t.changes)
	t.dropIndex(col, ix.name)
	if _, err := t.createIndex(col, spec.Build()); err != nil {
		return err
	}
	t.changes = t.changes[:n] // one modify event, not a drop and a create
	return nil
}

func cmdCreateIndexes(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	specs := bsonval.ArrayValues(c.arg("indexes"))
	if c.arg("indexes").Type != bsoncore.TypeArray || len(specs) == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "Must specify at least one index")
	}
	var before, after int32
	created := false
	made := 0
	err = c.write(func(t *tx) error {
		created = t.st.coll(c.db, name) == nil
		col, err := t.mut(c.db, name, true)
		if err != nil {
			return err
		}
		before = int32(len(col.indexes) + 1)
		for _, s := range specs {
			if s.Type != bsoncore.TypeEmbeddedDocument {
				return mongoerr.New(mongoerr.TypeMismatch, "The elements of the 'indexes' array must be objects")
			}
			ok, err := t.createIndex(col, bsoncore.Document(s.Data))
			if err != nil {
				return err
			}
			if ok {
				made++
			}
		}
		after = int32(len(col.indexes) + 1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	b := newReply().b.AppendInt32("numIndexesBefore", before).AppendInt32("numIndexesAfter", after).AppendBoolean("createdCollectionAutomatically", created)
	if made == 0 {
		b.AppendString("note", "all indexes already exist")
	}
	return newReplyFrom(b).ok(), nil
}

func cmdListIndexes(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	col := c.view().coll(c.db, name)
	if col == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s.%s", c.db, name)
	}
	docs := []bsoncore.Document{bsoncore.NewDocumentBuilder().AppendInt32("v", 2).AppendDocument("key", idKey).AppendString("name", "_id_").Build()}
	for _, ix := range col.indexes {
		docs = append(docs, ix.spec)
	}
	return c.cursorReply(c.db+"."+name, docs, batchSizeOf(c.arg("cursor")), false), nil
}

func cmdDropIndexes(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	target := c.arg("index")
	var n int32
	err = c.write(func(t *tx) error {
		col, err := t.mut(c.db, name, false)
		if err != nil {
			return err
		}
		if col == nil {
			return mongoerr.New(mongoerr.NamespaceNotFound, "ns not found %s.%s", c.db, name)
		}
		n = int32(len(col.indexes) + 1)
		var names []string
		switch target.Type {
		case bsoncore.TypeString:
			if target.StringValue() == "*" {
				for _, ix := range col.indexes {
					names = append(names, ix.name)
				}
			} else {
				names = []string{target.StringValue()}
			}
		case bsoncore.TypeArray:
			for _, v := range bsonval.ArrayValues(target) {
				names = append(names, bsonval.Text(v))
			}
		case bsoncore.TypeEmbeddedDocument:
			found := false
			for _, ix := range col.indexes {
				if bsonval.CompareDocs(ix.key, bsoncore.Document(target.Data), false) == 0 {
					names, found = []string{ix.name}, true
				}
			}
			if !found {
				if bsonval.CompareDocs(idKey, bsoncore.Document(target.Data), false) == 0 {
					return mongoerr.New(mongoerr.InvalidOptions, "cannot drop _id index")
				}
				return mongoerr.New(mongoerr.IndexNotFound, "can't find index with key: %s", bsonval.Shell(target))
			}
		default:
			return mongoerr.New(mongoerr.TypeMismatch, "invalid index name spec")
		}
		for _, nm := range names {
			if nm == "_id_" {
				return mongoerr.New(mongoerr.InvalidOptions, "cannot drop _id index")
			}
			if col.index(nm) == nil {
				return mongoerr.New(mongoerr.IndexNotFound, "index not found with name [%s]", nm)
			}
		}
		for _, nm := range names {
			t.dropIndex(col, nm)
		}
		return nil
	})
	return newReply().b.AppendInt32("nIndexesWas", n).AppendDouble("ok", 1).Build(), err
}
