package pipeline

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/query"
)

// Projection is a compiled projection: find's, and $project's.
type Projection struct {
	include bool
	idOff   bool
	fields  []projField
}

type projField struct {
	path  string
	expr  *expr.Expr // a computed field
	slice []int      // $slice
	elem  *query.Filter
	pos   bool // "a.$"
}

// CompileProjection compiles a projection: inclusion or exclusion of
// paths, computed fields (expressions under vars), $slice, $elemMatch and
// the positional "a.$".
func CompileProjection(spec bsoncore.Document, vars *expr.Vars) (*Projection, error) {
	p := &Projection{}
	mode := 0 // 1 include, -1 exclude
	idOn := false
	for _, e := range bsonval.Elements(spec) {
		k, v := e.Key(), e.Value()
		if k == "_id" && (bsonval.IsNumber(v) || v.Type == bsoncore.TypeBoolean) {
			p.idOff, idOn = !bsonval.Truthy(v), bsonval.Truthy(v)
			continue
		}
		f := projField{path: k}
		switch {
		case strings.HasSuffix(k, ".$"):
			f.path, f.pos = strings.TrimSuffix(k, ".$"), true
			if mode == -1 {
				return nil, mongoerr.New(mongoerr.Location(31395), "positional projection cannot be used with exclusion")
			}
			mode = 1
		case bsonval.IsNumber(v) || v.Type == bsoncore.TypeBoolean:
			m := 1
			if !bsonval.Truthy(v) {
				m = -1
			}
			if mode != 0 && mode != m {
				if m == -1 {
					return nil, mongoerr.New(mongoerr.Location(31254), "Cannot do exclusion on field %s in inclusion projection", k)
				}
				return nil, mongoerr.New(mongoerr.Location(31253), "Cannot do inclusion on field %s in exclusion projection", k)
			}
			mode = m
		case sliceProjection(v):
			// {$slice: n} or {$slice: [skip, n]}; other arguments make
			// the $slice expression, in the default case
			sv := bsonval.Elements(bsoncore.Document(v.Data))[0].Value()
			if bsonval.IsNumber(sv) {
				f.slice = []int{sliceInt(sv)}
			} else {
				a := bsonval.ArrayValues(sv)
				if !(bsonval.NumberFloat(a[1]) > 0) {
					return nil, mongoerr.New(mongoerr.Location(28724), "Second argument to $slice must be a positive number")
				}
				f.slice = []int{sliceInt(a[0]), sliceInt(a[1])}
			}
		case v.Type == bsoncore.TypeEmbeddedDocument && len(bsonval.Elements(bsoncore.Document(v.Data))) == 1 && bsonval.Elements(bsoncore.Document(v.Data))[0].Key() == "$elemMatch":
			ev := bsonval.Elements(bsoncore.Document(v.Data))[0].Value()
			fl, err := compileFilter(bsoncore.Document(ev.Data), vars)
			if err != nil {
				return nil, err
			}
			f.elem = fl
			if mode == -1 {
				return nil, mongoerr.New(mongoerr.Location(31395), "Cannot use $elemMatch projection with exclusion")
			}
			mode = 1
		default:
			ex, err := expr.Compile(v, vars)
			if err != nil {
				return nil, err
			}
			f.expr = ex
			if mode == -1 {
				return nil, mongoerr.New(mongoerr.Location(31252), "Cannot use expression other than $meta in exclusion projection")
			}
			mode = 1
		}
		p.fields = append(p.fields, f)
	}
	// {_id: 1} alone includes the _id and nothing else
	p.include = mode == 1 || mode == 0 && idOn && len(p.fields) == 0
	return p, nil
}

// sliceProjection reports the find projection's $slice, {$slice: n} or
// {$slice: [skip, n]} with numbers.
func sliceProjection(v bsoncore.Value) bool {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return false
	}
	els := bsonval.Elements(bsoncore.Document(v.Data))
	if len(els) != 1 || els[0].Key() != "$slice" {
		return false
	}
	sv := els[0].Value()
	if bsonval.IsNumber(sv) {
		return true
	}
	if sv.Type != bsoncore.TypeArray {
		return false
	}
	a := bsonval.ArrayValues(sv)
	return len(a) == 2 && bsonval.IsNumber(a[0]) && bsonval.IsNumber(a[1])
}

// sliceInt is a $slice count as an int, saturating (NaN is 0).
func sliceInt(v bsoncore.Value) int {
	if i, ok := bsonval.IntOf(v); ok {
		return int(max(min(i, math.MaxInt32), math.MinInt32))
	}
	f := bsonval.NumberFloat(v)
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int(f)
}

// Project projects doc; matchPos serves "a.$". With strict, an error of a
// computed field's expression fails the projection, as the server's find
// and $project do.
func (p *Projection) Project(doc bsoncore.Document, matchPos int, strict bool) (bsoncore.Document, error) {
	if p == nil {
		return doc, nil
	}
	if p.include {
		return p.projectInclusion(doc, matchPos, strict)
	}
	return p.projectExclusion(doc), nil
}

// projectInclusion is Project for an inclusion projection.
func (p *Projection) projectInclusion(doc bsoncore.Document, matchPos int, strict bool) (bsoncore.Document, error) {
	out := &bsonval.MDoc{}
	if id, err := doc.LookupErr("_id"); err == nil && !p.idOff {
		out.Set("_id", bsonval.Mutable(id))
	}
	// Only the top-level fields a path is copied from are converted:
	// copyPath looks up nothing else in src, and a computed field
	// (aggregation's $project of an expression) needs none of them.
	var src bsonval.MDoc
	from := func(path string) *bsonval.MDoc {
		name, _, _ := strings.Cut(path, ".")
		if _, i := src.Get(name); i < 0 {
			if v, err := doc.LookupErr(name); err == nil {
				src.Keys = append(src.Keys, name)
				src.Vals = append(src.Vals, bsonval.Mutable(v))
			}
		}
		return &src
	}
	for _, f := range p.fields {
		switch {
		case f.expr != nil:
			v, err := f.expr.Eval(doc, nil)
			if err != nil && strict {
				return nil, err
			}
			if err == nil && v.Type != 0 {
				setMPath(out, f.path, bsonval.Mutable(v))
			}
		case f.slice != nil:
			// a $slice in an inclusion projection keeps the other fields only if included
			copyPath(from(f.path), out, strings.Split(f.path, "."))
			sliceAt(out, f.path, f.slice)
		case f.elem != nil:
			v := bsonval.Lookup(doc, f.path)
			if v.Type == bsoncore.TypeArray {
				for _, e := range bsonval.ArrayValues(v) {
					if e.Type == bsoncore.TypeEmbeddedDocument && f.elem.Match(bsoncore.Document(e.Data)) {
						setMPath(out, f.path, bsonval.Mutable(bsonval.Array([]bsoncore.Value{e})))
						break
					}
				}
			}
		case f.pos:
			v := bsonval.Lookup(doc, f.path)
			if v.Type == bsoncore.TypeArray && matchPos >= 0 {
				vals := bsonval.ArrayValues(v)
				if matchPos < len(vals) {
					setMPath(out, f.path, bsonval.Mutable(bsonval.Array([]bsoncore.Value{vals[matchPos]})))
				}
			}
		default:
			copyPath(from(f.path), out, strings.Split(f.path, "."))
		}
	}
	return idFirstM(out).Build(), nil
}

// projectExclusion is Project for an exclusion projection.
func (p *Projection) projectExclusion(doc bsoncore.Document) bsoncore.Document {
	out := bsonval.MutableDoc(doc)
	if p.idOff {
		out.Remove("_id")
	}
	for _, f := range p.fields {
		switch {
		case f.slice != nil:
			sliceAt(out, f.path, f.slice)
		case f.elem != nil:
			v := bsonval.Lookup(doc, f.path)
			out.Remove(f.path)
			if v.Type == bsoncore.TypeArray {
				for _, e := range bsonval.ArrayValues(v) {
					if e.Type == bsoncore.TypeEmbeddedDocument && f.elem.Match(bsoncore.Document(e.Data)) {
						setMPath(out, f.path, bsonval.Mutable(bsonval.Array([]bsoncore.Value{e})))
						break
					}
				}
			}
		default:
			removePath(&bsonval.MValue{Doc: out}, strings.Split(f.path, "."))
		}
	}
	return out.Build()
}

func idFirstM(d *bsonval.MDoc) *bsonval.MDoc {
	if _, i := d.Get("_id"); i > 0 {
		v := d.Vals[i]
		d.Remove("_id")
		d.Keys = append([]string{"_id"}, d.Keys...)
		d.Vals = append([]*bsonval.MValue{v}, d.Vals...)
	}
	return d
}

func setMPath(d *bsonval.MDoc, path string, v *bsonval.MValue) {
	parts := strings.Split(path, ".")
	cur := d
	for _, p := range parts[:len(parts)-1] {
		next, _ := cur.Get(p)
		if next == nil || next.Doc == nil {
			next = &bsonval.MValue{Doc: &bsonval.MDoc{}}
			cur.Set(p, next)
		}
		cur = next.Doc
	}
	cur.Set(parts[len(parts)-1], v)
}

// copyPath copies what parts reach in src into dst, through arrays of
// documents as an inclusion projection does.
func copyPath(src, dst *bsonval.MDoc, parts []string) {
	v, _ := src.Get(parts[0])
	if v == nil {
		return
	}
	if len(parts) == 1 {
		dst.Set(parts[0], v)
		return
	}
	switch {
	case v.Doc != nil:
		d, _ := dst.Get(parts[0])
		if d == nil || d.Doc == nil {
			d = &bsonval.MValue{Doc: &bsonval.MDoc{}}
			dst.Set(parts[0], d)
		}
		copyPath(v.Doc, d.Doc, parts[1:])
	case v.IsArray:
		d, _ := dst.Get(parts[0])
		out := &bsonval.MValue{IsArray: true}
		for i, e := range v.Arr {
			if e.Doc == nil {
				continue
			}
			var target *bsonval.MDoc
			if d != nil && d.IsArray && i < len(d.Arr) && d.Arr[i].Doc != nil {
				target = d.Arr[i].Doc
			} else {
				target = &bsonval.MDoc{}
			}
			copyPath(e.Doc, target, parts[1:])
			out.Arr = append(out.Arr, &bsonval.MValue{Doc: target})
		}
		dst.Set(parts[0], out)
	}
}

func removePath(v *bsonval.MValue, parts []string) {
	switch {
	case v.Doc != nil:
		if len(parts) == 1 {
			v.Doc.Remove(parts[0])
			return
		}
		if c, _ := v.Doc.Get(parts[0]); c != nil {
			removePath(c, parts[1:])
		}
	case v.IsArray:
		for _, e := range v.Arr {
			removePath(e, parts)
		}
	}
}

func sliceAt(d *bsonval.MDoc, path string, s []int) {
	v := bsonval.MutablePath(d, strings.Split(path, "."))
	if v == nil || !v.IsArray {
		return
	}
	n := len(v.Arr)
	var from, to int
	if len(s) == 1 {
		if s[0] >= 0 {
			from, to = 0, min(s[0], n)
		} else {
			from, to = max(n+s[0], 0), n
		}
	} else {
		from = s[0]
		if from < 0 {
			from = max(n+from, 0)
		}
		from = min(from, n)
		to = min(from+s[1], n)
	}
	v.Arr = v.Arr[from:to]
}
