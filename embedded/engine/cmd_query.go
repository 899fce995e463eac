package engine

import (
	"math"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// plan is how a query reads a collection.
type plan struct {
	stage    string // "IDHACK", "IXSCAN" or "COLLSCAN"
	index    *index
	keysSeen int
	docsSeen int
}

// idIndex describes the _id index for explain: the documents themselves,
// kept in _id order, are its entries.
var idIndex = &index{name: "_id_", key: idKey, unique: true, fields: []sortKeyField{{"_id", false}}}

// indexable is whether an equality value can be looked up in an index.
func indexable(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeArray, bsoncore.TypeRegex, 0:
		return false
	case bsoncore.TypeEmbeddedDocument:
		return !isOperatorDoc(v)
	}
	return true
}

// selectDocs returns the documents of col that match f, in sort order,
// after skip and up to limit (0: no limit).
func selectDocs(col *collection, f *Filter, s *sortSpec, skip, limit int, deadline func() error) ([]bsoncore.Document, plan, error) {
	p := plan{stage: "COLLSCAN"}
	if col == nil {
		return nil, p, nil
	}
	if col.derived && (f == nil || !f.scanOnly) {
		// a view's documents: no index, and _ids that need not be unique
		g := Filter{m: func(bsoncore.Document, *int) bool { return true }}
		if f != nil {
			g = *f
		}
		g.scanOnly = true
		f = &g
	}
	var cands []bsoncore.Document
	scanned := false
	for _, e := range f.eqsOrNil() {
		if e.path == "_id" && indexable(e.v) && e.v.Type != bsoncore.TypeNull {
			p.stage = "IDHACK"
			if d, ok := col.get(e.v); ok {
				cands = append(cands, d)
			}
			p.keysSeen, p.docsSeen = len(cands), len(cands)
			scanned = true
			break
		}
	}
	if !scanned {
		if ix, prefix, rc := bestPrefix(col, f); ix != nil {
			p.stage, p.index = "IXSCAN", ix
			if k := len(prefix); rc == nil && s != nil && len(s.keys) == 1 && k < len(ix.fields) && ix.fields[k].path == s.keys[0].path && !ix.multikey {
				// equalities, then a sort on the next field: the prefix's keys are in that order
				reverse := ix.fields[k].desc != s.keys[0].desc
				out, err := inIndexOrder(col, f, &p, skip, limit, deadline, func(visit func(ientry) bool) {
					within := func(en ientry) bool { return ix.cmpVals(en.vals[:k], prefix) == 0 && visit(en) }
					if reverse {
						last := bsoncore.Value{Type: bsoncore.TypeMaxKey}
						if ix.fields[k].desc {
							last = bsoncore.Value{Type: bsoncore.TypeMinKey}
						}
						ix.tree.Descend(ientry{vals: append(prefix[:k:k], last), id: bsoncore.Value{Type: bsoncore.TypeMaxKey}}, within)
					} else {
						ix.tree.Ascend(ientry{vals: prefix, id: bsoncore.Value{Type: bsoncore.TypeMinKey}}, within)
					}
				})
				return out, p, err
			}
			seen := map[string]bool{}
			take := func(en ientry) {
				p.keysSeen++
				k := string(rune(en.id.Type)) + string(en.id.Data)
				if seen[k] {
					return
				}
				seen[k] = true
				if d, ok := col.get(en.id); ok {
					p.docsSeen++
					cands = append(cands, d)
				}
			}
			switch {
			case rc != nil && rc.in != nil:
				for _, v := range rc.in {
					scanRange(ix, append(prefix[:len(prefix):len(prefix)], v), nil, take)
				}
			default:
				scanRange(ix, prefix, rc, take)
			}
			scanned = true
		}
	}
	if !scanned {
	ranges:
		for _, rc := range f.rangesOrNil() {
			for _, ix := range col.indexes {
				if ix.partial != nil || ix.sparse || ix.fields[0].path != rc.path || (ix.multikey && rc.in == nil) {
					continue
				}
				p.stage, p.index = "IXSCAN", ix
				seen := map[string]bool{}
				take := func(en ientry) {
					p.keysSeen++
					k := string(rune(en.id.Type)) + string(en.id.Data)
					if seen[k] {
						return
					}
					seen[k] = true
					if d, ok := col.get(en.id); ok {
						p.docsSeen++
						cands = append(cands, d)
					}
				}
				if rc.in != nil {
					for _, v := range rc.in {
						ix.tree.Ascend(ientry{vals: []bsoncore.Value{v}, id: bsoncore.Value{Type: bsoncore.TypeMinKey}}, func(en ientry) bool {
							if compareValues(en.vals[0], v) != 0 {
								return false
							}
							take(en)
							return true
						})
					}
				} else {
					scanRange(ix, nil, &rc, take)
				}
				scanned = true
				break ranges
			}
		}
	}
	if !scanned && s != nil && len(s.keys) == 1 && s.coll == nil && (f == nil || !f.scanOnly) && s.keys[0].path == "_id" {
		// the documents are kept in _id order: walk them
		p.stage, p.index = "IXSCAN", idIndex
		out, err := inOrder(f, &p, skip, limit, deadline, func(visit func(bsoncore.Document) bool) {
			walk := func(r *record) bool {
				p.keysSeen++
				return visit(r.doc)
			}
			if s.keys[0].desc {
				col.docs.Reverse(walk)
			} else {
				col.docs.Scan(walk)
			}
		})
		return out, p, err
	}
	if !scanned && s != nil && len(s.keys) == 1 && s.coll == nil {
		for _, ix := range col.indexes {
			if ix.multikey || ix.sparse || ix.partial != nil || ix.fields[0].path != s.keys[0].path {
				continue
			}
			p.stage, p.index = "IXSCAN", ix
			reverse := ix.fields[0].desc != s.keys[0].desc
			out, err := inIndexOrder(col, f, &p, skip, limit, deadline, func(visit func(ientry) bool) {
				if reverse {
					ix.tree.Reverse(visit)
				} else {
					ix.tree.Scan(visit)
				}
			})
			return out, p, err
		}
	}
	if !scanned {
		var err error
		cands = make([]bsoncore.Document, 0, col.docs.Len())
		col.scan(func(r *record) bool {
			p.docsSeen++
			if p.docsSeen%4096 == 0 {
				if err = deadline(); err != nil {
					return false
				}
			}
			cands = append(cands, r.doc)
			return true
		})
		if err != nil {
			return nil, p, err
		}
	}
	out := cands[:0] // filtered in place: cands is this call's own
	for _, d := range cands {
		if f.Match(d) {
			out = append(out, d)
		}
	}
	if s != nil && len(s.keys) > 0 {
		sort.SliceStable(out, func(i, j int) bool { return s.compare(out[i], out[j]) < 0 })
	}
	if skip > 0 {
		out = out[min(skip, len(out)):]
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, p, nil
}

// eqsOrNil are the equalities an index can serve: none under a collation,
// since index keys are in binary order, nor over a view's documents.
func (f *Filter) eqsOrNil() []equality {
	if f == nil || f.scanOnly {
		return nil
	}
	return f.eqs
}

// letVars reads a command's let document.
func (c *call) vars() *exprVars {
	v := &exprVars{vars: map[string]bsoncore.Value{}, now: time.Now()}
	if l := c.arg("let"); l.Type == bsoncore.TypeEmbeddedDocument {
		for _, e := range elements(bsoncore.Document(l.Data)) {
			if ex, err := compileExpr(e.Value(), v); err == nil {
				if r, err := ex.eval(bsoncore.NewDocumentBuilder().Build(), nil); err == nil {
					v.vars[e.Key()] = r
				}
			}
		}
	}
	return v
}

func (c *call) deadline() error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	return nil
}

// collation is the collation of the command's operation on collection
// name: its collation option, else the collection's default.
func (c *call) collation(name string) (*collator, error) {
	return commandCollation(c.arg("collation"), c.view().coll(c.db, name))
}

func docArg(c *call, k string) (bsoncore.Document, error) {
	v := c.arg(k)
	switch v.Type {
	case 0, bsoncore.TypeNull:
		return nil, nil
	case bsoncore.TypeEmbeddedDocument:
		return bsoncore.Document(v.Data), nil
	}
	return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected type 'object'", c.name, k, typeName(v.Type))
}

func intArg(c *call, k string) (int, error) {
	v := c.arg(k)
	if v.Type == 0 || v.Type == bsoncore.TypeNull {
		return 0, nil
	}
	if !isNumber(v) {
		return 0, mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected types '[long, int, decimal, double']", c.name, k, typeName(v.Type))
	}
	return int(numberFloat(v)), nil
}

func cmdFind(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	vars := c.vars()
	if vars.coll, err = c.collation(name); err != nil {
		return nil, err
	}
	fd, err := docArg(c, "filter")
	if err != nil {
		return nil, err
	}
	f, err := compileFilter(fd, vars)
	if err != nil {
		return nil, err
	}
	var s *sortSpec
	if sd, err := docArg(c, "sort"); err != nil {
		return nil, err
	} else if sd != nil {
		if s, err = compileSort(sd); err != nil {
			return nil, err
		}
		s.coll = vars.coll
	}
	var proj *projection
	if pd, err := docArg(c, "projection"); err != nil {
		return nil, err
	} else if len(pd) > 5 {
		if proj, err = compileProjection(pd, vars); err != nil {
			return nil, err
		}
	}
	skip, err := intArg(c, "skip")
	if err != nil {
		return nil, err
	}
	if skip < 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "Skip value must be non-negative, but received: %d", skip)
	}
	limit, err := intArg(c, "limit")
	if err != nil {
		return nil, err
	}
	single := truthy(c.arg("singleBatch"))
	if limit < 0 {
		limit, single = -limit, true
	}
	bs, err := intArg(c, "batchSize")
	if err != nil {
		return nil, err
	}
	if bs < 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "BatchSize value must be non-negative, but received: %d", bs)
	}
	col, err := c.readColl(name)
	if err != nil {
		return nil, err
	}
	if err := checkHint(col, c.arg("hint")); err != nil {
		return nil, err
	}
	tailable := truthy(c.arg("tailable"))
	if tailable && s != nil {
		return nil, mongoerr.New(mongoerr.BadValue, "error processing query: cannot use tailable option with a sort other than {$natural: 1}")
	}
	docs, _, err := selectDocs(col, f, s, skip, limit, c.deadline)
	if err != nil {
		return nil, err
	}
	if proj != nil {
		for i, d := range docs {
			_, pos := f.MatchPos(d)
			if docs[i], err = proj.project(d, pos, true); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case bs == 0 && !c.hasArg("batchSize"):
		bs = 101
	case bs == 0:
		bs = zeroBatch
	}
	if tailable {
		return openTailable(c, name, col, f, proj, docs, bs)
	}
	if limit > 0 && bs != zeroBatch && limit <= bs {
		single = true
		bs = limit
	}
	return c.cursorReply(c.db+"."+name, docs, bs, single), nil
}

func (c *call) hasArg(k string) bool { return c.arg(k).Type != 0 }

func cmdCount(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	col, err := c.readColl(name)
	if err != nil {
		return nil, err
	}
	qd, err := docArg(c, "query")
	if err != nil {
		return nil, err
	}
	skip, _ := intArg(c, "skip")
	limit, _ := intArg(c, "limit")
	if limit < 0 {
		limit = -limit
	}
	var n int
	if len(qd) <= 5 {
		if col != nil {
			n = col.docs.Len()
		}
		n = max(n-skip, 0)
		if limit > 0 {
			n = min(n, limit)
		}
	} else {
		f, err := compileFilter(qd, c.vars())
		if err != nil {
			return nil, err
		}
		docs, _, err := selectDocs(col, f, nil, skip, limit, c.deadline)
		if err != nil {
			return nil, err
		}
		n = len(docs)
	}
	return newReply().b.AppendInt32("n", int32(n)).AppendDouble("ok", 1).Build(), nil
}

func cmdDistinct(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	key := c.arg("key")
	if key.Type != bsoncore.TypeString {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'distinct.key' is missing but a required field")
	}
	qd, err := docArg(c, "query")
	if err != nil {
		return nil, err
	}
	vars := c.vars()
	if vars.coll, err = c.collation(name); err != nil {
		return nil, err
	}
	f, err := compileFilter(qd, vars)
	if err != nil {
		return nil, err
	}
	col, err := c.readColl(name)
	if err != nil {
		return nil, err
	}
	docs, _, err := selectDocs(col, f, nil, 0, 0, c.deadline)
	if err != nil {
		return nil, err
	}
	var vals []bsoncore.Value
	for _, d := range docs {
		for _, v := range fanValues(d, key.StringValue()) {
			if v.Type == 0 {
				continue
			}
			vals = append(vals, v)
		}
	}
	sort.SliceStable(vals, func(i, j int) bool { return vars.coll.compare(vals[i], vals[j]) < 0 })
	var out []bsoncore.Value
	for _, v := range vals {
		if len(out) > 0 && vars.coll.equal(out[len(out)-1], v) {
			continue
		}
		out = append(out, v)
	}
	return newReply().b.AppendArray("values", bsoncore.BuildArray(nil, out...)).AppendDouble("ok", 1).Build(), nil
}

// checkWriteStageReadConcern refuses a pipeline ending in $out or $merge
// read with the linearizable read concern, as MongoDB does.
func checkWriteStageReadConcern(stages []bsoncore.Value, rc bsoncore.Value) error {
	if rc.Type != bsoncore.TypeEmbeddedDocument || len(stages) == 0 {
		return nil
	}
	if lv := lookup(bsoncore.Document(rc.Data), "level"); lv.Type != bsoncore.TypeString || lv.StringValue() != "linearizable" {
		return nil
	}
	last := stages[len(stages)-1]
	if last.Type != bsoncore.TypeEmbeddedDocument {
		return nil
	}
	if els := elements(bsoncore.Document(last.Data)); len(els) == 1 && (els[0].Key() == "$out" || els[0].Key() == "$merge") {
		return mongoerr.New(mongoerr.InvalidOptions, "%s cannot be used with a 'linearizable' read concern level", els[0].Key())
	}
	return nil
}

// pipelineEnv is where a command's pipelines read and write.
func (c *call) pipelineEnv(vars *exprVars) *pipelineEnv {
	st := c.view()
	var env *pipelineEnv
	env = &pipelineEnv{ctx: c.ctx, db: c.db, vars: vars,
		read: func(db, coll string) []bsoncore.Document {
			col := st.coll(db, coll)
			if col == nil {
				return nil
			}
			if col.isView() {
				docs, _ := viewDocs(env, st, db, coll)
				return docs
			}
			out := make([]bsoncore.Document, 0, col.docs.Len())
			col.scan(func(r *record) bool { out = append(out, r.doc); return true })
			return out
		},
		write: func(db, coll string, docs []bsoncore.Document, mode string) error {
			return c.write(func(t *tx) error {
				if mode == "$out" {
					var keep []bsoncore.Document
					if old := t.st.coll(db, coll); old != nil {
						for _, ix := range old.indexes {
							keep = append(keep, ix.spec)
						}
					}
					t.dropCollection(db, coll)
					col, err := t.mut(db, coll, true)
					if err != nil {
						return err
					}
					for _, s := range keep {
						if _, err := t.createIndex(col, s); err != nil {
							return err
						}
					}
				}
				col, err := t.mut(db, coll, true)
				if err != nil {
					return err
				}
				for _, d := range docs {
					d, err = withID(d)
					if err != nil {
						return err
					}
					id, _ := d.LookupErr("_id")
					old, exists := col.get(id)
					switch {
					case exists && mode == "keepExisting":
						continue
					case exists && mode == "merge":
						d = idFirst(mergeDocs(old, d))
					}
					if err := t.putDoc(col, d, mode == "$out" || mode == "fail"); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	return env
}

func cmdAggregate(c *call) (bsoncore.Document, error) {
	first := elements(c.cmd)[0].Value()
	name := ""
	if first.Type == bsoncore.TypeString {
		name = first.StringValue()
	} else if !(isNumber(first) && numberFloat(first) == 1) {
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "collection name has invalid type %s", typeName(first.Type))
	}
	pv := c.arg("pipeline")
	if pv.Type != bsoncore.TypeArray {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "'pipeline' option must be specified as an array")
	}
	if c.arg("cursor").Type == 0 && !truthy(c.arg("explain")) {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument")
	}
	vars := c.vars()
	var err error
	if vars.coll, err = c.collation(name); err != nil {
		return nil, err
	}
	stages := arrayValues(pv)
	if err := checkWriteStageReadConcern(stages, c.arg("readConcern")); err != nil {
		return nil, err
	}
	st := c.view()
	shown := name // a view's cursor is named for the view
	if src, pipeline, isView, err := resolveView(st, c.db, name); err != nil {
		return nil, err
	} else if isView {
		if isChangeStream(stages) {
			return nil, mongoerr.New(mongoerr.CommandNotSupportedOnView, "Namespace %s.%s is a view, not a collection", c.db, name)
		}
		name, stages = src, append(append([]bsoncore.Value{}, pipeline...), stages...)
	}
	env := c.pipelineEnv(vars)
	if isChangeStream(stages) {
		return openChangeStream(c, name, stages, env)
	}
	// a leading $match reads through an index; $collStats answers from metadata
	var docs []bsoncore.Document
	col := st.coll(c.db, name)
	if n, ok := countAllPipeline(stages, col); ok {
		// CountDocuments({}): [{$match: {}}, {$group: {_id: 1, n: {$sum: 1}}}]
		if n > 0 {
			docs = []bsoncore.Document{bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).AppendValue("n", intValue(int64(n))).Build()}
		}
		stages = nil
	} else if len(stages) > 0 {
		els := elements(bsoncore.Document(stages[0].Data))
		if len(els) == 1 && els[0].Key() == "$collStats" {
			cs := bsoncore.NewDocumentBuilder().AppendString("ns", c.db+"."+name)
			if sv, err := bsoncore.Document(els[0].Value().Data).LookupErr("count"); err == nil && sv.Type == bsoncore.TypeEmbeddedDocument {
				n := 0
				if col != nil {
					n = col.docs.Len()
				}
				cs.AppendInt64("count", int64(n))
			}
			if sv, err := bsoncore.Document(els[0].Value().Data).LookupErr("storageStats"); err == nil && sv.Type == bsoncore.TypeEmbeddedDocument {
				cs.AppendDocument("storageStats", collStatsDoc(c.db, name, col))
			}
			docs = []bsoncore.Document{cs.Build()}
			stages = stages[1:]
		} else if len(els) == 1 && els[0].Key() == "$indexStats" {
			docs = indexStats(col, c)
			stages = stages[1:]
		} else if q, n, err := leadingQuery(stages, env.vars); err != nil {
			return nil, err
		} else if n > 0 {
			// a leading $match, $sort, $skip and $limit read as a find does: through an index
			if docs, _, err = selectDocs(col, q.filter, q.sort, q.skip, q.limit, c.deadline); err != nil {
				return nil, err
			}
			stages = stages[n:]
		} else if len(els) == 1 && els[0].Key() == "$documents" {
		} else if col != nil {
			docs = env.read(c.db, name)
		}
	} else if col != nil {
		docs = env.read(c.db, name)
	}
	p, err := compilePipeline(stages, env)
	if err != nil {
		return nil, err
	}
	if docs, err = runPipeline(p, docs); err != nil {
		return nil, err
	}
	if truthy(c.arg("explain")) {
		return newReply().b.AppendDocument("queryPlanner", bsoncore.NewDocumentBuilder().AppendString("namespace", c.db+"."+name).Build()).AppendDouble("ok", 1).Build(), nil
	}
	ns := c.db + "." + shown
	if name == "" {
		ns = c.db + ".$cmd.aggregate"
	}
	bs := batchSizeOf(c.arg("cursor"))
	if !c.hasBatchSize() {
		bs = 101
	}
	return c.cursorReply(ns, docs, bs, false), nil
}

func (c *call) hasBatchSize() bool {
	cur := c.arg("cursor")
	if cur.Type != bsoncore.TypeEmbeddedDocument {
		return false
	}
	_, err := bsoncore.Document(cur.Data).LookupErr("batchSize")
	return err == nil
}

func cmdExplain(c *call) (bsoncore.Document, error) {
	inner := c.arg("explain")
	if inner.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "explain command requires a nested object")
	}
	d := bsoncore.Document(inner.Data)
	els := elements(d)
	if len(els) == 0 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "explain command requires a nested object")
	}
	name := toStr(els[0].Value())
	col := c.view().coll(c.db, name)
	var filterDoc bsoncore.Document
	var sortDoc bsoncore.Document
	skip, limit := 0, 0
	switch els[0].Key() {
	case "find":
		if v, err := d.LookupErr("filter"); err == nil {
			filterDoc = bsoncore.Document(v.Data)
		}
		if v, err := d.LookupErr("sort"); err == nil {
			sortDoc = bsoncore.Document(v.Data)
		}
		if v, err := d.LookupErr("skip"); err == nil && isNumber(v) && numberFloat(v) > 0 {
			skip = int(numberFloat(v))
		}
		if v, err := d.LookupErr("limit"); err == nil && isNumber(v) {
			limit = int(math.Abs(numberFloat(v)))
		}
	case "count", "distinct":
		if v, err := d.LookupErr("query"); err == nil {
			filterDoc = bsoncore.Document(v.Data)
		}
	case "aggregate":
		if v, err := d.LookupErr("pipeline"); err == nil {
			st := arrayValues(v)
			if len(st) > 0 {
				if m, err := bsoncore.Document(st[0].Data).LookupErr("$match"); err == nil {
					filterDoc = bsoncore.Document(m.Data)
				}
			}
		}
	case "update", "delete":
		key := "updates"
		if els[0].Key() == "delete" {
			key = "deletes"
		}
		if v, err := d.LookupErr(key); err == nil && len(arrayValues(v)) > 0 {
			if q, err := bsoncore.Document(arrayValues(v)[0].Data).LookupErr("q"); err == nil {
				filterDoc = bsoncore.Document(q.Data)
			}
		}
	case "findAndModify", "findandmodify":
		if v, err := d.LookupErr("query"); err == nil {
			filterDoc = bsoncore.Document(v.Data)
		}
	default:
		return nil, mongoerr.New(mongoerr.CommandNotFound, "Explain failed due to unknown command: %s", els[0].Key())
	}
	f, err := compileFilter(filterDoc, c.vars())
	if err != nil {
		return nil, err
	}
	var s *sortSpec
	if sortDoc != nil {
		if s, err = compileSort(sortDoc); err != nil {
			return nil, err
		}
	}
	docs, p, err := selectDocs(col, f, s, skip, limit, c.deadline)
	if err != nil {
		return nil, err
	}
	var winning bsoncore.Document
	switch p.stage {
	case "IXSCAN":
		ix := bsoncore.NewDocumentBuilder().AppendString("stage", "IXSCAN").AppendDocument("keyPattern", p.index.key).
			AppendString("indexName", p.index.name).AppendBoolean("isMultiKey", p.index.multikey).
			AppendBoolean("isUnique", p.index.unique).AppendBoolean("isSparse", p.index.sparse).AppendBoolean("isPartial", p.index.partial != nil).
			AppendString("direction", "forward").Build()
		winning = bsoncore.NewDocumentBuilder().AppendString("stage", "FETCH").AppendDocument("inputStage", ix).Build()
	case "IDHACK":
		winning = bsoncore.NewDocumentBuilder().AppendString("stage", "IDHACK").Build()
	default:
		winning = bsoncore.NewDocumentBuilder().AppendString("stage", "COLLSCAN").AppendDocument("filter", filterOrEmpty(filterDoc)).AppendString("direction", "forward").Build()
	}
	qp := bsoncore.NewDocumentBuilder().AppendString("namespace", c.db+"."+name).AppendDocument("parsedQuery", filterOrEmpty(filterDoc)).
		AppendDocument("winningPlan", winning).AppendArray("rejectedPlans", bsoncore.BuildArray(nil)).Build()
	es := bsoncore.NewDocumentBuilder().AppendBoolean("executionSuccess", true).AppendInt64("nReturned", int64(len(docs))).
		AppendInt64("executionTimeMillis", 0).AppendInt64("totalKeysExamined", int64(p.keysSeen)).AppendInt64("totalDocsExamined", int64(p.docsSeen)).Build()
	return newReply().b.AppendInt32("explainVersion", 1).AppendDocument("queryPlanner", qp).AppendDocument("executionStats", es).
		AppendDocument("serverInfo", bsoncore.NewDocumentBuilder().AppendString("version", Version).Build()).AppendDouble("ok", 1).Build(), nil
}

// rangesOrNil are the ranges an index can serve (none when scanOnly).
func (f *Filter) rangesOrNil() []rangeCond {
	if f == nil || f.scanOnly {
		return nil
	}
	return f.ranges
}

// scanRange visits the entries of ix whose first values equal prefix
// and, when rc is given, whose next value lies within rc's bounds,
// within the bounds' type class as MongoDB's comparisons are.
func scanRange(ix *index, prefix []bsoncore.Value, rc *rangeCond, take func(ientry)) {
	k := len(prefix)
	samePrefix := func(en ientry) bool { return k == 0 || ix.cmpVals(en.vals[:k], prefix) == 0 }
	if rc == nil {
		ix.tree.Ascend(ientry{vals: prefix, id: bsoncore.Value{Type: bsoncore.TypeMinKey}}, func(en ientry) bool {
			if !samePrefix(en) {
				return false
			}
			take(en)
			return true
		})
		return
	}
	class := rc.lo
	if class.Type == 0 {
		class = rc.hi
	}
	in := func(v bsoncore.Value) bool {
		if typeOrder(v.Type) != typeOrder(class.Type) {
			return false
		}
		if rc.lo.Type != 0 {
			c := compareValues(v, rc.lo)
			if c < 0 || c == 0 && !rc.loIncl {
				return false
			}
		}
		if rc.hi.Type != 0 {
			c := compareValues(v, rc.hi)
			if c > 0 || c == 0 && !rc.hiIncl {
				return false
			}
		}
		return true
	}
	// the index is ordered by field k (ascending or descending) within the
	// prefix: start at the end of the class nearest the scan and stop past it
	desc := ix.fields[k].desc
	var start bsoncore.Value
	switch {
	case !desc && rc.lo.Type != 0:
		start = rc.lo
	case desc && rc.hi.Type != 0:
		start = rc.hi
	default:
		start = classStart(class, desc)
	}
	pivot := append(prefix[:k:k], start)
	ix.tree.Ascend(ientry{vals: pivot, id: bsoncore.Value{Type: bsoncore.TypeMinKey}}, func(en ientry) bool {
		if !samePrefix(en) {
			return false
		}
		v := en.vals[k]
		if typeOrder(v.Type) != typeOrder(class.Type) {
			// before the class (an exclusive bound's equal values are skipped
			// by in) or after it
			c := cmpInt(typeOrder(v.Type), typeOrder(class.Type))
			if desc {
				c = -c
			}
			return c < 0
		}
		if in(v) {
			take(en)
			return true
		}
		// past the far bound?
		if !desc && rc.hi.Type != 0 && compareValues(v, rc.hi) > 0 || desc && rc.lo.Type != 0 && compareValues(v, rc.lo) < 0 {
			return false
		}
		return true
	})
}

// inIndexOrder reads documents in the order scan visits index entries,
// keeping those f matches after skip, up to limit: no sort after.
func inIndexOrder(col *collection, f *Filter, p *plan, skip, limit int, deadline func() error, scan func(func(ientry) bool)) ([]bsoncore.Document, error) {
	return inOrder(f, p, skip, limit, deadline, func(visit func(bsoncore.Document) bool) {
		scan(func(en ientry) bool {
			p.keysSeen++
			d, ok := col.get(en.id)
			return !ok || visit(d)
		})
	})
}

// inOrder keeps the documents scan gives (counting the keys it reads in
// p.keysSeen) that match f, past skip, up to limit, in scan's order.
func inOrder(f *Filter, p *plan, skip, limit int, deadline func() error, scan func(func(bsoncore.Document) bool)) ([]bsoncore.Document, error) {
	var out []bsoncore.Document
	skipped := 0
	var err error
	scan(func(d bsoncore.Document) bool {
		p.docsSeen++
		if p.docsSeen%1024 == 0 {
			if err = deadline(); err != nil {
				return false
			}
		}
		if !f.Match(d) {
			return true
		}
		if skipped < skip {
			skipped++
			return true
		}
		out = append(out, d)
		return limit <= 0 || len(out) < limit
	})
	return out, err
}

// bestPrefix is the index that serves f's equalities best: the one with
// the most leading fields held equal by f, then a range (or $in) on the
// field after them; nil when no index starts with an equality of f.
func bestPrefix(col *collection, f *Filter) (*index, []bsoncore.Value, *rangeCond) {
	eqs := f.eqsOrNil()
	if len(eqs) == 0 {
		return nil, nil, nil
	}
	eqOf := func(path string) (bsoncore.Value, bool) {
		for _, e := range eqs {
			if e.path == path && indexable(e.v) {
				return e.v, true
			}
		}
		return bsoncore.Value{}, false
	}
	var best *index
	var bestPrefix []bsoncore.Value
	var bestRange *rangeCond
	score := 0
	for _, ix := range col.indexes {
		if ix.partial != nil {
			continue
		}
		var prefix []bsoncore.Value
		for _, fl := range ix.fields {
			v, ok := eqOf(fl.path)
			if !ok || ix.sparse && v.Type == bsoncore.TypeNull {
				break
			}
			prefix = append(prefix, v)
		}
		if len(prefix) == 0 {
			continue
		}
		var rc *rangeCond
		if len(prefix) < len(ix.fields) {
			for i, r := range f.rangesOrNil() {
				if r.path == ix.fields[len(prefix)].path && !(ix.multikey && r.in == nil) && !ix.sparse {
					rc = &f.ranges[i]
					break
				}
			}
		}
		sc := 2 * len(prefix)
		if rc != nil {
			sc++
		}
		if sc > score {
			best, bestPrefix, bestRange, score = ix, prefix, rc, sc
		}
	}
	return best, bestPrefix, bestRange
}

// classStart is the least (or, descending, the greatest) value of v's type
// class that an index scan starts from.
func classStart(v bsoncore.Value, desc bool) bsoncore.Value {
	if isNumber(v) {
		if desc {
			return vDouble(math.Inf(1))
		}
		return vDouble(math.NaN())
	}
	if desc {
		// the greatest values of a class are unknown: start at the class after
		return bsoncore.Value{Type: bsoncore.TypeMaxKey}
	}
	switch v.Type {
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		return vString("")
	case bsoncore.TypeDateTime:
		return vDate(math.MinInt64)
	}
	return bsoncore.Value{Type: bsoncore.TypeMinKey}
}

// lookupOr is d's field k, or the missing value.
func lookupOr(d bsoncore.Document, k string) bsoncore.Value {
	if v, err := d.LookupErr(k); err == nil {
		return v
	}
	return missing
}

// pushedQuery is what the leading stages of a pipeline ask of the
// collection, as a find would.
type pushedQuery struct {
	filter      *Filter
	sort        *sortSpec
	skip, limit int
}

// leadingQuery reads a pipeline's leading stages that a find can do
// through an index: [$match] [$sort] [$skip] [$limit], in that order,
// and how many stages they are.
func leadingQuery(stages []bsoncore.Value, vars *exprVars) (pushedQuery, int, error) {
	q := pushedQuery{}
	n := 0
	arg := func(name string) (bsoncore.Value, bool) {
		if n < len(stages) && stageName(stages[n]) == name {
			return elements(bsoncore.Document(stages[n].Data))[0].Value(), true
		}
		return bsoncore.Value{}, false
	}
	var err error
	if v, ok := arg("$match"); ok && v.Type == bsoncore.TypeEmbeddedDocument {
		if q.filter, err = compileFilter(bsoncore.Document(v.Data), vars); err != nil {
			return q, 0, err
		}
		n++
	}
	if v, ok := arg("$sort"); ok && v.Type == bsoncore.TypeEmbeddedDocument {
		if q.sort, err = compileSort(bsoncore.Document(v.Data)); err != nil {
			return q, 0, err
		}
		q.sort.coll = vars.collator()
		n++
	}
	if v, ok := arg("$skip"); ok && isNumber(v) && numberFloat(v) >= 0 && numberFloat(v) == float64(int(numberFloat(v))) {
		q.skip = int(numberFloat(v))
		n++
	}
	if v, ok := arg("$limit"); ok && isNumber(v) && numberFloat(v) > 0 && numberFloat(v) == float64(int(numberFloat(v))) {
		q.limit = int(numberFloat(v))
		n++
	}
	if n > 0 && q.filter == nil {
		q.filter, _ = compileFilter(bsoncore.NewDocumentBuilder().Build(), vars)
	}
	return q, n, nil
}
