package pipeline

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The stages whose documents come from elsewhere than their input:
// $unionWith, $facet, $documents. ($collStats, $indexStats,
// $listLocalSessions and $changeStream are the engine's, through
// Env.Stage.)

// compileUnionWith is $unionWith: a collection's name, or {coll,
// pipeline}, whose pipeline without a coll must start with $documents.
func compileUnionWith(_ string, arg bsoncore.Value, env *Env) (Stage, error) {
	coll, hasColl, pipe, err := unionWithArgs(arg)
	if err != nil {
		return nil, err
	}
	if hasColl {
		if err := mongoerr.CheckNamespace(env.DB, coll); err != nil {
			return nil, err
		}
	}
	sub, err := Compile(pipe, env)
	if err != nil {
		return nil, err
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		var from []bsoncore.Document
		if hasColl {
			from = env.Read(env.DB, coll)
		}
		other, err := sub.Run(from)
		if err != nil {
			return nil, err
		}
		return append(append([]bsoncore.Document{}, in...), other...), nil
	}, nil
}

// unionWithArgs reads $unionWith's argument as MongoDB parses it.
func unionWithArgs(arg bsoncore.Value) (coll string, hasColl bool, pipe []bsoncore.Value, err error) {
	switch arg.Type {
	case bsoncore.TypeString:
		return arg.StringValue(), true, nil, nil
	case bsoncore.TypeEmbeddedDocument:
	default:
		return "", false, nil, mongoerr.New(mongoerr.FailedToParse, "the $unionWith stage specification must be an object or string, but found %s", bsonval.TypeName(arg.Type))
	}
	wrong := func(k string, v bsoncore.Value, want string) error {
		return mongoerr.New(mongoerr.TypeMismatch, "BSON field '$unionWith.%s' is the wrong type '%s', expected type '%s'", k, bsonval.TypeName(v.Type), want)
	}
	for _, el := range bsonval.Elements(bsoncore.Document(arg.Data)) {
		switch k, v := el.Key(), el.Value(); k {
		case "coll":
			if v.Type != bsoncore.TypeString {
				return "", false, nil, wrong(k, v, "string")
			}
			coll, hasColl = v.StringValue(), true
		case "pipeline":
			if v.Type != bsoncore.TypeArray {
				return "", false, nil, wrong(k, v, "array")
			}
			pipe = bsonval.ArrayValues(v)
		default:
			return "", false, nil, mongoerr.New(mongoerr.Location(40415), "BSON field '$unionWith.%s' is an unknown field.", k)
		}
	}
	if !hasColl && (len(pipe) == 0 || StageName(pipe[0]) != "$documents") {
		return "", false, nil, mongoerr.New(mongoerr.FailedToParse, "$unionWith stage without explicit collection must have a pipeline with $documents as first stage")
	}
	return coll, hasColl, pipe, nil
}

func compileFacet(name string, arg bsoncore.Value, env *Env) (Stage, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument || len(bsonval.Elements(bsoncore.Document(arg.Data))) == 0 {
		return nil, mongoerr.New(mongoerr.Location(40169), "the $facet specification must be a non-empty object, but found: $facet: %s", bsonval.Shell(arg))
	}
	type facet struct {
		name string
		p    Pipeline
	}
	var fs []facet
	for _, el := range bsonval.Elements(bsoncore.Document(arg.Data)) {
		pipe, err := facetPipeline(el)
		if err != nil {
			return nil, err
		}
		p, err := Compile(pipe, env)
		if err != nil {
			return nil, err
		}
		fs = append(fs, facet{el.Key(), p})
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		b := bsoncore.NewDocumentBuilder()
		for _, f := range fs {
			out, err := f.p.Run(append([]bsoncore.Document{}, in...))
			if err != nil {
				return nil, err
			}
			vals := make([]bsoncore.Value, len(out))
			for i, o := range out {
				vals[i] = bsonval.Doc(o)
			}
			b.AppendValue(f.name, bsonval.Array(vals))
		}
		return []bsoncore.Document{b.Build()}, nil
	}, nil
}

// facetPipeline is the pipeline of one field of $facet, checked: the
// field's name is a field path's, its value an array of stages none of
// which (nor any stage of their pipelines) $facet refuses.
func facetPipeline(el bsoncore.Element) ([]bsoncore.Value, error) {
	name, v := el.Key(), el.Value()
	switch {
	case name == "":
		return nil, mongoerr.New(mongoerr.Location(15998), "FieldPath field names may not be empty strings.")
	case strings.HasPrefix(name, "$"):
		return nil, mongoerr.New(mongoerr.Location(16410), "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
	case strings.Contains(name, "."):
		return nil, mongoerr.New(mongoerr.Location(16412), "FieldPath field names may not contain '.'. Consider using $getField or $setField.")
	case v.Type != bsoncore.TypeArray:
		return nil, mongoerr.New(mongoerr.Location(40170), "arguments to $facet must be arrays, %s is type %s", name, bsonval.TypeName(v.Type))
	}
	pipe := bsonval.ArrayValues(v)
	for i, sv := range pipe {
		if sv.Type != bsoncore.TypeEmbeddedDocument || len(bsonval.Elements(bsoncore.Document(sv.Data))) == 0 {
			return nil, mongoerr.New(mongoerr.Location(40171), "elements of arrays in $facet spec must be non-empty objects, %s argument contained an element of type %s: %d: %s", name, bsonval.TypeName(sv.Type), i, bsonval.Shell(sv))
		}
	}
	return pipe, checkInFacet(pipe, "")
}

// facetRefuses are the stages a $facet's pipelines may not hold, also
// inside a $lookup's or a $unionWith's pipeline.
var facetRefuses = map[string]bool{"$collStats": true, "$facet": true, "$geoNear": true, "$indexStats": true, "$out": true,
	"$merge": true, "$planCacheStats": true, "$search": true, "$searchMeta": true, "$vectorSearch": true, "$changeStream": true, "$documents": true}

// checkInFacet refuses a stage of pipe that $facet refuses; inside names
// the stage whose pipeline pipe is ("" for the facet's own).
func checkInFacet(pipe []bsoncore.Value, inside string) error {
	for _, sv := range pipe {
		name := StageName(sv)
		if facetRefuses[name] {
			if inside != "" {
				name += " inside of " + inside
			}
			return mongoerr.New(mongoerr.Location(40600), "%s is not allowed to be used within a $facet stage", name)
		}
		if name != "$lookup" && name != "$unionWith" {
			continue
		}
		arg := bsonval.Elements(bsoncore.Document(sv.Data))[0].Value()
		if arg.Type != bsoncore.TypeEmbeddedDocument {
			continue
		}
		if p, err := bsoncore.Document(arg.Data).LookupErr("pipeline"); err == nil && p.Type == bsoncore.TypeArray {
			if err := checkInFacet(bsonval.ArrayValues(p), name); err != nil {
				return err
			}
		}
	}
	return nil
}

// compileDocumentsStage is $documents: an expression that must give an
// array of documents, evaluated once, without an input document.
func compileDocumentsStage(_ string, arg bsoncore.Value, env *Env) (Stage, error) {
	e, err := expr.Compile(arg, env.Vars)
	if err != nil {
		return nil, err
	}
	return func([]bsoncore.Document) ([]bsoncore.Document, error) {
		v, err := e.Eval(bsoncore.NewDocumentBuilder().Build(), nil)
		if err != nil {
			return nil, err
		}
		if v.Type != bsoncore.TypeArray {
			return nil, mongoerr.New(mongoerr.Location(5858203), "an array is expected")
		}
		var out []bsoncore.Document
		for _, x := range bsonval.ArrayValues(v) {
			if x.Type != bsoncore.TypeEmbeddedDocument {
				return nil, mongoerr.New(mongoerr.Location(40228), "'newRoot' expression must evaluate to an object, but resulting value was: %s. Type of resulting value: '%s'.", bsonval.Shell(x), bsonval.TypeName(x.Type))
			}
			out = append(out, bsoncore.Document(x.Data))
		}
		return out, nil
	}, nil
}

// CheckDocumentsStage refuses $documents past a pipeline's first stage
// (40602), and first in a collection's aggregate rather than a
// database's (aggregate: 1).
func CheckDocumentsStage(stages []bsoncore.Value, onCollection bool) error {
	for i, sv := range stages {
		if StageName(sv) != "$documents" {
			continue
		}
		if i > 0 {
			return mongoerr.New(mongoerr.Location(40602), "$documents is only valid as the first stage in a pipeline")
		}
		if onCollection {
			return mongoerr.New(mongoerr.InvalidNamespace, "$documents must be run against a database (aggregate: 1), not a collection")
		}
	}
	return nil
}
