package engine

import (
	"math"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/query"
)

func cmdListDatabases(c *call) (bsoncore.Document, error) {
	st := c.view()
	names := make([]string, 0, len(st.dbs))
	for db := range st.dbs {
		names = append(names, db)
	}
	sort.Strings(names)
	nameOnly := bsonval.Truthy(c.arg("nameOnly"))
	var filter *query.Filter
	if f := c.arg("filter"); f.Type == bsoncore.TypeEmbeddedDocument {
		var err error
		if filter, err = compileFilter(bsoncore.Document(f.Data), nil); err != nil {
			return nil, err
		}
	}
	var vals []bsoncore.Value
	var total int64
	for _, db := range names {
		b := bsoncore.NewDocumentBuilder().AppendString("name", db)
		if !nameOnly {
			var size int64
			for _, col := range st.dbs[db] {
				size += dataSize(col)
			}
			total += size
			b.AppendInt64("sizeOnDisk", size).AppendBoolean("empty", size == 0)
		}
		d := b.Build()
		if filter != nil && !filter.Match(d) {
			continue
		}
		vals = append(vals, bsonval.Doc(d))
	}
	b := newReply().b.AppendArray("databases", bsoncore.BuildArray(nil, vals...))
	if !nameOnly {
		b.AppendInt64("totalSize", total).AppendInt64("totalSizeMb", total>>20)
	}
	return newReplyFrom(b).ok(), nil
}

func cmdListCollections(c *call) (bsoncore.Document, error) {
	st := c.view()
	var filter *query.Filter
	if f := c.arg("filter"); f.Type == bsoncore.TypeEmbeddedDocument {
		var err error
		if filter, err = compileFilter(bsoncore.Document(f.Data), nil); err != nil {
			return nil, err
		}
	}
	names := make([]string, 0)
	for n := range st.dbs[c.db] {
		names = append(names, n)
	}
	sort.Strings(names)
	nameOnly := bsonval.Truthy(c.arg("nameOnly"))
	var docs []bsoncore.Document
	for _, n := range names {
		col := st.dbs[c.db][n]
		if col.isView() {
			b := bsoncore.NewDocumentBuilder().AppendString("name", n).AppendString("type", "view")
			if !nameOnly {
				b.AppendDocument("options", col.opts).AppendDocument("info", bsoncore.NewDocumentBuilder().AppendBoolean("readOnly", true).Build())
			}
			if d := b.Build(); filter == nil || filter.Match(d) {
				docs = append(docs, d)
			}
			continue
		}
		kind := "collection"
		if timeField(col) != "" {
			kind = "timeseries"
		}
		b := bsoncore.NewDocumentBuilder().AppendString("name", n).AppendString("type", kind)
		if !nameOnly {
			opts := col.opts
			if opts == nil {
				opts = bsoncore.NewDocumentBuilder().Build()
			}
			b.AppendDocument("options", opts).
				AppendDocument("info", bsoncore.NewDocumentBuilder().AppendBoolean("readOnly", false).AppendBinary("uuid", 4, col.uuid[:]).Build()).
				AppendDocument("idIndex", bsoncore.NewDocumentBuilder().AppendInt32("v", 2).AppendDocument("key", idKey).AppendString("name", "_id_").Build())
		}
		d := b.Build()
		if filter != nil && !filter.Match(d) {
			continue
		}
		docs = append(docs, d)
	}
	return c.cursorReply(c.db+".$cmd.listCollections", docs, batchSizeOf(c.arg("cursor")), false), nil
}

func cmdCreate(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	if err := checkCappedOptions(c.arg("capped"), c.arg("size"), c.arg("max")); err != nil {
		return nil, err
	}
	if v := c.arg("expireAfterSeconds"); v.Type != 0 {
		if c.arg("timeseries").Type == 0 {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "'expireAfterSeconds' is only supported on time-series collections")
		}
		if n, ok := bsonval.IntOf(v); !ok || n < 0 {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "'expireAfterSeconds' must be a non-negative whole number, got %s", bsonval.Shell(v))
		}
	}
	if c.arg("viewOn").Type != 0 {
		if err := checkViewOptions(c); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"clusteredIndex", "encryptedFields"} {
		if v := c.arg(k); v.Type != 0 && bsonval.Truthy(v) {
			return nil, mongoerr.New(mongoerr.NotImplemented, "create with '%s' is not supported by oidkit's server", k)
		}
	}
	opts := bsoncore.NewDocumentBuilder()
	for _, e := range bsonval.Elements(c.cmd)[1:] {
		switch {
		case genericArgs[e.Key()]:
		case e.Key() == "timeseries":
			ts, err := timeSeriesOptions(e.Value())
			if err != nil {
				return nil, err
			}
			opts.AppendDocument("timeseries", ts)
		case e.Key() == "size" && bsonval.Truthy(c.arg("capped")):
			appendNumber(opts, "size", (int64(bsonval.NumberFloat(e.Value()))+255)/256*256) // as MongoDB rounds it
		case e.Key() == "max" && bsonval.Truthy(c.arg("capped")) && bsonval.IsNumber(e.Value()):
			appendNumber(opts, "max", int64(bsonval.NumberFloat(e.Value())))
		default:
			opts.AppendValue(e.Key(), e.Value())
		}
	}
	built := opts.Build()
	if _, err := parseValidation(built); err != nil {
		return nil, err
	}
	if _, err := bsonval.ParseCollation(lookupOr(built, "collation")); err != nil {
		return nil, err
	}
	return newReply().ok(), c.write(func(t *tx) error {
		if t.st.coll(c.db, name) != nil {
			return mongoerr.New(mongoerr.NamespaceExists, "Collection %s.%s already exists.", c.db, name)
		}
		col, err := t.mut(c.db, name, true)
		if err != nil {
			return err
		}
		t.setOptions(col, built)
		return nil
	})
}

func cmdDrop(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	var n int32
	err = c.write(func(t *tx) error {
		if col := t.st.coll(c.db, name); col != nil {
			n = int32(len(col.indexes) + 1)
		}
		t.dropCollection(c.db, name)
		return nil
	})
	return newReply().b.AppendInt32("nIndexesWas", n).AppendString("ns", c.db+"."+name).AppendDouble("ok", 1).Build(), err
}

func cmdDropDatabase(c *call) (bsoncore.Document, error) {
	err := c.write(func(t *tx) error { t.dropDatabase(c.db); return nil })
	return newReply().b.AppendString("dropped", c.db).AppendDouble("ok", 1).Build(), err
}

func splitNS(ns string) (string, string, error) {
	db, coll, ok := strings.Cut(ns, ".")
	if !ok || db == "" || coll == "" {
		return "", "", mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%s'", ns)
	}
	return db, coll, nil
}

func cmdRename(c *call) (bsoncore.Document, error) {
	fdb, fc, err := splitNS(bsonval.Text(bsonval.Elements(c.cmd)[0].Value()))
	if err != nil {
		return nil, err
	}
	tdb, tc, err := splitNS(bsonval.Text(c.arg("to")))
	if err != nil {
		return nil, err
	}
	if err := mongoerr.CheckNamespace(tdb, tc); err != nil {
		return nil, err
	}
	dropTarget := bsonval.Truthy(c.arg("dropTarget"))
	return newReply().ok(), c.write(func(t *tx) error {
		if t.st.coll(fdb, fc) == nil {
			return mongoerr.New(mongoerr.NamespaceNotFound, "Source collection %s.%s does not exist", fdb, fc)
		}
		if fdb == tdb && fc == tc {
			return mongoerr.New(mongoerr.IllegalOperation, "Can't rename a collection to itself")
		}
		if t.st.coll(tdb, tc) != nil {
			if !dropTarget {
				return mongoerr.New(mongoerr.NamespaceExists, "target namespace exists")
			}
			dropped := t.st.coll(tdb, tc).uuid
			t.dropCollection(tdb, tc)
			t.changes = t.changes[:len(t.changes)-1] // the rename event tells it
			t.rename(fdb, fc, tdb, tc)
			t.changes[len(t.changes)-1].dropTarget = &dropped
			return nil
		}
		t.rename(fdb, fc, tdb, tc)
		return nil
	})
}

// genericArgs are the fields every command may carry, which are not
// options of what it does.
var genericArgs = map[string]bool{"$db": true, "lsid": true, "$clusterTime": true, "writeConcern": true, "txnNumber": true,
	"$readPreference": true, "apiVersion": true, "apiStrict": true, "apiDeprecationErrors": true, "comment": true,
	"maxTimeMS": true, "readConcern": true, "autocommit": true, "startTransaction": true}

// collModOptions are the collection options collMod sets.
var collModOptions = map[string]bool{"validator": true, "validationLevel": true, "validationAction": true,
	"changeStreamPreAndPostImages": true, "expireAfterSeconds": true}

// cmdCollMod changes a collection's options (validator, validation level
// and action, changeStreamPreAndPostImages) and an index's
// expireAfterSeconds or hidden flag; change streams see a modify event.
func cmdCollMod(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	set := map[string]bsoncore.Value{}
	var order []string
	var ixMod bsoncore.Document
	for _, e := range bsonval.Elements(c.cmd)[1:] {
		k := e.Key()
		switch {
		case genericArgs[k]:
		case k == "index":
			if e.Value().Type != bsoncore.TypeEmbeddedDocument {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'collMod.index' is the wrong type '%s', expected type 'object'", bsonval.TypeName(e.Value().Type))
			}
			ixMod = bsoncore.Document(e.Value().Data)
		case collModOptions[k]:
			set[k] = e.Value()
			order = append(order, k)
		default:
			return nil, mongoerr.New(mongoerr.Location(40415), "BSON field 'collMod.%s' is an unknown field.", k)
		}
	}
	reply := newReply().b
	err = c.write(func(t *tx) error {
		col, err := t.mut(c.db, name, false)
		if err != nil {
			return err
		}
		if col == nil {
			return mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s.%s", c.db, name)
		}
		if ixMod != nil {
			if err := modifyIndex(t, col, ixMod, reply); err != nil {
				return err
			}
		}
		b := bsoncore.NewDocumentBuilder()
		for _, e := range bsonval.Elements(col.opts) {
			if _, replaced := set[e.Key()]; !replaced {
				b.AppendValue(e.Key(), e.Value())
			}
		}
		for _, k := range order {
			b.AppendValue(k, set[k])
		}
		opts := b.Build()
		if _, err := parseValidation(opts); err != nil {
			return err
		}
		t.setOptions(col, opts)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return newReplyFrom(reply).ok(), nil
}

// appendNumber appends n as MongoDB keeps a collection's numeric options:
// a 32-bit integer when it fits, else a 64-bit one.
func appendNumber(b *bsoncore.DocumentBuilder, key string, n int64) {
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		b.AppendInt32(key, int32(n))
		return
	}
	b.AppendInt64(key, n)
}
