package engine

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// cmdBulkWrite is MongoDB 8.0's bulkWrite: inserts, updates and deletes
// over several namespaces, one result per operation.
func cmdBulkWrite(c *call) (bsoncore.Document, error) {
	nss, err := bulkNamespaces(c)
	if err != nil {
		return nil, err
	}
	ord := ordered(c)
	errorsOnly := bsonval.Truthy(c.arg("errorsOnly"))
	bw := &bulkWrite{c: c, vars: c.vars()}
	for i, ov := range bsonval.ArrayValues(c.arg("ops")) {
		op := bsoncore.Document(ov.Data)
		els := bsonval.Elements(op)
		if len(els) == 0 {
			return nil, mongoerr.New(mongoerr.FailedToParse, "empty bulkWrite operation")
		}
		kind := els[0].Key()
		idx, ok := bsonval.IntOf(els[0].Value())
		if !ok || idx < 0 || int(idx) >= len(nss) {
			return nil, mongoerr.New(mongoerr.BadValue, "BulkWrite ops entry %d has an invalid nsInfo index", i)
		}
		db, name := nss[idx][0], nss[idx][1]
		if err := c.checkWritable(db, name); err != nil {
			return nil, err
		}
		res := bsoncore.NewDocumentBuilder()
		err := c.write(func(t *tx) error {
			var err error
			res, err = bw.run(t, kind, op, db, name, res)
			return err
		})
		if err != nil {
			bw.failed(i, err)
			if ord {
				break
			}
			continue
		}
		if !errorsOnly {
			bw.succeeded(i, res)
		}
	}
	cur := bw.cursor()
	return newReply().b.AppendDocument("cursor", cur).AppendInt32("nErrors", int32(bw.nErr)).AppendInt32("nInserted", int32(bw.nIns)).
		AppendInt32("nMatched", int32(bw.nMatch)).AppendInt32("nModified", int32(bw.nMod)).AppendInt32("nUpserted", int32(bw.nUps)).
		AppendInt32("nDeleted", int32(bw.nDel)).AppendDouble("ok", 1).Build(), nil
}

// bulkWriteNS is the namespace of a bulkWrite's cursor of results.
const bulkWriteNS = "admin.$cmd.bulkWrite"

// cursor is the cursor of the results: the first batch holds what fits
// in one reply (16 MiB), as any cursor's does, and the rest is left to
// getMore.
func (bw *bulkWrite) cursor() bsoncore.Document {
	docs := make([]bsoncore.Document, len(bw.results))
	for i, r := range bw.results {
		docs[i] = bsoncore.Document(r.Data)
	}
	first, rest := batch(docs, 0)
	var id int64
	if len(rest) > 0 {
		id = bw.c.srv.cursors.open(bulkWriteNS, rest, false)
	}
	b := bsoncore.NewDocumentBuilder().AppendInt64("id", id)
	vals := make([]bsoncore.Value, len(first))
	for i, d := range first {
		vals[i] = bsonval.Doc(d)
	}
	return b.AppendArray("firstBatch", bsoncore.BuildArray(nil, vals...)).AppendString("ns", bulkWriteNS).Build()
}

// bulkNamespaces reads a bulkWrite's nsInfo: the namespaces its
// operations name by index.
func bulkNamespaces(c *call) ([][2]string, error) {
	var nss [][2]string
	for _, v := range bsonval.ArrayValues(c.arg("nsInfo")) {
		nsv, _ := bsoncore.Document(v.Data).LookupErr("ns")
		db, coll, err := splitNS(bsonval.Text(nsv))
		if err != nil {
			return nil, err
		}
		if err := mongoerr.CheckNamespace(db, coll); err != nil {
			return nil, err
		}
		nss = append(nss, [2]string{db, coll})
	}
	return nss, nil
}

// bulkWrite is a bulkWrite command's totals and its results so far.
type bulkWrite struct {
	c                                    *call
	vars                                 *expr.Vars
	nErr, nIns, nMatch, nMod, nUps, nDel int
	results                              []bsoncore.Value
}

// run runs op, an operation of the given kind on db.name, inside t,
// building its result in res; it is the result's builder after.
func (bw *bulkWrite) run(t *tx, kind string, op bsoncore.Document, db, name string, res *bsoncore.DocumentBuilder) (*bsoncore.DocumentBuilder, error) {
	switch kind {
	case "insert":
		return res, bw.insert(t, op, db, name, res)
	case "update":
		return bw.update(t, op, db, name, res)
	case "delete":
		return res, bw.delete(t, op, db, name, res)
	default:
		return res, mongoerr.New(mongoerr.FailedToParse, "Unrecognized bulkWrite operation: %s", kind)
	}
}

// insert inserts op's document.
func (bw *bulkWrite) insert(t *tx, op bsoncore.Document, db, name string, res *bsoncore.DocumentBuilder) error {
	dv, err := op.LookupErr("document")
	if err != nil || dv.Type != bsoncore.TypeEmbeddedDocument {
		return mongoerr.Missing(mongoerr.FailedToParse, "bulkWrite.ops.document")
	}
	d, err := withID(bsoncore.Document(dv.Data))
	if err != nil {
		return err
	}
	col, err := t.mut(db, name, true)
	if err != nil {
		return err
	}
	if err := t.putDoc(col, d, true); err != nil {
		return err
	}
	bw.nIns++
	res.AppendInt32("n", 1)
	return nil
}

// update runs op's update; its result is a new builder.
func (bw *bulkWrite) update(t *tx, op bsoncore.Document, db, name string, res *bsoncore.DocumentBuilder) (*bsoncore.DocumentBuilder, error) {
	fv, _ := op.LookupErr("filter")
	vars, err := withCollation(bw.vars, op, t.st.coll(db, name))
	if err != nil {
		return res, err
	}
	f, err := compileFilter(bsoncore.Document(fv.Data), vars)
	if err != nil {
		return res, err
	}
	uv, _ := op.LookupErr("updateMods")
	up, err := compileUpdate(uv, arrayFiltersOf(op), vars)
	if err != nil {
		return res, err
	}
	multi, upsert := false, false
	if v, err := op.LookupErr("multi"); err == nil {
		multi = bsonval.Truthy(v)
	}
	if v, err := op.LookupErr("upsert"); err == nil {
		upsert = bsonval.Truthy(v)
	}
	var srt *bsonval.Sort
	if sv, err := op.LookupErr("sort"); err == nil && sv.Type == bsoncore.TypeEmbeddedDocument && !multi {
		if srt, err = bsonval.CompileSort(bsoncore.Document(sv.Data)); err != nil {
			return res, err
		}
		srt.Coll = vars.Coll
	}
	r, err := runUpdate(t, db, name, f, srt, up, multi, upsert, bw.c)
	if err != nil {
		return res, err
	}
	bw.nMatch += r.matched
	bw.nMod += r.modified
	n := r.matched
	res.AppendInt32("n", 0)
	if r.upserted.Type != 0 {
		bw.nUps++
		n = 1
	}
	res = bsoncore.NewDocumentBuilder().AppendInt32("n", int32(n)).AppendInt32("nModified", int32(r.modified))
	if r.upserted.Type != 0 {
		res.AppendDocument("upserted", bsoncore.NewDocumentBuilder().AppendValue("_id", r.upserted).Build())
	}
	return res, nil
}

// delete deletes the documents op's filter matches: the first, or with
// multi all.
func (bw *bulkWrite) delete(t *tx, op bsoncore.Document, db, name string, res *bsoncore.DocumentBuilder) error {
	fv, _ := op.LookupErr("filter")
	vars, err := withCollation(bw.vars, op, t.st.coll(db, name))
	if err != nil {
		return err
	}
	f, err := compileFilter(bsoncore.Document(fv.Data), vars)
	if err != nil {
		return err
	}
	limit := 1
	if v, err := op.LookupErr("multi"); err == nil && bsonval.Truthy(v) {
		limit = 0
	}
	docs, _, err := selectDocs(t.st.coll(db, name), f, nil, 0, limit, bw.c.deadline)
	if err != nil {
		return err
	}
	if len(docs) > 0 {
		col, _ := t.mut(db, name, false)
		for _, d := range docs {
			id, _ := d.LookupErr("_id")
			t.deleteDoc(col, id)
		}
	}
	bw.nDel += len(docs)
	res.AppendInt32("n", int32(len(docs)))
	return nil
}

// failed records operation i's error as its result.
func (bw *bulkWrite) failed(i int, err error) {
	bw.nErr++
	e := mongoerr.As(err)
	eb := bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendInt32("idx", int32(i)).AppendInt32("code", int32(e.Code)).AppendString("codeName", e.Code.Name()).AppendString("errmsg", e.Msg)
	for _, el := range bsonval.Elements(e.Extra) {
		eb.AppendValue(el.Key(), el.Value())
	}
	eb.AppendInt32("n", 0)
	bw.results = append(bw.results, bsonval.Doc(eb.Build()))
}

// succeeded records operation i's result, built in res.
func (bw *bulkWrite) succeeded(i int, res *bsoncore.DocumentBuilder) {
	d := res.Build()
	ob := bsoncore.NewDocumentBuilder().AppendDouble("ok", 1).AppendInt32("idx", int32(i))
	for _, el := range bsonval.Elements(d) {
		if el.Key() == "n" && bytes.Equal(el.Value().Data, nil) {
			continue
		}
		ob.AppendValue(el.Key(), el.Value())
	}
	bw.results = append(bw.results, bsonval.Doc(ob.Build()))
}
