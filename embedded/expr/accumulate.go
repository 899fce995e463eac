package expr

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// Accumulator folds values as $group's accumulators of one argument do
// ($sum, $avg, $min, $max, $first, $last, $push, $addToSet, $count,
// $stdDevPop, $stdDevSamp, $mergeObjects); the expression forms of $sum,
// $avg, $min and $max fold their arguments with it too.
type Accumulator struct {
	op    string
	sum   bsoncore.Value // with ints set, the sum is isum, of type ints
	isum  int64
	ints  bsoncore.Type // TypeInt32 or TypeInt64 while only integers were summed; 0 after
	n     int
	best  bsoncore.Value
	seen  bool
	vals  []bsoncore.Value
	sumsq float64
	mean  float64
	Coll  *bsonval.Collator // $min, $max and $addToSet compare strings by it; nil: simple
}

// NewAccumulator is an empty accumulator for op (such as "$sum").
func NewAccumulator(op string) *Accumulator {
	return &Accumulator{op: op, ints: bsoncore.TypeInt32}
}

// addSum adds v to the sum as bsonval.Arith does, with no value made
// while the sum and v are integers that do not overflow 64 bits.
func (a *Accumulator) addSum(v bsoncore.Value) {
	if a.ints != 0 && (v.Type == bsoncore.TypeInt32 || v.Type == bsoncore.TypeInt64) {
		y, _ := bsonval.IntOf(v)
		r := a.isum + y
		if !(a.isum > 0 && y > 0 && r < 0) && !(a.isum < 0 && y < 0 && r >= 0) {
			if a.ints == bsoncore.TypeInt64 || v.Type == bsoncore.TypeInt64 || r < math.MinInt32 || r > math.MaxInt32 {
				a.ints = bsoncore.TypeInt64
			}
			a.isum = r
			return
		}
	}
	a.sum = bsonval.Arith('+', a.total(), v)
	a.ints = 0
}

// total is the sum as a value.
func (a *Accumulator) total() bsoncore.Value {
	switch a.ints {
	case bsoncore.TypeInt32:
		return bsonval.Int32(int32(a.isum))
	case bsoncore.TypeInt64:
		return bsonval.Int64(a.isum)
	}
	return a.sum
}

// Add folds v in; missing values count only for $count.
func (a *Accumulator) Add(v bsoncore.Value) {
	switch a.op {
	case "$sum", "$avg":
		if bsonval.IsNumber(v) {
			a.addSum(v)
			a.n++
		}
	case "$count":
		a.n++
	case "$min", "$max":
		if Nullish(v) {
			return
		}
		c := a.Coll.Compare(v, a.best)
		if !a.seen || (a.op == "$min" && c < 0) || (a.op == "$max" && c > 0) {
			a.best = v
			a.seen = true
		}
	case "$first":
		if !a.seen {
			a.best, a.seen = v, true
		}
	case "$last":
		a.best, a.seen = v, true
	case "$push":
		if v.Type != 0 {
			a.vals = append(a.vals, v)
		}
	case "$addToSet":
		if v.Type == 0 {
			return
		}
		for _, x := range a.vals {
			if a.Coll.Equal(x, v) {
				return
			}
		}
		a.vals = append(a.vals, v)
	case "$stdDevPop", "$stdDevSamp":
		if bsonval.IsNumber(v) {
			f := bsonval.NumberFloat(v)
			a.n++
			d := f - a.mean
			a.mean += d / float64(a.n)
			a.sumsq += d * (f - a.mean)
		}
	case "$mergeObjects":
		if v.Type == bsoncore.TypeEmbeddedDocument {
			if !a.seen {
				a.best, a.seen = v, true
			} else {
				a.best = bsonval.Doc(MergeDocs(bsoncore.Document(a.best.Data), bsoncore.Document(v.Data)))
			}
		}
	}
}

// Result is the value folded so far (null where MongoDB gives null for
// no values).
func (a *Accumulator) Result() bsoncore.Value {
	switch a.op {
	case "$sum":
		return a.total()
	case "$count":
		return bsonval.Int32(int32(a.n))
	case "$avg":
		if a.n == 0 {
			return bsonval.Null()
		}
		sum := a.total()
		if sum.Type == bsoncore.TypeDecimal128 {
			return sum // approximated below for decimals
		}
		return bsonval.Double(bsonval.NumberFloat(sum) / float64(a.n))
	case "$min", "$max", "$first", "$last":
		if !a.seen || a.best.Type == 0 {
			return bsonval.Null()
		}
		return a.best
	case "$push", "$addToSet":
		return bsonval.Array(a.vals)
	case "$stdDevPop":
		if a.n == 0 {
			return bsonval.Null()
		}
		return bsonval.Double(math.Sqrt(a.sumsq / float64(a.n)))
	case "$stdDevSamp":
		if a.n < 2 {
			return bsonval.Null()
		}
		return bsonval.Double(math.Sqrt(a.sumsq / float64(a.n-1)))
	case "$mergeObjects":
		if !a.seen {
			return bsonval.Doc(bsoncore.NewDocumentBuilder().Build())
		}
		return a.best
	}
	return bsonval.Null()
}
