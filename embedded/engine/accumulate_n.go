package engine

import (
	"math"
	"slices"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The accumulators that take an object argument: $firstN, $lastN, $maxN,
// $minN ({input, n}); $top, $bottom ({sortBy, output}) and $topN,
// $bottomN (with n); $median and $percentile ({input, method}, and p).

var objectAccumulators = map[string]bool{"$firstN": true, "$lastN": true, "$maxN": true, "$minN": true,
	"$top": true, "$bottom": true, "$topN": true, "$bottomN": true, "$median": true, "$percentile": true}

// objAccSpec is one such accumulator, compiled.
type objAccSpec struct {
	op     string
	input  *expr // input, or output for the top/bottom family
	n      *expr
	sort   *sortSpec
	ps     []float64
	single bool // $top, $bottom: one value, not an array
}

func compileObjectAccumulator(op string, arg bsoncore.Value, vars *exprVars) (*objAccSpec, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(5787801), "specification must be an object; found %s for %s", typeName(arg.Type), op)
	}
	d := bsoncore.Document(arg.Data)
	s := &objAccSpec{op: op}
	field := func(k string, required bool) (*expr, error) {
		v, err := d.LookupErr(k)
		if err != nil {
			if required {
				return nil, mongoerr.New(mongoerr.Location(5787907), "%s requires '%s' to be specified", op, k)
			}
			return nil, nil
		}
		return compileExpr(v, vars)
	}
	var err error
	switch op {
	case "$firstN", "$lastN", "$maxN", "$minN":
		if s.input, err = field("input", true); err != nil {
			return nil, err
		}
		if s.n, err = field("n", true); err != nil {
			return nil, err
		}
	case "$top", "$bottom", "$topN", "$bottomN":
		sv, err := d.LookupErr("sortBy")
		if err != nil || sv.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.Location(5788604), "%s requires 'sortBy' to be an object", op)
		}
		if s.sort, err = compileSort(bsoncore.Document(sv.Data)); err != nil {
			return nil, err
		}
		if s.input, err = field("output", true); err != nil {
			return nil, err
		}
		if op == "$topN" || op == "$bottomN" {
			if s.n, err = field("n", true); err != nil {
				return nil, err
			}
		} else {
			s.single = true
		}
	case "$median", "$percentile":
		if s.input, err = field("input", true); err != nil {
			return nil, err
		}
		if m, err := d.LookupErr("method"); err != nil || m.Type != bsoncore.TypeString || m.StringValue() != "approximate" {
			return nil, mongoerr.New(mongoerr.BadValue, "%s: 'method' must be \"approximate\"", op)
		}
		s.ps = []float64{0.5}
		if op == "$percentile" {
			pv, err := d.LookupErr("p")
			if err != nil || pv.Type != bsoncore.TypeArray {
				return nil, mongoerr.New(mongoerr.Location(7750301), "$percentile requires 'p' to be an array of numbers between 0 and 1")
			}
			s.ps = nil
			for _, p := range arrayValues(pv) {
				if !isNumber(p) || numberFloat(p) < 0 || numberFloat(p) > 1 {
					return nil, mongoerr.New(mongoerr.Location(7750302), "$percentile: p must hold numbers between 0 and 1, found %s", shell(p))
				}
				s.ps = append(s.ps, numberFloat(p))
			}
		}
	}
	return s, nil
}

// objAcc is the state of one group's object accumulator.
type objAcc struct {
	spec *objAccSpec
	n    int // 0 until the first document sets it
	vals []bsoncore.Value
	docs []bsoncore.Document // the top/bottom family: the documents the values came from
}

func (a *objAcc) add(doc bsoncore.Document) error {
	s := a.spec
	if s.n != nil && a.n == 0 {
		nv, err := s.n.eval(doc, nil)
		if err != nil {
			return err
		}
		n, ok := intOf(nv)
		if !ok || n <= 0 {
			return mongoerr.New(mongoerr.Location(5787908), "'n' must be a positive integer for %s, found %s", s.op, shell(nv))
		}
		a.n = int(n)
	}
	v, err := s.input.eval(doc, nil)
	if err != nil {
		return err
	}
	switch s.op {
	case "$firstN":
		if len(a.vals) < a.n {
			a.vals = append(a.vals, nullIfMissing(v))
		}
	case "$lastN":
		a.vals = append(a.vals, nullIfMissing(v))
		if len(a.vals) > a.n {
			a.vals = a.vals[1:]
		}
	case "$maxN", "$minN":
		if !nullish(v) {
			a.vals = append(a.vals, v)
		}
	case "$median", "$percentile":
		if isNumber(v) {
			a.vals = append(a.vals, v)
		}
	default: // the top/bottom family
		a.vals = append(a.vals, nullIfMissing(v))
		a.docs = append(a.docs, doc)
	}
	return nil
}

func nullIfMissing(v bsoncore.Value) bsoncore.Value {
	if v.Type == 0 {
		return vNull()
	}
	return v
}

func (a *objAcc) result() bsoncore.Value {
	s := a.spec
	switch s.op {
	case "$firstN", "$lastN":
		return vArray(a.vals)
	case "$maxN", "$minN":
		vals := slices.Clone(a.vals)
		slices.SortStableFunc(vals, func(x, y bsoncore.Value) int {
			if s.op == "$maxN" {
				return compareValues(y, x)
			}
			return compareValues(x, y)
		})
		return vArray(vals[:min(a.n, len(vals))])
	case "$median", "$percentile":
		if len(a.vals) == 0 {
			return vNull()
		}
		fs := make([]float64, len(a.vals))
		for i, v := range a.vals {
			fs[i] = numberFloat(v)
		}
		slices.Sort(fs)
		out := make([]bsoncore.Value, len(s.ps))
		for i, p := range s.ps {
			// the value of rank ceil(p*n), a value of the input
			k := int(math.Ceil(p*float64(len(fs)))) - 1
			out[i] = vDouble(fs[max(0, min(k, len(fs)-1))])
		}
		if s.op == "$median" {
			return out[0]
		}
		return vArray(out)
	}
	idx := make([]int, len(a.vals))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int { return s.sort.compare(a.docs[x], a.docs[y]) })
	top := s.op == "$top" || s.op == "$topN"
	if s.single {
		if len(idx) == 0 {
			return vNull()
		}
		if top {
			return a.vals[idx[0]]
		}
		return a.vals[idx[len(idx)-1]]
	}
	var pick []int
	if top {
		pick = idx[:min(a.n, len(idx))]
	} else {
		pick = idx[max(0, len(idx)-a.n):]
	}
	out := make([]bsoncore.Value, len(pick))
	for i, k := range pick {
		out[i] = a.vals[k]
	}
	return vArray(out)
}
