package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/pipeline"
	"github.com/oidkit/oidkit/embedded/query"
)

// checkWriteStageReadConcern refuses a pipeline ending in $out or $merge
// read with the linearizable read concern, as MongoDB does.
func checkWriteStageReadConcern(stages []bsoncore.Value, rc bsoncore.Value) error {
	if rc.Type != bsoncore.TypeEmbeddedDocument || len(stages) == 0 {
		return nil
	}
	if lv := bsonval.Lookup(bsoncore.Document(rc.Data), "level"); lv.Type != bsoncore.TypeString || lv.StringValue() != "linearizable" {
		return nil
	}
	last := stages[len(stages)-1]
	if last.Type != bsoncore.TypeEmbeddedDocument {
		return nil
	}
	if els := bsonval.Elements(bsoncore.Document(last.Data)); len(els) == 1 && (els[0].Key() == "$out" || els[0].Key() == "$merge") {
		return mongoerr.New(mongoerr.InvalidOptions, "%s cannot be used with a 'linearizable' read concern level", els[0].Key())
	}
	return nil
}

func cmdAggregate(c *call) (bsoncore.Document, error) {
	first := bsonval.Elements(c.cmd)[0].Value()
	name := ""
	if first.Type == bsoncore.TypeString {
		name = first.StringValue()
	} else if !(bsonval.IsNumber(first) && bsonval.NumberFloat(first) == 1) {
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "collection name has invalid type %s", bsonval.TypeName(first.Type))
	}
	pv := c.arg("pipeline")
	if pv.Type != bsoncore.TypeArray {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "'pipeline' option must be specified as an array")
	}
	if c.arg("cursor").Type == 0 && !bsonval.Truthy(c.arg("explain")) {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument")
	}
	vars := c.vars()
	var err error
	if vars.Coll, err = c.collation(name); err != nil {
		return nil, err
	}
	stages := bsonval.ArrayValues(pv)
	if err := checkWriteStageReadConcern(stages, c.arg("readConcern")); err != nil {
		return nil, err
	}
	if err := pipeline.CheckDocumentsStage(stages, name != ""); err != nil {
		return nil, err
	}
	st := c.view()
	shown := name // a view's cursor is named for the view
	if src, viewStages, isView, err := resolveView(st, c.db, name); err != nil {
		return nil, err
	} else if isView {
		if isChangeStream(stages) {
			return nil, mongoerr.New(mongoerr.CommandNotSupportedOnView, "Namespace %s.%s is a view, not a collection", c.db, name)
		}
		name, stages = src, append(append([]bsoncore.Value{}, viewStages...), stages...)
	}
	env := c.pipelineEnv(vars)
	if isChangeStream(stages) {
		return openChangeStream(c, name, stages, env)
	}
	// a leading $match reads through an index; $collStats answers from metadata
	docs, stages, err := aggregateSource(c, st.coll(c.db, name), name, stages, env)
	if err != nil {
		return nil, err
	}
	p, err := pipeline.Compile(stages, env)
	if err != nil {
		return nil, err
	}
	if docs, err = p.Run(docs); err != nil {
		return nil, err
	}
	if bsonval.Truthy(c.arg("explain")) {
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

// aggregateSource is the documents a pipeline starts from, and the stages
// left to run over them: a count of every document, $collStats and
// $indexStats from metadata, leading $match, $sort, $skip and $limit
// stages through an index, none for $documents, else the collection.
func aggregateSource(c *call, col *collection, name string, stages []bsoncore.Value, env *pipeline.Env) ([]bsoncore.Document, []bsoncore.Value, error) {
	var docs []bsoncore.Document
	if n, ok := countAllPipeline(stages, col); ok {
		// CountDocuments({}): [{$match: {}}, {$group: {_id: 1, n: {$sum: 1}}}]
		if n > 0 {
			docs = []bsoncore.Document{bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).AppendValue("n", bsonval.Int(int64(n))).Build()}
		}
		stages = nil
	} else if len(stages) > 0 {
		els := bsonval.Elements(bsoncore.Document(stages[0].Data))
		if len(els) == 1 && els[0].Key() == "$collStats" {
			docs = []bsoncore.Document{collStatsOf(c, name, col, bsoncore.Document(els[0].Value().Data))}
			stages = stages[1:]
		} else if len(els) == 1 && els[0].Key() == "$indexStats" {
			docs = indexStats(col, c)
			stages = stages[1:]
		} else if q, n, err := leadingQuery(stages, env.Vars); err != nil {
			return nil, nil, err
		} else if n > 0 {
			// a leading $match, $sort, $skip and $limit read as a find does: through an index
			if docs, _, err = selectDocs(col, q.filter, q.sort, q.skip, q.limit, c.deadline); err != nil {
				return nil, nil, err
			}
			stages = stages[n:]
		} else if len(els) == 1 && els[0].Key() == "$documents" {
		} else if col != nil {
			docs = env.Read(c.db, name)
		}
	} else if col != nil {
		docs = env.Read(c.db, name)
	}
	return docs, stages, nil
}

// collStatsOf is the document a $collStats stage with spec returns for
// collection name: its count and storage statistics when spec asks.
func collStatsOf(c *call, name string, col *collection, spec bsoncore.Document) bsoncore.Document {
	cs := bsoncore.NewDocumentBuilder().AppendString("ns", c.db+"."+name)
	if sv, err := spec.LookupErr("count"); err == nil && sv.Type == bsoncore.TypeEmbeddedDocument {
		n := 0
		if col != nil {
			n = col.docs.Len()
		}
		cs.AppendInt64("count", int64(n))
	}
	if sv, err := spec.LookupErr("storageStats"); err == nil && sv.Type == bsoncore.TypeEmbeddedDocument {
		cs.AppendDocument("storageStats", collStatsDoc(c.db, name, col))
	}
	return cs.Build()
}

// pushedQuery is what the leading stages of a pipeline ask of the
// collection, as a find would.
type pushedQuery struct {
	filter      *query.Filter
	sort        *bsonval.Sort
	skip, limit int
}

// leadingQuery reads a pipeline's leading stages that a find can do
// through an index: [$match] [$sort] [$skip] [$limit], in that order,
// and how many stages they are.
func leadingQuery(stages []bsoncore.Value, vars *expr.Vars) (pushedQuery, int, error) {
	q := pushedQuery{}
	n := 0
	arg := func(name string) (bsoncore.Value, bool) {
		if n < len(stages) && pipeline.StageName(stages[n]) == name {
			return bsonval.Elements(bsoncore.Document(stages[n].Data))[0].Value(), true
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
		if q.sort, err = bsonval.CompileSort(bsoncore.Document(v.Data)); err != nil {
			return q, 0, err
		}
		q.sort.Coll = vars.Collator()
		n++
	}
	if v, ok := arg("$skip"); ok && bsonval.IsNumber(v) && bsonval.NumberFloat(v) >= 0 && bsonval.NumberFloat(v) == float64(int(bsonval.NumberFloat(v))) {
		q.skip = int(bsonval.NumberFloat(v))
		n++
	}
	if v, ok := arg("$limit"); ok && bsonval.IsNumber(v) && bsonval.NumberFloat(v) > 0 && bsonval.NumberFloat(v) == float64(int(bsonval.NumberFloat(v))) {
		q.limit = int(bsonval.NumberFloat(v))
		n++
	}
	if n > 0 && q.filter == nil {
		q.filter, _ = compileFilter(bsoncore.NewDocumentBuilder().Build(), vars)
	}
	return q, n, nil
}
