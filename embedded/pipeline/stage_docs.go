package pipeline

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The stages that filter, reshape, order or count the documents of the
// stream: $match, $project, $addFields/$set, $unset,
// $replaceRoot/$replaceWith, $limit, $skip, $sort, $count, $sample.

func compileMatchStage(name string, arg bsoncore.Value, env *Env) (Stage, error) {
	d, err := needDoc(name, arg)
	if err != nil {
		return nil, err
	}
	f, err := compileFilter(d, env.Vars)
	if err != nil {
		return nil, err
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		out := in[:0:0]
		for _, d := range in {
			if f.Match(d) {
				out = append(out, d)
			}
		}
		return out, nil
	}, nil
}

func compileProjectStage(name string, arg bsoncore.Value, env *Env) (Stage, error) {
	d, err := needDoc(name, arg)
	if err != nil {
		return nil, err
	}
	if len(bsonval.Elements(d)) == 0 {
		return nil, mongoerr.New(mongoerr.Location(51272), "projection specification must have at least one field")
	}
	p, err := CompileProjection(d, env.Vars)
	if err != nil {
		return nil, err
	}
	return mapStage(func(d bsoncore.Document) (bsoncore.Document, error) { return p.Project(d, -1, true) }), nil
}

// compileAddFields is $addFields and its alias $set.
func compileAddFields(name string, arg bsoncore.Value, env *Env) (Stage, error) {
	d, err := needDoc(name, arg)
	if err != nil {
		return nil, err
	}
	type fe struct {
		path string
		e    *expr.Expr
	}
	var fs []fe
	for _, el := range bsonval.Elements(d) {
		e, err := expr.Compile(el.Value(), env.Vars)
		if err != nil {
			return nil, err
		}
		fs = append(fs, fe{el.Key(), e})
	}
	return mapStage(func(d bsoncore.Document) (bsoncore.Document, error) {
		md := bsonval.MutableDoc(d)
		for _, f := range fs {
			v, err := f.e.Eval(d, nil)
			if err != nil {
				return nil, err
			}
			if v.Type == 0 {
				removePath(&bsonval.MValue{Doc: md}, strings.Split(f.path, "."))
				continue
			}
			setMPath(md, f.path, bsonval.Mutable(v))
		}
		return md.Build(), nil
	}), nil
}

func compileUnset(_ string, arg bsoncore.Value, _ *Env) (Stage, error) {
	var paths []string
	switch arg.Type {
	case bsoncore.TypeString:
		paths = []string{arg.StringValue()}
	case bsoncore.TypeArray:
		for _, v := range bsonval.ArrayValues(arg) {
			paths = append(paths, bsonval.Text(v))
		}
	default:
		return nil, mongoerr.New(mongoerr.Location(31002), "$unset specification must be a string or an array")
	}
	return mapStage(func(d bsoncore.Document) (bsoncore.Document, error) {
		md := bsonval.MutableDoc(d)
		for _, p := range paths {
			removePath(&bsonval.MValue{Doc: md}, strings.Split(p, "."))
		}
		return md.Build(), nil
	}), nil
}

// compileReplaceRoot is $replaceRoot ({newRoot: expression}) and
// $replaceWith (the expression itself).
func compileReplaceRoot(name string, arg bsoncore.Value, env *Env) (Stage, error) {
	nr := arg
	if name == "$replaceRoot" {
		d, err := needDoc(name, arg)
		if err != nil {
			return nil, err
		}
		if nr, err = d.LookupErr("newRoot"); err != nil {
			return nil, mongoerr.New(mongoerr.Location(40231), "no newRoot specified for the $replaceRoot stage")
		}
	}
	e, err := expr.Compile(nr, env.Vars)
	if err != nil {
		return nil, err
	}
	return mapStage(func(d bsoncore.Document) (bsoncore.Document, error) {
		v, err := e.Eval(d, nil)
		if err != nil {
			return nil, err
		}
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.Location(40228), "'newRoot' expression must evaluate to an object, but resulting value was: %s. Type of resulting value: '%s'.", bsonval.Shell(v), bsonval.TypeName(v.Type))
		}
		return bsoncore.Document(v.Data), nil
	}), nil
}

// compileLimitSkip is $limit and $skip.
func compileLimitSkip(name string, arg bsoncore.Value, _ *Env) (Stage, error) {
	code := int32(5107200) // $skip
	if name == "$limit" {
		code = 5107201
	}
	f := bsonval.NumberFloat(arg)
	if !bsonval.IsNumber(arg) || f < 0 || f != math.Trunc(f) || f >= 1<<63 {
		return nil, mongoerr.New(mongoerr.Location(code), "invalid argument to %s stage: Expected a non-negative integer: %s: %s", name, name, bsonval.Shell(arg))
	}
	if name == "$limit" && f == 0 {
		return nil, mongoerr.New(mongoerr.Location(15958), "the limit must be positive")
	}
	n := int(min(f, math.MaxInt32))
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		if name == "$limit" {
			return in[:min(n, len(in))], nil
		}
		return in[min(n, len(in)):], nil
	}, nil
}

func compileSortStage(name string, arg bsoncore.Value, env *Env) (Stage, error) {
	d, err := needDoc(name, arg)
	if err != nil {
		return nil, err
	}
	s, err := bsonval.CompileSort(d)
	if err != nil {
		return nil, err
	}
	s.Coll = env.Vars.Collator()
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		out := append([]bsoncore.Document{}, in...)
		sort.SliceStable(out, func(i, j int) bool { return s.Compare(out[i], out[j]) < 0 })
		return out, nil
	}, nil
}

func compileCountStage(_ string, arg bsoncore.Value, _ *Env) (Stage, error) {
	if arg.Type != bsoncore.TypeString || arg.StringValue() == "" || strings.HasPrefix(arg.StringValue(), "$") || strings.Contains(arg.StringValue(), ".") {
		return nil, mongoerr.New(mongoerr.Location(40156), "the count field must be a non-empty string, not starting with '$' and not containing '.'")
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		if len(in) == 0 {
			return nil, nil
		}
		return []bsoncore.Document{bsoncore.NewDocumentBuilder().AppendInt32(arg.StringValue(), int32(len(in))).Build()}, nil
	}, nil
}

func compileSampleStage(name string, arg bsoncore.Value, _ *Env) (Stage, error) {
	d, err := needDoc(name, arg)
	if err != nil {
		return nil, err
	}
	sz, err := d.LookupErr("size")
	if err != nil || !bsonval.IsNumber(sz) || bsonval.NumberFloat(sz) < 0 {
		return nil, mongoerr.New(mongoerr.Location(28746), "size argument to $sample must be a non-negative number")
	}
	n := int(bsonval.NumberFloat(sz))
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		out := append([]bsoncore.Document{}, in...)
		rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out[:min(n, len(out))], nil
	}, nil
}
