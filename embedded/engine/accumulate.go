package engine

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// accumulator folds the values of a group.
type accumulator struct {
	op    string
	sum   bsoncore.Value
	n     int
	best  bsoncore.Value
	seen  bool
	vals  []bsoncore.Value
	sumsq float64
	mean  float64
	coll  *bsonval.Collator // $min, $max and $addToSet compare strings by it; nil: simple
}

func newAccumulator(op string) *accumulator {
	return &accumulator{op: op, sum: bsonval.Int32(0)}
}

func (a *accumulator) add(v bsoncore.Value) {
	switch a.op {
	case "$sum", "$avg":
		if bsonval.IsNumber(v) {
			a.sum = bsonval.Arith('+', a.sum, v)
			a.n++
		}
	case "$count":
		a.n++
	case "$min", "$max":
		if nullish(v) {
			return
		}
		c := a.coll.Compare(v, a.best)
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
			if a.coll.Equal(x, v) {
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
				a.best = bsonval.Doc(mergeDocs(bsoncore.Document(a.best.Data), bsoncore.Document(v.Data)))
			}
		}
	}
}

func (a *accumulator) result() bsoncore.Value {
	switch a.op {
	case "$sum":
		return a.sum
	case "$count":
		return bsonval.Int32(int32(a.n))
	case "$avg":
		if a.n == 0 {
			return bsonval.Null()
		}
		if a.sum.Type == bsoncore.TypeDecimal128 {
			return a.sum // approximated below for decimals
		}
		return bsonval.Double(bsonval.NumberFloat(a.sum) / float64(a.n))
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

// accumulatorOps are the $group accumulators the server has.
var accumulatorOps = map[string]bool{
	"$sum": true, "$avg": true, "$min": true, "$max": true, "$first": true, "$last": true,
	"$push": true, "$addToSet": true, "$count": true, "$stdDevPop": true, "$stdDevSamp": true, "$mergeObjects": true,
}
