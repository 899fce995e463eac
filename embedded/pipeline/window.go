package pipeline

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// compileSetWindowFields is $setWindowFields: the documents, in the order
// of partitionBy then sortBy, each given output fields computed over its
// partition. The functions: $documentNumber, $rank, $denseRank, $shift,
// $locf, $linearFill, $expMovingAvg, $derivative, $integral,
// $covariancePop, $covarianceSamp, the $group accumulators and the
// object-argument ones ($firstN … $percentile). Windows are
// documents: [lower, upper] (offsets from the current document) or
// range: [lower, upper] (values added to the current document's sortBy
// value, numbers, or dates with a unit); each bound may also be
// "unbounded" or "current"; the whole partition when none is given.
func compileSetWindowFields(arg bsoncore.Value, env *Env) (Stage, error) {
	d, err := needDoc("$setWindowFields", arg)
	if err != nil {
		return nil, err
	}
	ps, err := compilePartitionSpec("$setWindowFields", d, env)
	if err != nil {
		return nil, err
	}
	for _, el := range bsonval.Elements(d) {
		switch el.Key() {
		case "partitionBy", "sortBy", "output":
		default:
			return nil, mongoerr.New(mongoerr.Location(40415), "BSON field '$setWindowFields.%s' is an unknown field.", el.Key())
		}
	}
	ov, err := d.LookupErr("output")
	if err != nil {
		return nil, mongoerr.Missing(mongoerr.Location(40414), "$setWindowFields.output")
	}
	if ov.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$setWindowFields.output' is the wrong type '%s', expected type 'object'", bsonval.TypeName(ov.Type))
	}
	var outs []*windowFn
	for _, el := range bsonval.Elements(bsoncore.Document(ov.Data)) {
		w, err := compileWindowFn(el, ps.sort, env)
		if err != nil {
			return nil, err
		}
		outs = append(outs, w)
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		// partitions in the order of their keys, each sorted by sortBy
		parts, err := ps.split(in)
		if err != nil {
			return nil, err
		}
		slices.SortStableFunc(parts, func(a, b *partition) int { return bsonval.Compare(a.key, b.key) })
		out := make([]bsoncore.Document, 0, len(in))
		for _, p := range parts {
			pt := &windowPartition{docs: p.docs, sort: ps.sort}
			if ps.sort != nil && len(ps.sort.Keys) == 1 {
				pt.xs = make([]bsoncore.Value, len(p.docs))
				for i, doc := range p.docs {
					pt.xs[i] = bsonval.Lookup(doc, ps.sort.Keys[0].Path)
				}
			}
			results := make([][]bsoncore.Value, len(outs))
			for j, w := range outs {
				if results[j], err = w.run(pt); err != nil {
					return nil, err
				}
			}
			for i, doc := range p.docs {
				md := bsonval.MutableDoc(doc)
				for j, w := range outs {
					setMPath(md, w.field, bsonval.Mutable(results[j][i]))
				}
				out = append(out, md.Build())
			}
		}
		return out, nil
	}, nil
}

// windowFn is one output field of $setWindowFields.
type windowFn struct {
	field, op string
	e         *expr.Expr  // the function's argument (input, output)
	obj       *objAccSpec // an accumulator with an object argument
	by        int         // $shift
	def       *expr.Expr  // $shift's default
	win       windowSpec
	unit      string  // $derivative, $integral
	alpha     *bigNum // $expMovingAvg
}

// The window functions beyond the $group accumulators, and the rules
// each has: whether it takes a window, and what sortBy it needs.
var (
	rankFns    = map[string]bool{"$documentNumber": true, "$rank": true, "$denseRank": true}
	noWindowFn = map[string]bool{"$documentNumber": true, "$rank": true, "$denseRank": true, "$shift": true,
		"$locf": true, "$linearFill": true, "$expMovingAvg": true}
)

func compileWindowFn(el bsoncore.Element, sortBy *bsonval.Sort, env *Env) (*windowFn, error) {
	w, fnArg, winArg, err := splitWindowFn(el)
	if err != nil {
		return nil, err
	}
	if winArg.Type != 0 {
		if noWindowFn[w.op] {
			if rankFns[w.op] {
				return nil, mongoerr.New(mongoerr.FailedToParse, "Rank style window functions take no other arguments")
			}
			return nil, mongoerr.New(mongoerr.FailedToParse, "'window' field is not allowed in %s", w.op)
		}
		var err error
		if w.win, err = parseWindow(winArg, sortBy); err != nil {
			return nil, err
		}
	}
	if err := w.compileArg(fnArg, sortBy, winArg.Type != 0, env); err != nil {
		return nil, err
	}
	return w, nil
}

// splitWindowFn reads an output field of $setWindowFields: its function,
// the function's argument and its window (missing without one).
func splitWindowFn(el bsoncore.Element) (w *windowFn, fnArg, winArg bsoncore.Value, err error) {
	if el.Value().Type != bsoncore.TypeEmbeddedDocument {
		return nil, fnArg, winArg, mongoerr.New(mongoerr.FailedToParse, "The field '%s' must be an object", el.Key())
	}
	w = &windowFn{field: el.Key()}
	for _, f := range bsonval.Elements(bsoncore.Document(el.Value().Data)) {
		switch k := f.Key(); {
		case k == "window":
			winArg = f.Value()
		case strings.HasPrefix(k, "$"):
			if w.op != "" {
				return nil, fnArg, winArg, mongoerr.New(mongoerr.FailedToParse, "Cannot specify two functions in window function spec")
			}
			w.op, fnArg = k, f.Value()
		default:
			return nil, fnArg, winArg, mongoerr.New(mongoerr.FailedToParse, "Window function found an unknown argument: %s", k)
		}
	}
	if w.op == "" {
		return nil, fnArg, winArg, mongoerr.New(mongoerr.FailedToParse, "Expected a $-prefixed window function, %s", w.field)
	}
	return w, fnArg, winArg, nil
}

// compileArg compiles the function's argument, and checks the sortBy it
// needs.
func (w *windowFn) compileArg(fnArg bsoncore.Value, sortBy *bsonval.Sort, hasWindow bool, env *Env) error {
	singleSort := sortBy != nil && len(sortBy.Keys) == 1
	var err error
	switch op := w.op; {
	case rankFns[op]:
		if !singleSort {
			return mongoerr.New(mongoerr.Location(5371602), "%s must be specified with a top level sortBy expression with exactly one element", op)
		}
	case op == "$shift":
		return w.compileShift(fnArg, sortBy, env)
	case op == "$locf":
		w.e, err = expr.Compile(fnArg, env.Vars)
	case op == "$linearFill":
		if !singleSort {
			return mongoerr.New(mongoerr.Location(605001), "$linearFill must be specified with a top level sortBy expression with exactly one element")
		}
		w.e, err = expr.Compile(fnArg, env.Vars)
	case op == "$expMovingAvg":
		return w.compileExpMovingAvg(fnArg, sortBy, env)
	case op == "$derivative" || op == "$integral":
		return w.compileWithUnit(fnArg, sortBy, hasWindow, env)
	case op == "$covariancePop" || op == "$covarianceSamp":
		w.e, err = expr.Compile(fnArg, env.Vars)
	case objectAccumulators[op]:
		w.obj, err = compileObjectAccumulator(op, fnArg, env.Vars)
	case accumulatorOps[op]:
		w.e, err = expr.Compile(fnArg, env.Vars)
	default:
		return mongoerr.New(mongoerr.FailedToParse, "Unrecognized window function, %s", op)
	}
	return err
}

func (w *windowFn) compileShift(fnArg bsoncore.Value, sortBy *bsonval.Sort, env *Env) error {
	if fnArg.Type != bsoncore.TypeEmbeddedDocument {
		return mongoerr.New(mongoerr.FailedToParse, "Argument to $shift must be an object")
	}
	if sortBy == nil {
		return mongoerr.New(mongoerr.FailedToParse, "$shift requires a sortBy")
	}
	sd := bsoncore.Document(fnArg.Data)
	out, err1 := sd.LookupErr("output")
	by, err2 := sd.LookupErr("by")
	n, ok := wholeNumber(by)
	if err1 != nil || err2 != nil || !ok || n != int64(int32(n)) {
		return mongoerr.New(mongoerr.FailedToParse, "$shift requires 'output' and an integer 'by'")
	}
	w.by = int(n)
	var err error
	if w.e, err = expr.Compile(out, env.Vars); err != nil {
		return err
	}
	if dv, err := sd.LookupErr("default"); err == nil {
		if w.def, err = expr.Compile(dv, env.Vars); err != nil {
			return err
		}
	}
	return nil
}

func (w *windowFn) compileExpMovingAvg(arg bsoncore.Value, sortBy *bsonval.Sort, env *Env) error {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return mongoerr.New(mongoerr.FailedToParse, "$expMovingAvg must have exactly one argument that is an object")
	}
	d := bsoncore.Document(arg.Data)
	in, errIn := d.LookupErr("input")
	if len(bsonval.Elements(d)) != 2 || errIn != nil {
		return mongoerr.New(mongoerr.FailedToParse, "$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field")
	}
	if sortBy == nil {
		return mongoerr.New(mongoerr.FailedToParse, "$expMovingAvg requires an explicit 'sortBy'")
	}
	var err error
	if w.e, err = expr.Compile(in, env.Vars); err != nil {
		return err
	}
	if nv, err := d.LookupErr("N"); err == nil {
		if !bsonval.IsNumber(nv) {
			return mongoerr.New(mongoerr.FailedToParse, "'N' field must be an integer, but found type %s", bsonval.TypeName(nv.Type))
		}
		n, ok := wholeNumber(nv)
		if !ok {
			return mongoerr.New(mongoerr.FailedToParse, "'N' field must be an integer, but found  %s. To use a non-integer, use the 'alpha' argument instead", bsonval.Shell(nv))
		}
		if n <= 0 {
			return mongoerr.New(mongoerr.FailedToParse, "'N' must be greater than zero. Got %d", n)
		}
		w.alpha = bigQuo(bigInt(2), bigInt(n+1))
		return nil
	}
	av, err := d.LookupErr("alpha")
	if err != nil {
		return mongoerr.New(mongoerr.FailedToParse, "Got unrecognized field in $expMovingAvg$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field")
	}
	if !bsonval.IsNumber(av) {
		return mongoerr.New(mongoerr.FailedToParse, "'alpha' must be a number")
	}
	a := bsonval.NumberFloat(av)
	if !(a > 0 && a < 1) {
		return mongoerr.New(mongoerr.FailedToParse, "'alpha' must be between 0 and 1 (exclusive), found alpha: %s", bsonval.Shell(av))
	}
	w.alpha = bigOfNumber(av)
	return nil
}

func (w *windowFn) compileWithUnit(arg bsoncore.Value, sortBy *bsonval.Sort, hasWindow bool, env *Env) error {
	op := w.op
	if sortBy == nil {
		return mongoerr.New(mongoerr.FailedToParse, "%s requires a sortBy", op)
	}
	if len(sortBy.Keys) != 1 {
		return mongoerr.New(mongoerr.FailedToParse, "%s requires a non-compound sortBy", op)
	}
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return mongoerr.New(mongoerr.FailedToParse, "%s expects an object, but got a %s: %s", op, bsonval.TypeName(arg.Type), bsonval.Shell(arg))
	}
	for _, f := range bsonval.Elements(bsoncore.Document(arg.Data)) {
		switch f.Key() {
		case "input":
			var err error
			if w.e, err = expr.Compile(f.Value(), env.Vars); err != nil {
				return err
			}
		case "unit":
			if f.Value().Type != bsoncore.TypeString {
				return mongoerr.New(mongoerr.FailedToParse, "unit' must be a string, but got %s", bsonval.TypeName(f.Value().Type))
			}
			u := f.Value().StringValue()
			if !bsonval.IsTimeUnit(u) {
				return mongoerr.New(mongoerr.FailedToParse, "unknown time unit value: %s", u)
			}
			if bsonval.UnitMillis[u] == 0 {
				return mongoerr.New(mongoerr.Location(5490710), "unit must be 'week' or smaller")
			}
			w.unit = u
		default:
			return mongoerr.New(mongoerr.FailedToParse, "%s got unexpected argument: %s", op, f.Key())
		}
	}
	if w.e == nil {
		return mongoerr.New(mongoerr.FailedToParse, "%s requires an 'input' expression", op)
	}
	if op == "$derivative" && !hasWindow {
		return mongoerr.New(mongoerr.FailedToParse, "$derivative requires explicit window bounds")
	}
	return nil
}

// The kinds of a window bound.
const (
	boundUnbounded = iota
	boundCurrent
	boundOffset
)

type windowBound struct {
	kind int
	off  int            // documents
	val  bsoncore.Value // range: a number
}

// windowSpec is a window: set false for the whole partition.
type windowSpec struct {
	set, byRange bool
	unit         string
	lo, hi       windowBound
}

func parseWindow(v bsoncore.Value, sortBy *bsonval.Sort) (windowSpec, error) {
	w := windowSpec{set: true, lo: windowBound{kind: boundUnbounded}, hi: windowBound{kind: boundUnbounded}}
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return w, mongoerr.New(mongoerr.FailedToParse, "'window' field must be an object")
	}
	wd := bsoncore.Document(v.Data)
	nFields := len(bsonval.Elements(wd))
	docs, errDocs := wd.LookupErr("documents")
	rng, errRange := wd.LookupErr("range")
	unit, errUnit := wd.LookupErr("unit")
	switch {
	case errDocs == nil && errRange == nil:
		return w, mongoerr.New(mongoerr.FailedToParse, "Window bounds can specify either 'documents' or 'unit', not both.")
	case errRange != nil && errUnit == nil:
		return w, mongoerr.New(mongoerr.FailedToParse, "Window bounds can only specify 'unit' with range-based bounds.")
	case errRange != nil && errDocs != nil:
		if nFields != 0 {
			return w, mongoerr.New(mongoerr.FailedToParse, "'window' field can only contain 'documents' as the only argument or 'range' with an optional 'unit' field")
		}
		return w, nil
	}
	var bounds []bsoncore.Value
	var check func(bsoncore.Value) error
	var err error
	if errDocs == nil {
		bounds, check, err = documentsWindow(docs, nFields)
	} else {
		w.byRange = true
		bounds, check, err = w.rangeWindow(rng, unit, errUnit == nil, nFields)
	}
	if err != nil {
		return w, err
	}
	if w.lo, err = parseWindowBound(bounds[0], check); err != nil {
		return w, err
	}
	if w.hi, err = parseWindowBound(bounds[1], check); err != nil {
		return w, err
	}
	return w, w.checkBounds(sortBy)
}

// windowPair is the two bounds of a window, b.
func windowPair(b bsoncore.Value) ([]bsoncore.Value, error) {
	vals := bsonval.ArrayValues(b)
	if b.Type != bsoncore.TypeArray || len(vals) != 2 {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Window bounds must be a 2-element array: %s", bsonval.Shell(b))
	}
	return vals, nil
}

// documentsWindow reads documents: [lower, upper], the only field of a
// window of nFields, and the check of its numeric bounds.
func documentsWindow(docs bsoncore.Value, nFields int) ([]bsoncore.Value, func(bsoncore.Value) error, error) {
	if nFields != 1 {
		return nil, nil, mongoerr.New(mongoerr.FailedToParse, "'window' field that specifies documents cannot have other fields")
	}
	bounds, err := windowPair(docs)
	if err != nil {
		return nil, nil, err
	}
	return bounds, func(b bsoncore.Value) error {
		if n, ok := wholeNumber(b); !ok || n != int64(int32(n)) {
			return mongoerr.New(mongoerr.FailedToParse, "Numeric document-based bounds must be an integer")
		}
		return nil
	}, nil
}

// rangeWindow reads range: [lower, upper] and, when hasUnit, unit, the
// fields of a window of nFields, and the check of its numeric bounds.
func (w *windowSpec) rangeWindow(rng, unit bsoncore.Value, hasUnit bool, nFields int) ([]bsoncore.Value, func(bsoncore.Value) error, error) {
	bounds, err := windowPair(rng)
	if err != nil {
		return nil, nil, err
	}
	if !hasUnit {
		if nFields != 1 {
			return nil, nil, mongoerr.New(mongoerr.FailedToParse, "'window' field that specifies range cannot have other fields besides 'unit'")
		}
		return bounds, func(b bsoncore.Value) error {
			if !bsonval.IsNumber(b) {
				return mongoerr.New(mongoerr.FailedToParse, "Range-based bounds expression must be a number")
			}
			return nil
		}, nil
	}
	if nFields != 2 {
		return nil, nil, mongoerr.New(mongoerr.FailedToParse, "'window' field that specifies unit cannot have other fields besides 'range'")
	}
	if unit.Type != bsoncore.TypeString {
		return nil, nil, mongoerr.New(mongoerr.FailedToParse, "'unit' must be a string")
	}
	if w.unit = unit.StringValue(); !bsonval.IsTimeUnit(w.unit) {
		return nil, nil, mongoerr.New(mongoerr.FailedToParse, "unknown time unit value: %s", w.unit)
	}
	return bounds, func(b bsoncore.Value) error {
		if _, ok := wholeNumber(b); !ok {
			return mongoerr.New(mongoerr.FailedToParse, "With 'unit', range-based bounds must be an integer")
		}
		return nil
	}, nil
}

// parseWindowBound reads one bound: "unbounded", "current", or a number
// (or an expression of constants) that passes check.
func parseWindowBound(b bsoncore.Value, check func(bsoncore.Value) error) (windowBound, error) {
	switch b.Type {
	case bsoncore.TypeString:
		switch b.StringValue() {
		case "unbounded":
			return windowBound{kind: boundUnbounded}, nil
		case "current":
			return windowBound{kind: boundCurrent}, nil
		}
		return windowBound{}, mongoerr.New(mongoerr.FailedToParse, "Window bounds must be 'unbounded', 'current', or a number.")
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		// an expression of constants ({$literal: 1}, {$add: [1, 2]})
		e, err := expr.Compile(b, nil)
		if err != nil {
			return windowBound{}, err
		}
		if b, err = e.Eval(bsoncore.NewDocumentBuilder().Build(), nil); err != nil || !bsonval.IsNumber(b) {
			return windowBound{}, mongoerr.New(mongoerr.FailedToParse, "Window bounds expression must be a constant.")
		}
	}
	if err := check(b); err != nil {
		return windowBound{}, err
	}
	n, _ := wholeNumber(b)
	return windowBound{kind: boundOffset, off: int(n), val: b}, nil
}

// checkBounds checks the window's bounds are in order, and that sortBy
// is what they need.
func (w *windowSpec) checkBounds(sortBy *bsonval.Sort) error {
	// lower must not exceed upper, "current" counting as 0
	asValue := func(b windowBound) (bsoncore.Value, bool) {
		switch b.kind {
		case boundCurrent:
			return bsonval.Int32(0), true
		case boundOffset:
			return b.val, true
		}
		return bsonval.Missing, false
	}
	lo, ok1 := asValue(w.lo)
	hi, ok2 := asValue(w.hi)
	if ok1 && ok2 && bsonval.Compare(lo, hi) > 0 {
		return mongoerr.New(mongoerr.Location(5339900), "Lower bound must not exceed upper bound: [%s, %s]", bsonval.Shell(lo), bsonval.Shell(hi))
	}
	if !w.byRange {
		if sortBy == nil && (w.lo.kind != boundUnbounded || w.hi.kind != boundUnbounded) {
			return mongoerr.New(mongoerr.Location(5339901), "Document-based bounds require a sortBy")
		}
		return nil
	}
	if sortBy == nil || len(sortBy.Keys) != 1 {
		return mongoerr.New(mongoerr.Location(5339902), "Range-based bounds require sortBy a single field")
	}
	if sortBy.Keys[0].Desc {
		return mongoerr.New(mongoerr.Location(8947401), "Range-based bounds require an ascending sortBy")
	}
	return nil
}

// wholeNumber is v as an integer when it is a number without a fraction.
func wholeNumber(v bsoncore.Value) (int64, bool) {
	if n, ok := bsonval.IntOf(v); ok {
		return n, true
	}
	if !bsonval.IsNumber(v) {
		return 0, false
	}
	f := bsonval.NumberFloat(v)
	if f != float64(int64(f)) || f > 1<<62 || f < -(1<<62) {
		return 0, false
	}
	return int64(f), true
}
