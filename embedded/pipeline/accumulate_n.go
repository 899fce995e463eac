package pipeline

import (
	"math"
	"slices"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
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
	input  *expr.Expr // input, or output for the top/bottom family
	n      *expr.Expr
	sort   *bsonval.Sort
	ps     []float64
	method string // $median, $percentile: approximate, discrete or continuous
	single bool   // $top, $bottom: one value, not an array
}

// compileQuantile reads {input, p, method} ($median has no p): p a
// constant expression giving an array of numbers between 0 and 1.
func (s *objAccSpec) compileQuantile(d bsoncore.Document, vars *expr.Vars) error {
	op := s.op
	for _, el := range bsonval.Elements(d) {
		switch k := el.Key(); {
		case k == "input", k == "method", k == "p" && op == "$percentile":
		default:
			return mongoerr.New(mongoerr.Location(40415), "BSON field '%s.%s' is an unknown field.", op, k)
		}
	}
	need := []string{"input", "method"}
	if op == "$percentile" {
		need = []string{"p", "input", "method"}
	}
	for _, k := range need {
		if _, err := d.LookupErr(k); err != nil {
			return mongoerr.Missing(mongoerr.Location(40414), op+"."+k)
		}
	}
	m := d.Lookup("method")
	if m.Type != bsoncore.TypeString {
		return mongoerr.New(mongoerr.TypeMismatch, "BSON field '%s.method' is the wrong type '%s', expected type 'string'", op, bsonval.TypeName(m.Type))
	}
	switch s.method = m.StringValue(); s.method {
	case "approximate", "discrete", "continuous":
	default:
		return mongoerr.New(mongoerr.BadValue, "Enumeration value '%s' for field '%s.method' is not a valid value.", s.method, op)
	}
	var err error
	if s.input, err = expr.Compile(d.Lookup("input"), vars); err != nil {
		return err
	}
	s.ps = []float64{0.5}
	if op == "$median" {
		return nil
	}
	pe, err := expr.Compile(d.Lookup("p"), vars)
	if err != nil {
		return err
	}
	pv, err := pe.Eval(bsoncore.NewDocumentBuilder().Build(), nil)
	if err != nil {
		return err
	}
	if pv.Type != bsoncore.TypeArray || len(bsonval.ArrayValues(pv)) == 0 {
		return mongoerr.New(mongoerr.Location(7750301), "The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: %s", bsonval.Shell(pv))
	}
	s.ps = nil
	for _, p := range bsonval.ArrayValues(pv) {
		if f := bsonval.NumberFloat(p); !bsonval.IsNumber(p) || !(f >= 0 && f <= 1) {
			return mongoerr.New(mongoerr.Location(7750302), "The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: %s", bsonval.Shell(p))
		}
		s.ps = append(s.ps, bsonval.NumberFloat(p))
	}
	return nil
}

func compileObjectAccumulator(op string, arg bsoncore.Value, vars *expr.Vars) (*objAccSpec, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		code := map[string]int32{"$percentile": 7429703, "$median": 7436100}[op]
		if code == 0 {
			code = 5787801
		}
		return nil, mongoerr.New(mongoerr.Location(code), "specification must be an object; found %s for %s", bsonval.TypeName(arg.Type), op)
	}
	d := bsoncore.Document(arg.Data)
	s := &objAccSpec{op: op}
	field := func(k string, required bool) (*expr.Expr, error) {
		v, err := d.LookupErr(k)
		if err != nil {
			if required {
				return nil, mongoerr.New(mongoerr.Location(5787907), "%s requires '%s' to be specified", op, k)
			}
			return nil, nil
		}
		return expr.Compile(v, vars)
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
		if s.sort, err = bsonval.CompileSort(bsoncore.Document(sv.Data)); err != nil {
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
		if err := s.compileQuantile(d, vars); err != nil {
			return nil, err
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
		nv, err := s.n.Eval(doc, nil)
		if err != nil {
			return err
		}
		n, ok := bsonval.IntOf(nv)
		if !ok || n <= 0 {
			return mongoerr.New(mongoerr.Location(5787908), "'n' must be a positive integer for %s, found %s", s.op, bsonval.Shell(nv))
		}
		a.n = int(n)
	}
	v, err := s.input.Eval(doc, nil)
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
		if !expr.Nullish(v) {
			a.vals = append(a.vals, v)
		}
	case "$median", "$percentile":
		if bsonval.IsNumber(v) && !math.IsNaN(bsonval.NumberFloat(v)) {
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
		return bsonval.Null()
	}
	return v
}

func (a *objAcc) result() bsoncore.Value {
	s := a.spec
	switch s.op {
	case "$firstN", "$lastN":
		return bsonval.Array(a.vals)
	case "$maxN", "$minN":
		vals := slices.Clone(a.vals)
		slices.SortStableFunc(vals, func(x, y bsoncore.Value) int {
			if s.op == "$maxN" {
				return bsonval.Compare(y, x)
			}
			return bsonval.Compare(x, y)
		})
		return bsonval.Array(vals[:min(a.n, len(vals))])
	case "$median", "$percentile":
		if len(a.vals) == 0 {
			if s.op == "$percentile" {
				nulls := make([]bsoncore.Value, len(s.ps))
				for i := range nulls {
					nulls[i] = bsonval.Null()
				}
				return bsonval.Array(nulls)
			}
			return bsonval.Null()
		}
		fs := make([]float64, len(a.vals))
		for i, v := range a.vals {
			fs[i] = bsonval.NumberFloat(v)
		}
		slices.Sort(fs)
		out := make([]bsoncore.Value, len(s.ps))
		for i, p := range s.ps {
			out[i] = bsonval.Double(quantile(fs, p, s.method))
		}
		if s.op == "$median" {
			return out[0]
		}
		return bsonval.Array(out)
	}
	idx := make([]int, len(a.vals))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int { return s.sort.Compare(a.docs[x], a.docs[y]) })
	top := s.op == "$top" || s.op == "$topN"
	if s.single {
		if len(idx) == 0 {
			return bsonval.Null()
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
	return bsonval.Array(out)
}

// quantile is the p quantile of the sorted fs: for "continuous" the line
// between the values around rank p*(n-1); otherwise the value of rank
// ceil(p*n), a value of the input (what MongoDB's approximation gives
// exactly for the data it keeps whole, and within its error otherwise).
func quantile(fs []float64, p float64, method string) float64 {
	n := len(fs)
	if method == "continuous" {
		r := p * float64(n-1)
		lo, hi := int(math.Floor(r)), int(math.Ceil(r))
		if lo == hi {
			return fs[lo]
		}
		return fs[lo] + (r-float64(lo))*(fs[hi]-fs[lo])
	}
	k := int(math.Ceil(p*float64(n))) - 1
	return fs[max(0, min(k, n-1))]
}
