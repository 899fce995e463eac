package engine

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/query"
)

func cmdExplain(c *call) (bsoncore.Document, error) {
	inner := c.arg("explain")
	if inner.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "explain command requires a nested object")
	}
	d := bsoncore.Document(inner.Data)
	els := bsonval.Elements(d)
	if len(els) == 0 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "explain command requires a nested object")
	}
	name := bsonval.Text(els[0].Value())
	col := c.view().coll(c.db, name)
	filterDoc, sortDoc, skip, limit, err := explained(d, els[0].Key())
	if err != nil {
		return nil, err
	}
	f, err := compileFilter(filterDoc, c.vars())
	if err != nil {
		return nil, err
	}
	var s *bsonval.Sort
	if sortDoc != nil {
		if s, err = bsonval.CompileSort(sortDoc); err != nil {
			return nil, err
		}
	}
	docs, p, err := selectDocs(col, f, s, skip, limit, c.deadline)
	if err != nil {
		return nil, err
	}
	winning := winningPlan(p, filterDoc)
	qp := bsoncore.NewDocumentBuilder().AppendString("namespace", c.db+"."+name).AppendDocument("parsedQuery", query.OrEmpty(filterDoc)).
		AppendDocument("winningPlan", winning).AppendArray("rejectedPlans", bsoncore.BuildArray(nil)).Build()
	es := bsoncore.NewDocumentBuilder().AppendBoolean("executionSuccess", true).AppendInt64("nReturned", int64(len(docs))).
		AppendInt64("executionTimeMillis", 0).AppendInt64("totalKeysExamined", int64(p.keysSeen)).AppendInt64("totalDocsExamined", int64(p.docsSeen)).Build()
	return newReply().b.AppendInt32("explainVersion", 1).AppendDocument("queryPlanner", qp).AppendDocument("executionStats", es).
		AppendDocument("serverInfo", bsoncore.NewDocumentBuilder().AppendString("version", Version).Build()).AppendDouble("ok", 1).Build(), nil
}

// explained reads the query of d, the command cmd that explain is asked
// about: its filter, and for a find its sort, skip and limit.
func explained(d bsoncore.Document, cmd string) (filterDoc, sortDoc bsoncore.Document, skip, limit int, err error) {
	switch cmd {
	case "find":
		if v, err := d.LookupErr("filter"); err == nil {
			filterDoc = bsoncore.Document(v.Data)
		}
		if v, err := d.LookupErr("sort"); err == nil {
			sortDoc = bsoncore.Document(v.Data)
		}
		if v, err := d.LookupErr("skip"); err == nil && bsonval.IsNumber(v) && bsonval.NumberFloat(v) > 0 {
			skip = int(bsonval.NumberFloat(v))
		}
		if v, err := d.LookupErr("limit"); err == nil && bsonval.IsNumber(v) {
			limit = int(math.Abs(bsonval.NumberFloat(v)))
		}
	case "count", "distinct":
		if v, err := d.LookupErr("query"); err == nil {
			filterDoc = bsoncore.Document(v.Data)
		}
	case "aggregate":
		if v, err := d.LookupErr("pipeline"); err == nil {
			st := bsonval.ArrayValues(v)
			if len(st) > 0 {
				if m, err := bsoncore.Document(st[0].Data).LookupErr("$match"); err == nil {
					filterDoc = bsoncore.Document(m.Data)
				}
			}
		}
	case "update", "delete":
		key := "updates"
		if cmd == "delete" {
			key = "deletes"
		}
		if v, err := d.LookupErr(key); err == nil && len(bsonval.ArrayValues(v)) > 0 {
			if q, err := bsoncore.Document(bsonval.ArrayValues(v)[0].Data).LookupErr("q"); err == nil {
				filterDoc = bsoncore.Document(q.Data)
			}
		}
	case "findAndModify", "findandmodify":
		if v, err := d.LookupErr("query"); err == nil {
			filterDoc = bsoncore.Document(v.Data)
		}
	default:
		return nil, nil, 0, 0, mongoerr.New(mongoerr.CommandNotFound, "Explain failed due to unknown command: %s", cmd)
	}
	return filterDoc, sortDoc, skip, limit, nil
}

// direction is explain's name for the way p reads its index.
func (p plan) direction() string {
	if p.backward {
		return "backward"
	}
	return "forward"
}

// winningPlan is explain's winningPlan for p, a read of filterDoc.
func winningPlan(p plan, filterDoc bsoncore.Document) bsoncore.Document {
	switch p.stage {
	case "IXSCAN":
		ix := bsoncore.NewDocumentBuilder().AppendString("stage", "IXSCAN").AppendDocument("keyPattern", p.index.key).
			AppendString("indexName", p.index.name).AppendBoolean("isMultiKey", p.index.multikey).
			AppendBoolean("isUnique", p.index.unique).AppendBoolean("isSparse", p.index.sparse).AppendBoolean("isPartial", p.index.partial != nil).
			AppendString("direction", p.direction()).Build()
		return bsoncore.NewDocumentBuilder().AppendString("stage", "FETCH").AppendDocument("inputStage", ix).Build()
	case "IDHACK":
		return bsoncore.NewDocumentBuilder().AppendString("stage", "IDHACK").Build()
	default:
		return bsoncore.NewDocumentBuilder().AppendString("stage", "COLLSCAN").AppendDocument("filter", query.OrEmpty(filterDoc)).AppendString("direction", "forward").Build()
	}
}
