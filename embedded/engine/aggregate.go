package engine

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/update"
)

// pipelineEnv is what a pipeline needs beyond its input: other
// collections, writes for $out and $merge, variables.
type pipelineEnv struct {
	ctx   context.Context
	db    string
	vars  *expr.Vars
	read  func(db, coll string) []bsoncore.Document
	write func(db, coll string, docs []bsoncore.Document, mode string) error // mode: $out, or $merge's whenMatched
	count func(db, coll string) int
}

// stage transforms a stream of documents.
type stage func(in []bsoncore.Document) ([]bsoncore.Document, error)

func compilePipeline(stages []bsoncore.Value, env *pipelineEnv) ([]stage, error) {
	var out []stage
	for i, sv := range stages {
		if sv.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "Each element of the 'pipeline' array must be an object")
		}
		els := bsonval.Elements(bsoncore.Document(sv.Data))
		if len(els) != 1 {
			return nil, mongoerr.New(mongoerr.Location(40323), "A pipeline stage specification object must contain exactly one field.")
		}
		name, arg := els[0].Key(), els[0].Value()
		if (name == "$out" || name == "$merge") && i != len(stages)-1 {
			return nil, mongoerr.New(mongoerr.Location(40601), "%s can only be the final stage in the pipeline", name)
		}
		if name == "$documents" && i > 0 {
			return nil, checkDocumentsStage(stages[:i+1], false)
		}
		s, err := compileStage(name, arg, env)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func runPipeline(stages []stage, docs []bsoncore.Document) ([]bsoncore.Document, error) {
	var err error
	for _, s := range stages {
		if docs, err = s(docs); err != nil {
			return nil, err
		}
	}
	return docs, nil
}

func needDoc(name string, arg bsoncore.Value) (bsoncore.Document, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(15955), "the %s stage specification must be an object", name)
	}
	return bsoncore.Document(arg.Data), nil
}

// stageCompiler compiles one stage of a pipeline; name is the stage's
// name, for the compilers several stages share.
type stageCompiler func(name string, arg bsoncore.Value, env *pipelineEnv) (stage, error)

// stageCompilers holds the compiler of each stage. It is filled in init:
// the compilers of stages that hold pipelines ($facet, $lookup…) reach
// compileStage, which reads it.
var stageCompilers map[string]stageCompiler

func init() {
	// byArg is a compiler that needs no stage name
	byArg := func(f func(bsoncore.Value, *pipelineEnv) (stage, error)) stageCompiler {
		return func(_ string, arg bsoncore.Value, env *pipelineEnv) (stage, error) { return f(arg, env) }
	}
	stageCompilers = map[string]stageCompiler{
		"$changeStream":      compileChangeStreamStage,
		"$match":             compileMatchStage,
		"$project":           compileProjectStage,
		"$addFields":         compileAddFields,
		"$set":               compileAddFields,
		"$unset":             compileUnset,
		"$replaceRoot":       compileReplaceRoot,
		"$replaceWith":       compileReplaceRoot,
		"$limit":             compileLimitSkip,
		"$skip":              compileLimitSkip,
		"$sort":              compileSortStage,
		"$count":             compileCountStage,
		"$group":             byArg(compileGroup),
		"$sortByCount":       compileSortByCount,
		"$unwind":            func(_ string, arg bsoncore.Value, _ *pipelineEnv) (stage, error) { return compileUnwind(arg) },
		"$sample":            compileSampleStage,
		"$lookup":            byArg(compileLookup),
		"$graphLookup":       byArg(compileGraphLookup),
		"$unionWith":         compileUnionWith,
		"$facet":             compileFacet,
		"$documents":         compileDocumentsStage,
		"$collStats":         compileStatsStage,
		"$indexStats":        compileStatsStage,
		"$out":               compileOut,
		"$merge":             compileOut,
		"$bucket":            byArg(compileBucket),
		"$bucketAuto":        byArg(compileBucketAuto),
		"$setWindowFields":   byArg(compileSetWindowFields),
		"$redact":            byArg(compileRedact),
		"$fill":              byArg(compileFill),
		"$densify":           byArg(compileDensify),
		"$listLocalSessions": compileListLocalSessions,
		"$search":            compileSearchStage,
		"$searchMeta":        compileSearchStage,
		"$vectorSearch":      compileSearchStage,
		"$listSearchIndexes": compileSearchStage,
	}
}

// compileStage compiles the stage name with its argument arg.
func compileStage(name string, arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	if c, ok := stageCompilers[name]; ok {
		return c(name, arg, env)
	}
	return nil, mongoerr.New(mongoerr.Location(40324), "Unrecognized pipeline stage name: '%s'", name)
}

func mapStage(f func(bsoncore.Document) (bsoncore.Document, error)) stage {
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		out := make([]bsoncore.Document, 0, len(in))
		for _, d := range in {
			r, err := f(d)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
}

func compileUnwind(arg bsoncore.Value) (stage, error) {
	path, idx := "", ""
	keep := false
	switch arg.Type {
	case bsoncore.TypeString:
		path = arg.StringValue()
	case bsoncore.TypeEmbeddedDocument:
		d := bsoncore.Document(arg.Data)
		p, err := d.LookupErr("path")
		if err != nil || p.Type != bsoncore.TypeString {
			return nil, mongoerr.New(mongoerr.Location(28812), "no path specified to $unwind stage")
		}
		path = p.StringValue()
		if i, err := d.LookupErr("includeArrayIndex"); err == nil {
			idx = bsonval.Text(i)
		}
		if k, err := d.LookupErr("preserveNullAndEmptyArrays"); err == nil {
			keep = bsonval.Truthy(k)
		}
	default:
		return nil, mongoerr.New(mongoerr.Location(15981), "expected either a string or an object as specification for $unwind stage")
	}
	if !strings.HasPrefix(path, "$") {
		return nil, mongoerr.New(mongoerr.Location(28818), "path option to $unwind stage should be prefixed with a '$': %s", path)
	}
	path = path[1:]
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		var out []bsoncore.Document
		for _, d := range in {
			v := bsonval.Lookup(d, path)
			emit := func(val *bsonval.MValue, i bsoncore.Value) {
				md := bsonval.MutableDoc(d)
				if val != nil {
					setMPath(md, path, val)
				}
				if idx != "" {
					setMPath(md, idx, bsonval.Mutable(i))
				}
				out = append(out, md.Build())
			}
			switch {
			case v.Type == bsoncore.TypeArray && len(bsonval.ArrayValues(v)) > 0:
				for i, e := range bsonval.ArrayValues(v) {
					emit(bsonval.Mutable(e), bsonval.Int64(int64(i)))
				}
			case v.Type == bsoncore.TypeArray || expr.Nullish(v):
				if keep {
					md := bsonval.MutableDoc(d)
					if v.Type == bsoncore.TypeArray {
						removePath(&bsonval.MValue{Doc: md}, strings.Split(path, "."))
					}
					if idx != "" {
						setMPath(md, idx, bsonval.Mutable(bsonval.Null()))
					}
					out = append(out, md.Build())
				}
			default:
				emit(nil, bsonval.Null())
			}
		}
		return out, nil
	}, nil
}

func compileOut(name string, arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	db, coll := env.db, ""
	mode := "$out"
	if name == "$merge" {
		mode = "merge"
	}
	switch arg.Type {
	case bsoncore.TypeString:
		coll = arg.StringValue()
	case bsoncore.TypeEmbeddedDocument:
		d := bsoncore.Document(arg.Data)
		target := d
		if name == "$merge" {
			if into, err := d.LookupErr("into"); err == nil {
				if into.Type == bsoncore.TypeString {
					coll = into.StringValue()
				} else {
					target = bsoncore.Document(into.Data)
				}
			}
			for _, k := range []string{"on", "whenMatched", "whenNotMatched", "let"} {
				if v, err := d.LookupErr(k); err == nil {
					s := bsonval.Text(v)
					if k == "whenMatched" {
						mode = s
					}
					if k == "whenMatched" && s != "replace" && s != "merge" && s != "fail" && s != "keepExisting" || k == "whenNotMatched" && s != "insert" || k == "on" && s != "_id" || k == "let" {
						return nil, mongoerr.New(mongoerr.NotImplemented, "$merge with %s %s is not supported by oidkit's server yet", k, bsonval.Shell(v))
					}
				}
			}
		}
		if coll == "" {
			if dv, err := target.LookupErr("db"); err == nil {
				db = bsonval.Text(dv)
			}
			cv, _ := target.LookupErr("coll")
			coll = bsonval.Text(cv)
		}
	}
	if coll == "" {
		return nil, mongoerr.New(mongoerr.Location(16990), "%s requires a collection name", name)
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		return nil, env.write(db, coll, in, mode)
	}, nil
}

// compileUpdate compiles an update document or pipeline, a pipeline's
// stages run by applyUpdatePipeline.
func compileUpdate(u bsoncore.Value, arrayFilters []bsoncore.Value, vars *expr.Vars) (*update.Update, error) {
	return update.Compile(u, arrayFilters, vars, applyUpdatePipeline)
}

// applyUpdatePipeline runs the stages of a pipeline-style update on doc.
func applyUpdatePipeline(doc bsoncore.Document, stages []bsoncore.Document, vars *expr.Vars) (bsoncore.Document, error) {
	vals := make([]bsoncore.Value, len(stages))
	for i, s := range stages {
		vals[i] = bsonval.Doc(s)
	}
	env := &pipelineEnv{vars: vars}
	if env.vars == nil {
		env.vars = &expr.Vars{}
	}
	p, err := compilePipeline(vals, env)
	if err != nil {
		return nil, err
	}
	out, err := runPipeline(p, []bsoncore.Document{doc})
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return doc, nil
	}
	return out[0], nil
}
