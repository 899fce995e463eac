package engine

import (
	"bytes"
	"cmp"
	"strings"

	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/query"
)

// ientry is one key of a secondary index.
type ientry struct {
	vals []bsoncore.Value
	id   bsoncore.Value
}

// index is a secondary index: its definition and its ordered keys.
type index struct {
	name       string
	key        bsoncore.Document
	fields     []bsonval.SortField
	unique     bool
	sparse     bool
	partialDoc bsoncore.Document
	partial    *query.Filter
	ttl        *int64
	spec       bsoncore.Document // as listIndexes shows it
	multikey   bool
	tree       *btree.BTreeG[ientry]
}

func (ix *index) less(a, b ientry) bool { return ix.compare(a, b) < 0 }

func (ix *index) cmpVals(a, b []bsoncore.Value) int {
	for i := range ix.fields {
		if i >= len(a) || i >= len(b) {
			return cmp.Compare(len(a), len(b))
		}
		c := bsonval.Compare(a[i], b[i])
		if ix.fields[i].Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
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
	if len(ix.fields) == 1 && !strings.Contains(ix.fields[0].Path, ".") {
		// One top-level field that is not an array: one key, the value.
		v, err := doc.LookupErr(ix.fields[0].Path)
		switch {
		case err != nil || v.Type == 0:
			if ix.sparse {
				return nil, false, nil
			}
			return [][]bsoncore.Value{{bsonval.Null()}}, false, nil
		case v.Type != bsoncore.TypeArray:
			return [][]bsoncore.Value{{v}}, false, nil
		}
	}
	per := make([][]bsoncore.Value, len(ix.fields))
	multi := -1
	present := false
	for i, f := range ix.fields {
		vals := bsonval.FanValues(doc, f.Path)
		for _, v := range vals {
			if v.Type != 0 {
				present = true
			}
		}
		if len(vals) == 0 {
			vals = []bsoncore.Value{bsonval.Null()}
		}
		for j, v := range vals {
			if v.Type == 0 {
				vals[j] = bsonval.Null()
			}
		}
		if len(vals) > 1 || bsonval.Lookup(doc, f.Path).Type == bsoncore.TypeArray {
			if multi >= 0 {
				return nil, false, mongoerr.New(mongoerr.Location(171), "cannot index parallel arrays [%s] [%s]", ix.fields[multi].Path, f.Path)
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
			if bsonval.Equal(o, v) && v.Type == o.Type {
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

// indexChange is what storing a document changes in one index: the keys
// it adds and deletes, and whether it makes the index multikey.
type indexChange struct {
	ix    *index
	add   [][]bsoncore.Value
	del   [][]bsoncore.Value
	multi bool
}

// indexChanges is what storing doc under id (replacing old when exists)
// changes in c's indexes; an error when doc has no keys for an index or
// a unique index holds one of its keys for another document.
func indexChanges(c *collection, id bsoncore.Value, doc, old bsoncore.Document, exists bool) ([]indexChange, error) {
	var changes []indexChange
	for _, ix := range c.indexes {
		nk, multi, err := ix.keys(doc)
		if err != nil {
			return nil, err
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
						names[i] = f.Path
					}
					return nil, dupKeyError(c, ix.name, ix.key, names, k)
				}
			}
		}
		changes = append(changes, indexChange{ix, nk, ok, multi})
	}
	return changes, nil
}

// holder is a document other than id holding key k in a unique index.
func (ix *index) holder(k []bsoncore.Value, id bsoncore.Value) (bsoncore.Value, bool) {
	var found bsoncore.Value
	ok := false
	ix.tree.Ascend(ientry{vals: k, id: bsoncore.Value{Type: bsoncore.TypeMinKey}}, func(e ientry) bool {
		if ix.cmpVals(e.vals, k) != 0 {
			return false
		}
		if bsonval.Compare(e.id, id) != 0 {
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
		parts = append(parts, f+": "+bsonval.Shell(vals[i]))
		kv.AppendValue(f, vals[i])
	}
	extra := bsoncore.NewDocumentBuilder().AppendDocument("keyPattern", pattern).AppendDocument("keyValue", kv.Build()).Build()
	return &mongoerr.Error{
		Code:  mongoerr.DuplicateKey,
		Msg:   "E11000 duplicate key error collection: " + c.db + "." + c.name + " index: " + name + " dup key: { " + strings.Join(parts, ", ") + " }",
		Extra: extra,
	}
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
		sameKey := sameKeyPattern(o.key, ix.key)
		switch {
		case o.name == ix.name && sameKey:
			if o.unique != ix.unique || o.sparse != ix.sparse || !bytes.Equal(o.partialDoc, ix.partialDoc) {
				return false, mongoerr.New(mongoerr.IndexKeySpecsConflict, "An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: %s, existing index: %s", bsonval.Shell(bsonval.Doc(ix.spec)), bsonval.Shell(bsonval.Doc(o.spec)))
			}
			return false, nil
		case o.name == ix.name:
			return false, mongoerr.New(mongoerr.IndexKeySpecsConflict, "An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: %s, existing index: %s", bsonval.Shell(bsonval.Doc(ix.spec)), bsonval.Shell(bsonval.Doc(o.spec)))
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
			if ix.cmpVals(entries[i-1].vals, entries[i].vals) == 0 && bsonval.Compare(entries[i-1].id, entries[i].id) != 0 {
				names := make([]string, len(ix.fields))
				for j, f := range ix.fields {
					names[j] = f.Path
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
	if err != nil || kv.Type != bsoncore.TypeEmbeddedDocument || len(bsonval.Elements(bsoncore.Document(kv.Data))) == 0 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The 'key' field is a required property of an index specification")
	}
	ix := &index{key: bsoncore.Document(kv.Data)}
	var nameParts []string
	for _, e := range bsonval.Elements(ix.key) {
		v := e.Value()
		if v.Type == bsoncore.TypeString {
			return nil, mongoerr.New(mongoerr.CannotCreateIndex, "index type '%s' is not supported by oidkit's server (only ascending and descending indexes are)", v.StringValue())
		}
		if !bsonval.IsNumber(v) || bsonval.NumberFloat(v) == 0 {
			return nil, mongoerr.New(mongoerr.CannotCreateIndex, "Values in the index key pattern can only be numbers or strings: %s", bsonval.Shell(bsonval.Doc(ix.key)))
		}
		ix.fields = append(ix.fields, bsonval.SortField{Path: e.Key(), Desc: bsonval.NumberFloat(v) < 0})
		nameParts = append(nameParts, e.Key()+"_"+bsonval.Text(v))
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
		ix.unique = bsonval.Truthy(v)
	}
	if v, err := spec.LookupErr("sparse"); err == nil {
		ix.sparse = bsonval.Truthy(v)
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
		if !bsonval.IsNumber(v) {
			return nil, mongoerr.New(mongoerr.CannotCreateIndex, "TTL index 'expireAfterSeconds' option must be numeric")
		}
		n := int64(bsonval.NumberFloat(v))
		ix.ttl = &n
	}
	if ix.name == "_id_" {
		return ix, nil
	}
	b := bsoncore.NewDocumentBuilder().AppendInt32("v", 2).AppendDocument("key", ix.key).AppendString("name", ix.name)
	for _, e := range bsonval.Elements(spec) {
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
