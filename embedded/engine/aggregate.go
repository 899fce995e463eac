package engine

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// pipelineEnv is what a pipeline needs beyond its input: other
// collections, writes for $out and $merge, variables.
type pipelineEnv struct {
	ctx   context.Context
	db    string
	vars  *exprVars
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
		els := elements(bsoncore.Document(sv.Data))
		if len(els) != 1 {
			return nil, mongoerr.New(mongoerr.Location(40323), "A pipeline stage specification object must contain exactly one field.")
		}
		name, arg := els[0].Key(), els[0].Value()
		if (name == "$out" || name == "$merge") && i != len(stages)-1 {
			return nil, mongoerr.New(mongoerr.Location(40601), "%s can only be the final stage in the pipeline", name)
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

func compileStage(name string, arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	switch name {
	case "$changeStream":
		return nil, mongoerr.New(mongoerr.Location(40602), "$changeStream is only valid as the first stage in a pipeline")
	case "$match":
		d, err := needDoc(name, arg)
		if err != nil {
			return nil, err
		}
		f, err := compileFilter(d, env.vars)
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
	case "$project":
		d, err := needDoc(name, arg)
		if err != nil {
			return nil, err
		}
		if len(elements(d)) == 0 {
			return nil, mongoerr.New(mongoerr.Location(51272), "projection specification must have at least one field")
		}
		p, err := compileProjection(d, env.vars)
		if err != nil {
			return nil, err
		}
		return mapStage(func(d bsoncore.Document) (bsoncore.Document, error) { return p.project(d, -1, true) }), nil
	case "$addFields", "$set":
		d, err := needDoc(name, arg)
		if err != nil {
			return nil, err
		}
		type fe struct {
			path string
			e    *expr
		}
		var fs []fe
		for _, el := range elements(d) {
			e, err := compileExpr(el.Value(), env.vars)
			if err != nil {
				return nil, err
			}
			fs = append(fs, fe{el.Key(), e})
		}
		return mapStage(func(d bsoncore.Document) (bsoncore.Document, error) {
			md := toMDoc(d)
			for _, f := range fs {
				v, err := f.e.eval(d, nil)
				if err != nil {
					return nil, err
				}
				if v.Type == 0 {
					removePath(&mval{doc: md}, strings.Split(f.path, "."))
					continue
				}
				setMPath(md, f.path, toM(v))
			}
			return md.build(), nil
		}), nil
	case "$unset":
		var paths []string
		switch arg.Type {
		case bsoncore.TypeString:
			paths = []string{arg.StringValue()}
		case bsoncore.TypeArray:
			for _, v := range arrayValues(arg) {
				paths = append(paths, toStr(v))
			}
		default:
			return nil, mongoerr.New(mongoerr.Location(31002), "$unset specification must be a string or an array")
		}
		return mapStage(func(d bsoncore.Document) (bsoncore.Document, error) {
			md := toMDoc(d)
			for _, p := range paths {
				removePath(&mval{doc: md}, strings.Split(p, "."))
			}
			return md.build(), nil
		}), nil
	case "$replaceRoot", "$replaceWith":
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
		e, err := compileExpr(nr, env.vars)
		if err != nil {
			return nil, err
		}
		return mapStage(func(d bsoncore.Document) (bsoncore.Document, error) {
			v, err := e.eval(d, nil)
			if err != nil {
				return nil, err
			}
			if v.Type != bsoncore.TypeEmbeddedDocument {
				return nil, mongoerr.New(mongoerr.Location(40228), "'newRoot' expression must evaluate to an object, but resulting value was: %s. Type of resulting value: '%s'.", shell(v), typeName(v.Type))
			}
			return bsoncore.Document(v.Data), nil
		}), nil
	case "$limit", "$skip":
		if !isNumber(arg) || numberFloat(arg) < 0 {
			return nil, mongoerr.New(mongoerr.Location(15958), "the %s must be a non-negative number", strings.TrimPrefix(name, "$"))
		}
		n := int(numberFloat(arg))
		return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
			if name == "$limit" {
				return in[:min(n, len(in))], nil
			}
			return in[min(n, len(in)):], nil
		}, nil
	case "$sort":
		d, err := needDoc(name, arg)
		if err != nil {
			return nil, err
		}
		s, err := compileSort(d)
		if err != nil {
			return nil, err
		}
		s.coll = env.vars.collator()
		return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
			out := append([]bsoncore.Document{}, in...)
			sort.SliceStable(out, func(i, j int) bool { return s.compare(out[i], out[j]) < 0 })
			return out, nil
		}, nil
	case "$count":
		if arg.Type != bsoncore.TypeString || arg.StringValue() == "" || strings.HasPrefix(arg.StringValue(), "$") || strings.Contains(arg.StringValue(), ".") {
			return nil, mongoerr.New(mongoerr.Location(40156), "the count field must be a non-empty string, not starting with '$' and not containing '.'")
		}
		return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
			if len(in) == 0 {
				return nil, nil
			}
			return []bsoncore.Document{bsoncore.NewDocumentBuilder().AppendInt32(arg.StringValue(), int32(len(in))).Build()}, nil
		}, nil
	case "$group":
		return compileGroup(arg, env)
	case "$sortByCount":
		g := bsoncore.NewDocumentBuilder().AppendValue("_id", arg).AppendDocument("count", bsoncore.NewDocumentBuilder().AppendInt32("$sum", 1).Build()).Build()
		gs, err := compileGroup(vDoc(g), env)
		if err != nil {
			return nil, err
		}
		return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
			out, err := gs(in)
			if err != nil {
				return nil, err
			}
			sort.SliceStable(out, func(i, j int) bool {
				return compareValues(lookup(out[i], "count"), lookup(out[j], "count")) > 0
			})
			return out, nil
		}, nil
	case "$unwind":
		return compileUnwind(arg)
	case "$sample":
		d, err := needDoc(name, arg)
		if err != nil {
			return nil, err
		}
		sz, err := d.LookupErr("size")
		if err != nil || !isNumber(sz) || numberFloat(sz) < 0 {
			return nil, mongoerr.New(mongoerr.Location(28746), "size argument to $sample must be a non-negative number")
		}
		n := int(numberFloat(sz))
		return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
			out := append([]bsoncore.Document{}, in...)
			rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
			return out[:min(n, len(out))], nil
		}, nil
	case "$lookup":
		return compileLookup(arg, env)
	case "$graphLookup":
		return compileGraphLookup(arg, env)
	case "$unionWith":
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
	case "$facet":
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
	case "$documents":
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
	case "$collStats", "$indexStats":
		return func([]bsoncore.Document) ([]bsoncore.Document, error) {
			return nil, nil // replaced by the aggregate command, which knows the namespace
		}, nil
	case "$out", "$merge":
		return compileOut(name, arg, env)
	case "$bucket":
		return compileBucket(arg, env)
	case "$bucketAuto":
		return compileBucketAuto(arg, env)
	case "$setWindowFields":
		return compileSetWindowFields(arg, env)
	case "$redact":
		return compileRedact(arg, env)
	case "$fill":
		return compileFill(arg, env)
	case "$densify":
		return compileDensify(arg, env)
	case "$listLocalSessions":
		// sessions live in the drivers; the server lists the one asking
		return func([]bsoncore.Document) ([]bsoncore.Document, error) {
			var u [16]byte
			copy(u[:], processID[:])
			id := bsoncore.NewDocumentBuilder().AppendBinary("id", 4, u[:]).Build()
			return []bsoncore.Document{bsoncore.NewDocumentBuilder().AppendDocument("_id", id).AppendDateTime("lastUse", env.vars.now.UnixMilli()).Build()}, nil
		}, nil
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

func compileGroup(arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	d, err := needDoc("$group", arg)
	if err != nil {
		return nil, err
	}
	idv, err := d.LookupErr("_id")
	if err != nil {
		return nil, mongoerr.New(mongoerr.Location(15955), "a group specification must include an _id")
	}
	idE, err := compileExpr(idv, env.vars)
	if err != nil {
		return nil, err
	}
	type accSpec struct {
		name, op string
		e        *expr
		obj      *objAccSpec // an accumulator with an object argument
	}
	var accs []accSpec
	for _, el := range elements(d) {
		if el.Key() == "_id" {
			continue
		}
		if el.Value().Type != bsoncore.TypeEmbeddedDocument || len(elements(bsoncore.Document(el.Value().Data))) != 1 {
			return nil, mongoerr.New(mongoerr.Location(40234), "The field '%s' must be an accumulator object", el.Key())
		}
		a := elements(bsoncore.Document(el.Value().Data))[0]
		if objectAccumulators[a.Key()] {
			obj, err := compileObjectAccumulator(a.Key(), a.Value(), env.vars)
			if err != nil {
				return nil, err
			}
			accs = append(accs, accSpec{name: el.Key(), op: a.Key(), obj: obj})
			continue
		}
		if !accumulatorOps[a.Key()] {
			return nil, mongoerr.New(mongoerr.Location(15952), "unknown group operator '%s'", a.Key())
		}
		e, err := compileExpr(a.Value(), env.vars)
		if err != nil {
			return nil, err
		}
		accs = append(accs, accSpec{name: el.Key(), op: a.Key(), e: e})
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		type group struct {
			id   bsoncore.Value
			accs []*accumulator
			objs []*objAcc
		}
		var groups []*group
		index := map[string][]*group{}
		var kb []byte
		for _, doc := range in {
			id, err := idE.eval(doc, nil)
			if err != nil {
				return nil, err
			}
			if id.Type == 0 {
				id = vNull()
			}
			kb = appendGroupKey(kb[:0], id)
			bucket := index[string(kb)]
			var g *group
			for _, c := range bucket {
				if valuesEqual(c.id, id) {
					g = c
					break
				}
			}
			if g == nil {
				g = &group{id: id}
				for _, a := range accs {
					g.accs = append(g.accs, newAccumulator(a.op))
					var o *objAcc
					if a.obj != nil {
						o = &objAcc{spec: a.obj}
					}
					g.objs = append(g.objs, o)
				}
				index[string(kb)] = append(bucket, g)
				groups = append(groups, g)
			}
			for i, a := range accs {
				if a.obj != nil {
					if err := g.objs[i].add(doc); err != nil {
						return nil, err
					}
					continue
				}
				v, err := a.e.eval(doc, nil)
				if err != nil {
					return nil, err
				}
				g.accs[i].add(v)
			}
		}
		out := make([]bsoncore.Document, 0, len(groups))
		for _, g := range groups {
			b := bsoncore.NewDocumentBuilder().AppendValue("_id", g.id)
			for i, a := range accs {
				if a.obj != nil {
					b.AppendValue(a.name, g.objs[i].result())
					continue
				}
				b.AppendValue(a.name, g.accs[i].result())
			}
			out = append(out, b.Build())
		}
		return out, nil
	}, nil
}

// appendGroupKey appends to dst a key that buckets values that may be
// equal: numbers of every type by their float value (the bucket's values
// are then compared exactly), documents and arrays by their rendering,
// others by type and bytes.
func appendGroupKey(dst []byte, v bsoncore.Value) []byte {
	switch {
	case isNumber(v):
		f := numberFloat(v)
		switch {
		case f == 0:
			f = 0 // -0 too
		case math.IsNaN(f):
			f = math.NaN()
		}
		return binary.BigEndian.AppendUint64(append(dst, 'n'), math.Float64bits(f))
	case v.Type == bsoncore.TypeEmbeddedDocument || v.Type == bsoncore.TypeArray:
		return append(append(dst, 'd'), shell(v)...)
	}
	return append(append(dst, byte(v.Type)), v.Data...)
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
			idx = toStr(i)
		}
		if k, err := d.LookupErr("preserveNullAndEmptyArrays"); err == nil {
			keep = truthy(k)
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
			v := lookup(d, path)
			emit := func(val *mval, i bsoncore.Value) {
				md := toMDoc(d)
				if val != nil {
					setMPath(md, path, val)
				}
				if idx != "" {
					setMPath(md, idx, toM(i))
				}
				out = append(out, md.build())
			}
			switch {
			case v.Type == bsoncore.TypeArray && len(arrayValues(v)) > 0:
				for i, e := range arrayValues(v) {
					emit(toM(e), vInt64(int64(i)))
				}
			case v.Type == bsoncore.TypeArray || nullish(v):
				if keep {
					md := toMDoc(d)
					if v.Type == bsoncore.TypeArray {
						removePath(&mval{doc: md}, strings.Split(path, "."))
					}
					if idx != "" {
						setMPath(md, idx, toM(vNull()))
					}
					out = append(out, md.build())
				}
			default:
				emit(nil, vNull())
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
					s := toStr(v)
					if k == "whenMatched" {
						mode = s
					}
					if k == "whenMatched" && s != "replace" && s != "merge" && s != "fail" && s != "keepExisting" || k == "whenNotMatched" && s != "insert" || k == "on" && s != "_id" || k == "let" {
						return nil, mongoerr.New(mongoerr.NotImplemented, "$merge with %s %s is not supported by oidkit's server yet", k, shell(v))
					}
				}
			}
		}
		if coll == "" {
			if dv, err := target.LookupErr("db"); err == nil {
				db = toStr(dv)
			}
			cv, _ := target.LookupErr("coll")
			coll = toStr(cv)
		}
	}
	if coll == "" {
		return nil, mongoerr.New(mongoerr.Location(16990), "%s requires a collection name", name)
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		return nil, env.write(db, coll, in, mode)
	}, nil
}

// applyUpdatePipeline runs the stages of a pipeline-style update on doc.
func applyUpdatePipeline(doc bsoncore.Document, stages []bsoncore.Document, vars *exprVars) (bsoncore.Document, error) {
	vals := make([]bsoncore.Value, len(stages))
	for i, s := range stages {
		vals[i] = vDoc(s)
	}
	env := &pipelineEnv{vars: vars}
	if env.vars == nil {
		env.vars = &exprVars{}
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
