package pipeline

import (
	"math"
	"math/big"
	"sort"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// windowPartition is one partition of $setWindowFields, sorted, with the
// values of its single sortBy field when it has one.
type windowPartition struct {
	docs []bsoncore.Document
	sort *bsonval.Sort
	xs   []bsoncore.Value
}

// run computes w for every document of the partition.
func (w *windowFn) run(p *windowPartition) ([]bsoncore.Value, error) {
	if w.win.byRange {
		if err := p.checkRange(w.win.unit); err != nil {
			return nil, err
		}
	}
	vals, err := w.argValues(p)
	if err != nil {
		return nil, err
	}
	switch w.op {
	case "$documentNumber", "$rank", "$denseRank":
		return w.ranks(p), nil
	case "$shift":
		return w.shift(p)
	case "$locf":
		res := make([]bsoncore.Value, len(p.docs))
		last := bsonval.Null()
		for i, v := range vals {
			if !expr.Nullish(v) {
				last = v
			}
			res[i] = last
		}
		return res, nil
	case "$linearFill":
		return linearFill(p, vals)
	case "$expMovingAvg":
		return w.expMovingAvg(vals), nil
	}
	if w.obj == nil && accumulatorOps[w.op] && w.win.set && !w.win.byRange &&
		w.win.lo.kind == boundUnbounded && w.win.hi.kind == boundCurrent {
		// a running total: one accumulator, each document added in turn
		res := make([]bsoncore.Value, len(p.docs))
		a := expr.NewAccumulator(w.op)
		for i, v := range vals {
			a.Add(v)
			res[i] = a.Result()
		}
		return res, nil
	}
	return w.overWindows(p, vals)
}

// argValues is the argument's value on each document, for the functions
// that fold it; nil for the others.
func (w *windowFn) argValues(p *windowPartition) ([]bsoncore.Value, error) {
	if w.e == nil || w.op == "$shift" {
		return nil, nil
	}
	vals := make([]bsoncore.Value, len(p.docs))
	for i, doc := range p.docs {
		v, err := w.e.Eval(doc, nil)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// ranks is $documentNumber, $rank or $denseRank of each document.
func (w *windowFn) ranks(p *windowPartition) []bsoncore.Value {
	res := make([]bsoncore.Value, len(p.docs))
	rank, dense := 0, 0
	for i := range p.docs {
		if i == 0 || p.sort.Compare(p.docs[i-1], p.docs[i]) != 0 {
			rank, dense = i+1, dense+1
		}
		switch w.op {
		case "$documentNumber":
			res[i] = bsonval.Int32(int32(i + 1))
		case "$rank":
			res[i] = bsonval.Int32(int32(rank))
		default:
			res[i] = bsonval.Int32(int32(dense))
		}
	}
	return res
}

// overWindows computes w for each document over its window; vals are
// the argument's values.
func (w *windowFn) overWindows(p *windowPartition, vals []bsoncore.Value) ([]bsoncore.Value, error) {
	res := make([]bsoncore.Value, len(p.docs))
	for i := range p.docs {
		if !w.win.set && i > 0 {
			res[i] = res[0] // the whole partition: the same for every document
			continue
		}
		lo, hi, ok, err := p.bounds(w.win, i)
		if err != nil {
			return nil, err
		}
		if !ok {
			lo, hi = 0, -1 // an empty window
		}
		if res[i], err = w.overWindow(p, vals, lo, hi); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// overWindow computes w over the documents lo to hi (none when hi < lo).
func (w *windowFn) overWindow(p *windowPartition, vals []bsoncore.Value, lo, hi int) (bsoncore.Value, error) {
	switch {
	case w.op == "$derivative":
		return w.derivative(p, vals, lo, hi)
	case w.op == "$integral":
		return w.integral(p, vals, lo, hi)
	case w.op == "$covariancePop" || w.op == "$covarianceSamp":
		return covariance(vals[lo:hi+1], w.op == "$covarianceSamp"), nil
	case w.obj != nil:
		a := &objAcc{spec: w.obj}
		for k := lo; k <= hi; k++ {
			if err := a.add(p.docs[k]); err != nil {
				return bsonval.Missing, err
			}
		}
		if a.n == 0 && w.obj.n != nil {
			// an empty window: n still has to be valid
			if err := a.add(bsoncore.NewDocumentBuilder().Build()); err != nil {
				return bsonval.Missing, err
			}
			a.vals, a.docs = nil, nil
		}
		return a.result(), nil
	}
	a := expr.NewAccumulator(w.op)
	for k := lo; k <= hi; k++ {
		a.Add(vals[k])
	}
	return a.Result(), nil
}

// checkRange checks that every sortBy value is what a range window over
// it needs: a date with a unit, a number without.
func (p *windowPartition) checkRange(unit string) error {
	for _, x := range p.xs {
		switch {
		case unit != "":
			if x.Type != bsoncore.TypeDateTime {
				return mongoerr.New(mongoerr.Location(5429513), "Invalid range: Expected the sortBy field to be a Date, but it was %s", bsonval.TypeName(x.Type))
			}
		case x.Type == bsoncore.TypeDateTime:
			return mongoerr.New(mongoerr.Location(5429413), "Invalid range: For windows that involve date or time ranges, a unit must be provided.")
		case !bsonval.IsNumber(x):
			return mongoerr.New(mongoerr.Location(5429414), "Invalid range: Expected the sortBy field to be a number, but it was %s", bsonval.TypeName(x.Type))
		}
	}
	return nil
}

// bounds is the window of document i: the positions lo to hi, or false
// when the window holds no document.
func (p *windowPartition) bounds(w windowSpec, i int) (lo, hi int, ok bool, err error) {
	n := len(p.docs)
	if !w.set {
		return 0, n - 1, n > 0, nil
	}
	if !w.byRange {
		lo, hi = 0, n-1
		switch w.lo.kind {
		case boundCurrent:
			lo = i
		case boundOffset:
			lo = i + w.lo.off
		}
		switch w.hi.kind {
		case boundCurrent:
			hi = i
		case boundOffset:
			hi = i + w.hi.off
		}
		lo, hi = max(lo, 0), min(hi, n-1)
		return lo, hi, lo <= hi, nil
	}
	// edge is the position a bound gives: for an offset, the first
	// document whose sortBy value is at or past (past, for the upper bound)
	// the current value plus the offset; the upper bound then steps back.
	edge := func(b windowBound, unbounded int, upper bool) (int, error) {
		switch b.kind {
		case boundUnbounded:
			return unbounded, nil
		case boundCurrent:
			return i, nil
		}
		var t bsoncore.Value
		if w.unit == "" {
			t = bsonval.Arith('+', p.xs[i], b.val)
		} else {
			k, _ := wholeNumber(b.val)
			ms, ok := bsonval.AddTimeUnit(p.xs[i].DateTime(), w.unit, k)
			if !ok {
				return 0, mongoerr.New(mongoerr.Location(5166406), "$dateAdd overflowed")
			}
			t = bsonval.DateTime(ms)
		}
		k := sort.Search(n, func(k int) bool {
			c := bsonval.Compare(p.xs[k], t)
			return c > 0 || c == 0 && !upper
		})
		if upper {
			k--
		}
		return k, nil
	}
	if lo, err = edge(w.lo, 0, false); err != nil {
		return 0, 0, false, err
	}
	if hi, err = edge(w.hi, n-1, true); err != nil {
		return 0, 0, false, err
	}
	return lo, hi, lo <= hi && lo < n && hi >= 0, nil
}

func (w *windowFn) shift(p *windowPartition) ([]bsoncore.Value, error) {
	res := make([]bsoncore.Value, len(p.docs))
	for i := range p.docs {
		k := i + w.by
		switch {
		case k >= 0 && k < len(p.docs):
			v, err := w.e.Eval(p.docs[k], nil)
			if err != nil {
				return nil, err
			}
			res[i] = nullIfMissing(v)
		case w.def != nil:
			v, err := w.def.Eval(p.docs[i], nil)
			if err != nil {
				return nil, err
			}
			res[i] = nullIfMissing(v)
		default:
			res[i] = bsonval.Null()
		}
	}
	return res, nil
}

// linearFill gives each null or missing value the value on the line
// between the values before and after it, by the sortBy value (numbers,
// or dates by their milliseconds): y1 + (x-x1)·((y2-y1)/(x2-x1)); null at
// either end of the partition. The values must be numbers or null, the
// sortBy values numbers or dates, of one kind, none twice.
func linearFill(p *windowPartition, vals []bsoncore.Value) ([]bsoncore.Value, error) {
	n := len(vals)
	next := make([]int, n+1) // the first non-null value at or after i
	next[n] = n
	for i := n - 1; i >= 0; i-- {
		next[i] = next[i+1]
		if !expr.Nullish(vals[i]) {
			next[i] = i
		}
	}
	res := make([]bsoncore.Value, n)
	prev := -1
	for i, y := range vals {
		x := p.xs[i]
		isDate := x.Type == bsoncore.TypeDateTime
		switch {
		case !bsonval.IsNumber(y) && !expr.Nullish(y):
			return nil, mongoerr.New(mongoerr.TypeMismatch, "Value to be filled must be numeric or nullish, but found %s", bsonval.TypeName(y.Type))
		case !bsonval.IsNumber(x) && !isDate:
			return nil, mongoerr.New(mongoerr.TypeMismatch, "Value of the sortBy field must be numeric or a date, but found %s", bsonval.TypeName(x.Type))
		case i > 0 && bsonval.Compare(x, p.xs[i-1]) == 0:
			return nil, mongoerr.New(mongoerr.Location(6050106), "There can be no repeated values in the sort field")
		case i > 0 && isDate != (p.xs[i-1].Type == bsoncore.TypeDateTime):
			return nil, mongoerr.New(mongoerr.TypeMismatch, "Conflicting sort value types, previously received type %s, but found %s", bsonval.TypeName(p.xs[i-1].Type), bsonval.TypeName(x.Type))
		}
		if !expr.Nullish(y) {
			res[i], prev = y, i
			continue
		}
		res[i] = bsonval.Null()
		if j := next[i]; prev >= 0 && j < n {
			x1, x2 := xFloat(p.xs[prev]), xFloat(p.xs[j])
			y1, y2 := bsonval.NumberFloat(vals[prev]), bsonval.NumberFloat(vals[j])
			res[i] = bsonval.Double(y1 + (xFloat(x)-x1)*((y2-y1)/(x2-x1)))
		}
	}
	return res, nil
}

// expMovingAvg is, for each document, alpha times its input plus 1-alpha
// times the average before it, the first numeric input as it is;
// non-numeric inputs leave the average as it was (null before any).
// MongoDB computes it in decimal, from the doubles rounded to 15 digits,
// and answers a double unless an input was a decimal.
func (w *windowFn) expMovingAvg(vals []bsoncore.Value) []bsoncore.Value {
	res := make([]bsoncore.Value, len(vals))
	var cur *bigNum
	isDec := false
	one := bigInt(1)
	rest := new(big.Float).SetPrec(bigPrec).Sub(one, w.alpha)
	for i, v := range vals {
		if bsonval.IsNumber(v) {
			if v.Type == bsoncore.TypeDecimal128 {
				isDec = true
			}
			x := bigOfNumber(v)
			if cur == nil {
				cur = x
			} else {
				a := new(big.Float).SetPrec(bigPrec).Mul(x, w.alpha)
				b := new(big.Float).SetPrec(bigPrec).Mul(cur, rest)
				cur = a.Add(a, b)
			}
		}
		switch {
		case cur == nil:
			res[i] = bsonval.Null()
		case isDec:
			d, err := bson.ParseDecimal128(cur.Text('g', 34))
			if err != nil {
				f, _ := cur.Float64()
				d, _ = bson.ParseDecimal128(strconv.FormatFloat(f, 'g', -1, 64))
			}
			res[i] = bsonval.Decimal(d)
		default:
			f, _ := cur.Float64()
			res[i] = bsonval.Double(f)
		}
	}
	return res
}

// derivative is the change of the input between the window's first and
// last documents divided by the change of the sortBy value (in
// milliseconds for dates, then expressed per unit).
func (w *windowFn) derivative(p *windowPartition, vals []bsoncore.Value, lo, hi int) (bsoncore.Value, error) {
	if lo > hi {
		return bsonval.Null(), nil
	}
	xl, xr := p.xs[lo], p.xs[hi]
	isDate := func(v bsoncore.Value) bool { return v.Type == bsoncore.TypeDateTime }
	var run float64
	if w.unit != "" {
		if !isDate(xl) || !isDate(xr) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5624900), "$derivative with 'unit' expects the sortBy field to be a Date")
		}
		run = float64(xr.DateTime() - xl.DateTime())
	} else {
		if isDate(xl) || isDate(xr) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5624901), "$derivative where the sortBy is a Date requires an 'unit'")
		}
		if !bsonval.IsNumber(xl) || !bsonval.IsNumber(xr) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5624902), "$derivative (with no 'unit') expects the sortBy field to be numeric")
		}
		run = bsonval.NumberFloat(xr) - bsonval.NumberFloat(xl)
	}
	yl, yr := vals[lo], vals[hi]
	if expr.Nullish(yl) || expr.Nullish(yr) {
		return bsonval.Missing, mongoerr.New(mongoerr.Location(5624903), "$derivative input must not be null or missing")
	}
	if !bsonval.IsNumber(yl) || !bsonval.IsNumber(yr) {
		return bsonval.Missing, mongoerr.New(mongoerr.Location(16556), "cant $subtract a %s from a %s", bsonval.TypeName(yl.Type), bsonval.TypeName(yr.Type))
	}
	if run == 0 {
		return bsonval.Null(), nil
	}
	r := (bsonval.NumberFloat(yr) - bsonval.NumberFloat(yl)) / run
	if w.unit != "" {
		r *= float64(bsonval.UnitMillis[w.unit])
	}
	return bsonval.Double(r), nil
}

// integral is the area under the input over the window by the trapezoidal
// rule, the sortBy value as x (milliseconds for dates, then expressed per
// unit).
func (w *windowFn) integral(p *windowPartition, vals []bsoncore.Value, lo, hi int) (bsoncore.Value, error) {
	if lo > hi {
		return bsonval.Null(), nil
	}
	sum, nan := 0.0, false
	for k := lo; k <= hi; k++ {
		x, y := p.xs[k], vals[k]
		if !bsonval.IsNumber(y) || (!bsonval.IsNumber(x) && x.Type != bsoncore.TypeDateTime) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5423900), "The input value of $integral window function must be a vector of 2 value, the first value must be numeric or date type and the second must be numeric.")
		}
		if w.unit != "" && x.Type != bsoncore.TypeDateTime {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5423901), "$integral with 'unit' expects the sortBy field to be a Date")
		}
		if w.unit == "" && !bsonval.IsNumber(x) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5423902), "$integral (with no 'unit') expects the sortBy field to be numeric")
		}
		if math.IsNaN(bsonval.NumberFloat(y)) || math.IsNaN(bsonval.NumberFloat(x)) {
			nan = true
		}
		if k > lo {
			sum += (bsonval.NumberFloat(vals[k-1]) + bsonval.NumberFloat(y)) * (xFloat(x) - xFloat(p.xs[k-1])) / 2
		}
	}
	switch {
	case nan:
		return bsonval.Double(math.NaN()), nil
	case w.unit != "":
		return bsonval.Double(sum / float64(bsonval.UnitMillis[w.unit])), nil
	case lo == hi:
		return bsonval.Int32(0), nil
	}
	return bsonval.Double(sum), nil
}

// xFloat is a number, or a date's milliseconds.
func xFloat(v bsoncore.Value) float64 {
	if v.Type == bsoncore.TypeDateTime {
		return float64(v.DateTime())
	}
	return bsonval.NumberFloat(v)
}

// covariance of the [x, y] pairs of numbers among vals; null with no
// pair (or one, for the sample covariance).
func covariance(vals []bsoncore.Value, sample bool) bsoncore.Value {
	n := 0
	var mx, my, c float64
	for _, v := range vals {
		if v.Type != bsoncore.TypeArray {
			continue
		}
		xy := bsonval.ArrayValues(v)
		if len(xy) != 2 || !bsonval.IsNumber(xy[0]) || !bsonval.IsNumber(xy[1]) {
			continue
		}
		x, y := bsonval.NumberFloat(xy[0]), bsonval.NumberFloat(xy[1])
		n++
		dx := x - mx
		mx += dx / float64(n)
		my += (y - my) / float64(n)
		c += dx * (y - my)
	}
	switch {
	case n == 0, sample && n == 1:
		return bsonval.Null()
	case sample:
		return bsonval.Double(c / float64(n-1))
	}
	return bsonval.Double(c / float64(n))
}

// bigNum is a number computed with more precision than a double has.
type bigNum = big.Float

const bigPrec = 256

func bigInt(n int64) *bigNum { return new(big.Float).SetPrec(bigPrec).SetInt64(n) }

func bigQuo(a, b *bigNum) *bigNum { return new(big.Float).SetPrec(bigPrec).Quo(a, b) }

// bigOfNumber is v as MongoDB converts it to a decimal: a double rounded
// to 15 significant digits.
func bigOfNumber(v bsoncore.Value) *bigNum {
	s := ""
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		n, _ := bsonval.IntOf(v)
		return bigInt(n)
	case bsoncore.TypeDouble:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return new(big.Float).SetPrec(bigPrec) // not representable; counts as 0
		}
		s = strconv.FormatFloat(f, 'g', 15, 64)
	case bsoncore.TypeDecimal128:
		h, l := v.Decimal128()
		s = bson.NewDecimal128(h, l).String()
	}
	f, _, err := big.ParseFloat(s, 10, bigPrec, big.ToNearestEven)
	if err != nil {
		return new(big.Float).SetPrec(bigPrec)
	}
	return f
}
