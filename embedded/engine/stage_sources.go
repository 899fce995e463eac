package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The stages whose documents come from elsewhere than their input:
// $unionWith, $facet, $documents, $collStats, $indexStats,
// $listLocalSessions; and $changeStream, refused past the first stage.

func compileChangeStreamStage(string, bsoncore.Value, *pipelineEnv) (stage, error) {
	return nil, mongoerr.New(mongoerr.Location(40602), "$changeStream is only valid as the first stage in a pipeline")
}

func compileUnionWith(_ string, arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	coll := ""
	var sub []stage
	switch arg.Type {
	case bsoncore.TypeString:
		coll = arg.StringValue()
	case bsoncore.TypeEmbeddedDocument:
		d := bsoncore.Document(arg.Data)
		c, _ := d.LookupErr("coll")
		coll = toStr(c)
		if p, err := d.LookupErr("pipeline"); err == nil {
			var err error
			if sub, err = compilePipeline(arrayValues(p), env); err != nil {
				return nil, err
			}
		}
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		other, err := runPipeline(sub, env.read(env.db, coll))
		if err != nil {
			return nil, err
		}
		return append(append([]bsoncore.Document{}, in...), other...), nil
	}, nil
}

func compileFacet(name string, arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	d, err := needDoc(name, arg)
	if err != nil {
		return nil, err
	}
	type facet struct {
		name string
		p    []stage
	}
	var fs []facet
	for _, el := range elements(d) {
		p, err := compilePipeline(arrayValues(el.Value()), env)
		if err != nil {
			return nil, err
		}
		fs = append(fs, facet{el.Key(), p})
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		b := bsoncore.NewDocumentBuilder()
		for _, f := range fs {
			out, err := runPipeline(f.p, append([]bsoncore.Document{}, in...))
			if err != nil {
				return nil, err
			}
			vals := make([]bsoncore.Value, len(out))
			for i, o := range out {
				vals[i] = vDoc(o)
			}
			b.AppendValue(f.name, vArray(vals))
		}
		return []bsoncore.Document{b.Build()}, nil
	}, nil
}

func compileDocumentsStage(_ string, arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	e, err := compileExpr(arg, env.vars)
	if err != nil {
		return nil, err
	}
	return func([]bsoncore.Document) ([]bsoncore.Document, error) {
		v, err := e.eval(bsoncore.NewDocumentBuilder().Build(), nil)
		if err != nil {
			return nil, err
		}
		var out []bsoncore.Document
		for _, x := range arrayValues(v) {
			out = append(out, bsoncore.Document(x.Data))
		}
		return out, nil
	}, nil
}

// compileStatsStage is $collStats and $indexStats.
func compileStatsStage(string, bsoncore.Value, *pipelineEnv) (stage, error) {
	return func([]bsoncore.Document) ([]bsoncore.Document, error) {
		return nil, nil // replaced by the aggregate command, which knows the namespace
	}, nil
}

func compileListLocalSessions(_ string, _ bsoncore.Value, env *pipelineEnv) (stage, error) {
	// sessions live in the drivers; the server lists the one asking
	return func([]bsoncore.Document) ([]bsoncore.Document, error) {
		var u [16]byte
		copy(u[:], processID[:])
		id := bsoncore.NewDocumentBuilder().AppendBinary("id", 4, u[:]).Build()
		return []bsoncore.Document{bsoncore.NewDocumentBuilder().AppendDocument("_id", id).AppendDateTime("lastUse", env.vars.now.UnixMilli()).Build()}, nil
	}, nil
}
