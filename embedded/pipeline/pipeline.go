package pipeline

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// Env is what a pipeline needs beyond its input documents: the database
// it runs in, its variables (let, the clock $$NOW reads, the
// collation), the documents of other collections ($lookup, $graphLookup,
// $unionWith), the writes of $out and $merge, and the stages its caller
// owns. Read, Write and Stage may be nil where no stage needs them (a
// pipeline update's stages).
type Env struct {
	DB   string
	Vars *expr.Vars
	// Read is every document of db.coll, nil for a collection that is not.
	Read func(db, coll string) []bsoncore.Document
	// Write stores docs in db.coll; mode is "$out" (the collection
	// replaced, its indexes kept) or $merge's whenMatched.
	Write func(db, coll string, docs []bsoncore.Document, mode string) error
	// Stage compiles a stage that needs the server's state
	// ($changeStream, $collStats, $listLocalSessions, $search...); ok is
	// false for a name it does not know.
	Stage func(name string, arg bsoncore.Value) (s Stage, ok bool, err error)
}

// Stage transforms a stream of documents.
type Stage func(in []bsoncore.Document) ([]bsoncore.Document, error)

// Pipeline is a compiled pipeline: its stages in order.
type Pipeline []Stage

// Compile compiles the stages of a pipeline (each a one-field document)
// in env, checking where $out, $merge and $documents may stand.
func Compile(stages []bsoncore.Value, env *Env) (Pipeline, error) {
	var out Pipeline
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
			return nil, CheckDocumentsStage(stages[:i+1], false)
		}
		s, err := CompileStage(name, arg, env)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Run runs docs through p's stages.
func (p Pipeline) Run(docs []bsoncore.Document) ([]bsoncore.Document, error) {
	var err error
	for _, s := range p {
		if docs, err = s(docs); err != nil {
			return nil, err
		}
	}
	return docs, nil
}

// StageName is the name of a pipeline stage, "" if it is not one.
func StageName(sv bsoncore.Value) string {
	if sv.Type != bsoncore.TypeEmbeddedDocument {
		return ""
	}
	if els := bsonval.Elements(bsoncore.Document(sv.Data)); len(els) == 1 {
		return els[0].Key()
	}
	return ""
}

func needDoc(name string, arg bsoncore.Value) (bsoncore.Document, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(15955), "the %s stage specification must be an object", name)
	}
	return bsoncore.Document(arg.Data), nil
}

// stageCompiler compiles one stage of a pipeline; name is the stage's
// name, for the compilers several stages share.
type stageCompiler func(name string, arg bsoncore.Value, env *Env) (Stage, error)

// stageCompilers holds the compiler of each stage. It is filled in init:
// the compilers of stages that hold pipelines ($facet, $lookup…) reach
// CompileStage, which reads it.
var stageCompilers map[string]stageCompiler

func init() {
	// byArg is a compiler that needs no stage name
	byArg := func(f func(bsoncore.Value, *Env) (Stage, error)) stageCompiler {
		return func(_ string, arg bsoncore.Value, env *Env) (Stage, error) { return f(arg, env) }
	}
	stageCompilers = map[string]stageCompiler{
		"$match":           compileMatchStage,
		"$project":         compileProjectStage,
		"$addFields":       compileAddFields,
		"$set":             compileAddFields,
		"$unset":           compileUnset,
		"$replaceRoot":     compileReplaceRoot,
		"$replaceWith":     compileReplaceRoot,
		"$limit":           compileLimitSkip,
		"$skip":            compileLimitSkip,
		"$sort":            compileSortStage,
		"$count":           compileCountStage,
		"$group":           byArg(compileGroup),
		"$sortByCount":     compileSortByCount,
		"$unwind":          func(_ string, arg bsoncore.Value, _ *Env) (Stage, error) { return compileUnwind(arg) },
		"$sample":          compileSampleStage,
		"$lookup":          byArg(compileLookup),
		"$graphLookup":     byArg(compileGraphLookup),
		"$unionWith":       compileUnionWith,
		"$facet":           compileFacet,
		"$documents":       compileDocumentsStage,
		"$out":             compileOut,
		"$merge":           compileOut,
		"$bucket":          byArg(compileBucket),
		"$bucketAuto":      byArg(compileBucketAuto),
		"$setWindowFields": byArg(compileSetWindowFields),
		"$redact":          byArg(compileRedact),
		"$fill":            byArg(compileFill),
		"$densify":         byArg(compileDensify),
	}
}

// CompileStage compiles the stage name with its argument arg: one of the
// package's, else one env.Stage knows.
func CompileStage(name string, arg bsoncore.Value, env *Env) (Stage, error) {
	if c, ok := stageCompilers[name]; ok {
		return c(name, arg, env)
	}
	if env.Stage != nil {
		if s, ok, err := env.Stage(name, arg); ok || err != nil {
			return s, err
		}
	}
	return nil, mongoerr.New(mongoerr.Location(40324), "Unrecognized pipeline stage name: '%s'", name)
}

func mapStage(f func(bsoncore.Document) (bsoncore.Document, error)) Stage {
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

func compileUnwind(arg bsoncore.Value) (Stage, error) {
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

func compileOut(name string, arg bsoncore.Value, env *Env) (Stage, error) {
	db, coll := env.DB, ""
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
		return nil, env.Write(db, coll, in, mode)
	}, nil
}
