package engine

import (
	"bytes"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/pipeline"
	"github.com/oidkit/oidkit/embedded/query"
	"github.com/oidkit/oidkit/embedded/update"
	"github.com/oidkit/oidkit/oid"
)

// newObjectID is an _id made by the server, from package oid.
func newObjectID() bsoncore.Value {
	id := oid.New()
	return bsoncore.Value{Type: bsoncore.TypeObjectID, Data: id[:]}
}

// withID checks a document to be stored and puts its _id first, making
// one when it has none.
func withID(d bsoncore.Document) (bsoncore.Document, error) {
	if len(d) > bsonval.MaxDocSize {
		return nil, mongoerr.New(mongoerr.BadValue, "object to insert too large. size in bytes: %d, max size: %d", len(d), bsonval.MaxDocSize)
	}
	id, err := d.LookupErr("_id")
	if err != nil {
		b := bsoncore.NewDocumentBuilder().AppendValue("_id", newObjectID())
		for _, e := range bsonval.Elements(d) {
			b.AppendValue(e.Key(), e.Value())
		}
		return b.Build(), nil
	}
	switch id.Type {
	case bsoncore.TypeArray:
		return nil, mongoerr.New(mongoerr.InvalidIdField, "The '_id' value cannot be of type array")
	case bsoncore.TypeRegex:
		return nil, mongoerr.New(mongoerr.InvalidIdField, "can't use a regex for _id")
	case bsoncore.TypeUndefined:
		return nil, mongoerr.New(mongoerr.InvalidIdField, "can't use a undefined for _id")
	case bsoncore.TypeEmbeddedDocument:
		for _, e := range bsonval.Elements(bsoncore.Document(id.Data)) {
			if strings.HasPrefix(e.Key(), "$") {
				return nil, mongoerr.New(mongoerr.DollarPrefixedFieldName, "_id fields may not contain '$'-prefixed fields: %s is not valid for storage.", e.Key())
			}
		}
	}
	if first, err := d.IndexErr(0); err != nil || first.Key() != "_id" {
		return bsonval.IDFirst(d), nil
	}
	return d, nil
}

// writeError is one entry of a reply's writeErrors.
func writeError(i int, err error) bsoncore.Value {
	e := mongoerr.As(err)
	b := bsoncore.NewDocumentBuilder().AppendInt32("index", int32(i)).AppendInt32("code", int32(e.Code)).AppendString("errmsg", e.Msg)
	for _, el := range bsonval.Elements(e.Extra) {
		b.AppendValue(el.Key(), el.Value())
	}
	return bsonval.Doc(b.Build())
}

func ordered(c *call) bool {
	v := c.arg("ordered")
	return v.Type == 0 || bsonval.Truthy(v)
}

// eachStatement runs do for each of a write command's statements, in
// order, and gathers the errors of those that fail as the reply's
// writeErrors; an ordered command (the default) stops at its first.
func eachStatement(c *call, stmts []bsoncore.Value, do func(i int, sv bsoncore.Value) error) []bsoncore.Value {
	ord := ordered(c)
	var werrs []bsoncore.Value
	for i, sv := range stmts {
		if err := do(i, sv); err != nil {
			werrs = append(werrs, writeError(i, err))
			if ord {
				break
			}
		}
	}
	return werrs
}

// writeReply is a write command's reply: b's counts, then the
// writeErrors of the statements that failed.
func writeReply(b *bsoncore.DocumentBuilder, werrs []bsoncore.Value) bsoncore.Document {
	if len(werrs) > 0 {
		b.AppendArray("writeErrors", bsoncore.BuildArray(nil, werrs...))
	}
	return newReplyFrom(b).ok()
}

// writeTarget is the collection an insert, update or findAndModify
// writes: refused when its name is not one MongoDB allows, or when it
// is a view.
func (c *call) writeTarget() (string, error) {
	name, err := c.collName()
	if err != nil {
		return "", err
	}
	if err := mongoerr.CheckNamespace(c.db, name); err != nil {
		return "", err
	}
	return name, c.checkWritable(c.db, name)
}

// maxWriteBatchSize is the most statements a write command takes, as
// hello tells drivers.
const maxWriteBatchSize = 100000

// checkBatchSize refuses a write command of no statements or of more than
// maxWriteBatchSize, as MongoDB does (InvalidLength).
func checkBatchSize(n int) error {
	if n < 1 || n > maxWriteBatchSize {
		return mongoerr.New(mongoerr.InvalidLength, "Write batch sizes must be between 1 and %d. Got %d operations.", maxWriteBatchSize, n)
	}
	return nil
}

func cmdInsert(c *call) (bsoncore.Document, error) {
	name, docsV, err := c.collArg(c.writeTarget, "documents", bsoncore.TypeArray, mongoerr.FailedToParse)
	if err != nil {
		return nil, err
	}
	docs := bsonval.ArrayValues(docsV)
	if err := checkBatchSize(len(docs)); err != nil {
		return nil, err
	}
	n := 0
	var werrs []bsoncore.Value
	err = c.write(func(t *tx) error {
		col, err := t.mut(c.db, name, true)
		if err != nil {
			return err
		}
		werrs = eachStatement(c, docs, func(_ int, dv bsoncore.Value) error {
			if dv.Type != bsoncore.TypeEmbeddedDocument {
				return mongoerr.New(mongoerr.TypeMismatch, "each insert must be a document")
			}
			d, err := withID(bsoncore.Document(dv.Data))
			if err == nil {
				err = t.putDoc(col, d, true)
			}
			if err == nil {
				n++
			}
			return err
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return writeReply(newReply().b.AppendInt32("n", int32(n)), werrs), nil
}

// updateResult is what one update statement did.
type updateResult struct {
	matched, modified int
	upserted          bsoncore.Value
	before, after     bsoncore.Document // of the first document (findAndModify)
}

// runUpdate applies one update statement inside t.
func runUpdate(t *tx, db, name string, f *query.Filter, s *bsonval.Sort, u *update.Update, multi, upsert bool, c *call) (updateResult, error) {
	var r updateResult
	col := t.st.coll(db, name)
	limit := 1
	if multi {
		limit = 0
	}
	docs, _, err := selectDocs(col, f, s, 0, limit, c.deadline)
	if err != nil {
		return r, err
	}
	for _, d := range docs {
		_, pos := f.MatchPos(d)
		nd, err := u.Apply(d, pos, false)
		if err != nil {
			return r, err
		}
		r.matched++
		if r.before == nil {
			r.before, r.after = d, nd
		}
		if bytes.Equal(nd, d) {
			continue
		}
		mc, err := t.mut(db, name, false)
		if err != nil {
			return r, err
		}
		t.replacing = u.IsReplacement()
		err = t.putDoc(mc, nd, false)
		t.replacing = false
		if err != nil {
			return r, err
		}
		r.modified++
	}
	if r.matched > 0 || !upsert {
		return r, nil
	}
	nd, err := upsertDoc(f, u)
	if err != nil {
		return r, err
	}
	mc, err := t.mut(db, name, true)
	if err != nil {
		return r, err
	}
	if err := t.putDoc(mc, nd, true); err != nil {
		return r, err
	}
	r.upserted, _ = nd.LookupErr("_id")
	r.after = nd
	return r, nil
}

// upsertDoc is the document an upsert of u inserts when f matches none,
// with an _id.
func upsertDoc(f *query.Filter, u *update.Update) (bsoncore.Document, error) {
	nd, err := update.Upsert(f, u)
	if err != nil {
		return nil, err
	}
	return withID(nd)
}

func arrayFiltersOf(d bsoncore.Document) []bsoncore.Value {
	v, err := d.LookupErr("arrayFilters")
	if err != nil {
		return nil
	}
	return bsonval.ArrayValues(v)
}

func cmdUpdate(c *call) (bsoncore.Document, error) {
	name, err := c.writeTarget()
	if err != nil {
		return nil, err
	}
	stmts := bsonval.ArrayValues(c.arg("updates"))
	if err := checkBatchSize(len(stmts)); err != nil {
		return nil, err
	}
	vars := c.vars()
	var n, nMod int
	var werrs, upserts []bsoncore.Value
	err = c.write(func(t *tx) error {
		werrs = eachStatement(c, stmts, func(i int, sv bsoncore.Value) error {
			r, err := updateStatement(t, c, name, vars, sv)
			if err != nil {
				return err
			}
			n += r.matched
			nMod += r.modified
			if r.upserted.Type != 0 {
				n++
				upserts = append(upserts, bsonval.Doc(bsoncore.NewDocumentBuilder().AppendInt32("index", int32(i)).AppendValue("_id", r.upserted).Build()))
			}
			return nil
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	b := newReply().b.AppendInt32("n", int32(n)).AppendInt32("nModified", int32(nMod))
	if len(upserts) > 0 {
		b.AppendArray("upserted", bsoncore.BuildArray(nil, upserts...))
	}
	return writeReply(b, werrs), nil
}

// updateStatement runs sv, one statement of an update command on
// collection name, inside t.
func updateStatement(t *tx, c *call, name string, vars *expr.Vars, sv bsoncore.Value) (updateResult, error) {
	if sv.Type != bsoncore.TypeEmbeddedDocument {
		return updateResult{}, mongoerr.New(mongoerr.TypeMismatch, "each update must be an object")
	}
	sd := bsoncore.Document(sv.Data)
	q, _ := sd.LookupErr("q")
	u, err := sd.LookupErr("u")
	if err != nil {
		return updateResult{}, mongoerr.Missing(mongoerr.FailedToParse, "update.updates.u")
	}
	vars, err = withCollation(vars, sd, t.st.coll(c.db, name))
	if err != nil {
		return updateResult{}, err
	}
	if err := checkHint(t.st.coll(c.db, name), lookupOr(sd, "hint")); err != nil {
		return updateResult{}, err
	}
	f, err := compileFilter(bsoncore.Document(q.Data), vars)
	if err != nil {
		return updateResult{}, err
	}
	up, err := compileUpdate(u, arrayFiltersOf(sd), vars)
	if err != nil {
		return updateResult{}, err
	}
	multi, upsert := false, false
	if v, err := sd.LookupErr("multi"); err == nil {
		multi = bsonval.Truthy(v)
	}
	if v, err := sd.LookupErr("upsert"); err == nil {
		upsert = bsonval.Truthy(v)
	}
	if multi && up.IsReplacement() {
		return updateResult{}, mongoerr.New(mongoerr.FailedToParse, "multi update is not supported for replacement-style update")
	}
	var srt *bsonval.Sort
	if sv, err := sd.LookupErr("sort"); err == nil && sv.Type == bsoncore.TypeEmbeddedDocument && !multi {
		if srt, err = bsonval.CompileSort(bsoncore.Document(sv.Data)); err != nil {
			return updateResult{}, err
		}
		srt.Coll = vars.Coll
	}
	return runUpdate(t, c.db, name, f, srt, up, multi, upsert, c)
}

func cmdDelete(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	if err := c.checkWritable(c.db, name); err != nil {
		return nil, err
	}
	stmts := bsonval.ArrayValues(c.arg("deletes"))
	if err := checkBatchSize(len(stmts)); err != nil {
		return nil, err
	}
	vars := c.vars()
	n := 0
	var werrs []bsoncore.Value
	err = c.write(func(t *tx) error {
		werrs = eachStatement(c, stmts, func(_ int, sv bsoncore.Value) error {
			deleted, err := deleteStatement(t, c, name, vars, sv)
			n += deleted
			return err
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return writeReply(newReply().b.AppendInt32("n", int32(n)), werrs), nil
}

// deleteStatement runs sv, one statement of a delete command on
// collection name, inside t: how many documents it deleted.
func deleteStatement(t *tx, c *call, name string, vars *expr.Vars, sv bsoncore.Value) (int, error) {
	sd := bsoncore.Document(sv.Data)
	q, err := sd.LookupErr("q")
	if err != nil {
		return 0, mongoerr.Missing(mongoerr.FailedToParse, "delete.deletes.q")
	}
	vars, err = withCollation(vars, sd, t.st.coll(c.db, name))
	if err != nil {
		return 0, err
	}
	if err := checkHint(t.st.coll(c.db, name), lookupOr(sd, "hint")); err != nil {
		return 0, err
	}
	f, err := compileFilter(bsoncore.Document(q.Data), vars)
	if err != nil {
		return 0, err
	}
	limit := 0
	if lv, err := sd.LookupErr("limit"); err == nil && bsonval.Truthy(lv) {
		limit = 1
	}
	docs, _, err := selectDocs(t.st.coll(c.db, name), f, nil, 0, limit, c.deadline)
	if err != nil || len(docs) == 0 {
		return 0, err
	}
	col, err := t.mut(c.db, name, false)
	if err != nil || col == nil {
		return 0, err
	}
	for _, d := range docs {
		id, _ := d.LookupErr("_id")
		t.deleteDoc(col, id)
	}
	return len(docs), nil
}

func cmdFindAndModify(c *call) (bsoncore.Document, error) {
	q, err := readQuery(c, c.writeTarget, "query", "fields")
	if err != nil {
		return nil, err
	}
	name, f, s, proj, vars := q.name, q.f, q.s, q.proj, q.vars
	remove, newDoc, upsert := bsonval.Truthy(c.arg("remove")), bsonval.Truthy(c.arg("new")), bsonval.Truthy(c.arg("upsert"))
	uv := c.arg("update")
	switch {
	case remove && uv.Type != 0:
		return nil, mongoerr.New(mongoerr.FailedToParse, "Cannot specify both an update and remove=true")
	case !remove && uv.Type == 0:
		return nil, mongoerr.New(mongoerr.FailedToParse, "Either an update or remove=true must be specified")
	case remove && (newDoc || upsert):
		return nil, mongoerr.New(mongoerr.FailedToParse, "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document")
	}
	op := &findAndModify{name: name, f: f, s: s, proj: proj, vars: vars, update: uv, newDoc: newDoc, upsert: upsert,
		value: bsonval.Null(), last: bsoncore.NewDocumentBuilder()}
	err = c.write(func(t *tx) error {
		if remove {
			return op.remove(t, c)
		}
		return op.modify(t, c)
	})
	if err != nil {
		return nil, err
	}
	return newReply().b.AppendDocument("lastErrorObject", op.last.Build()).AppendValue("value", op.value).AppendDouble("ok", 1).Build(), nil
}

// findAndModify is a findAndModify command's operation on collection
// name: the document f matches first in s's order, the update (or, for
// remove, none), and what it answers: value, the document as proj shows
// it, and lastErrorObject, built in last.
type findAndModify struct {
	name           string
	f              *query.Filter
	s              *bsonval.Sort
	proj           *pipeline.Projection
	vars           *expr.Vars
	update         bsoncore.Value
	newDoc, upsert bool
	value          bsoncore.Value
	last           *bsoncore.DocumentBuilder
}

// remove deletes the document, inside t.
func (op *findAndModify) remove(t *tx, c *call) error {
	docs, _, err := selectDocs(t.st.coll(c.db, op.name), op.f, op.s, 0, 1, c.deadline)
	if err != nil {
		return err
	}
	op.last.AppendInt32("n", int32(len(docs)))
	if len(docs) == 1 {
		col, _ := t.mut(c.db, op.name, false)
		id, _ := docs[0].LookupErr("_id")
		t.deleteDoc(col, id)
		return op.project(docs[0])
	}
	return nil
}

// project sets the command's value to doc as its projection shows it; an
// expression's error fails the command, and with it the write.
func (op *findAndModify) project(doc bsoncore.Document) error {
	_, pos := op.f.MatchPos(doc)
	v, err := op.proj.Project(doc, pos, true)
	if err != nil {
		return err
	}
	op.value = bsonval.Doc(v)
	return nil
}

// modify updates (or upserts) the document, inside t; value is the
// document before the update, or with newDoc after it.
func (op *findAndModify) modify(t *tx, c *call) error {
	up, err := compileUpdate(op.update, bsonval.ArrayValues(c.arg("arrayFilters")), op.vars)
	if err != nil {
		return err
	}
	r, err := runUpdate(t, c.db, op.name, op.f, op.s, up, false, op.upsert, c)
	if err != nil {
		return err
	}
	n := r.matched
	if r.upserted.Type != 0 {
		n = 1
	}
	op.last.AppendInt32("n", int32(n)).AppendBoolean("updatedExisting", r.matched > 0)
	if r.upserted.Type != 0 {
		op.last.AppendValue("upserted", r.upserted)
	}
	doc := r.before
	if op.newDoc {
		doc = r.after
	}
	if doc != nil {
		return op.project(doc)
	}
	return nil
}
