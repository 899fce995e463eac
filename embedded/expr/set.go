package expr

import (
	"slices"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The set expression operators. Arrays are sets of values compared as
// MongoDB compares them (numbers by value, so 1 and 1.0 are one member);
// results have no duplicates and list their members in BSON order, the
// first of equal values kept.

// valueSet is a sorted, duplicate-free list of values, strings compared
// by the command's collation k (nil: simple).
type valueSet []bsoncore.Value

func newValueSet(vals []bsoncore.Value, k *bsonval.Collator) valueSet {
	s := slices.Clone(vals)
	slices.SortStableFunc(s, k.Compare)
	return slices.CompactFunc(s, func(a, b bsoncore.Value) bool { return k.Compare(a, b) == 0 })
}

// in is the test "v is a member of s" under k.
func (s valueSet) in(k *bsonval.Collator) func(v bsoncore.Value) bool {
	return func(v bsoncore.Value) bool {
		_, ok := slices.BinarySearchFunc(s, v, k.Compare)
		return ok
	}
}

func setResult(s valueSet) bsoncore.Value {
	if s == nil {
		s = valueSet{}
	}
	return bsonval.Array(s)
}

func compileSetUnion(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	k := vars.Collator()
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		var all []bsoncore.Value
		null := false
		for _, a := range x {
			if Nullish(a) {
				null = true
				continue
			}
			if a.Type != bsoncore.TypeArray {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(17043), "All operands of $setUnion must be arrays. One argument is of type: %s", bsonval.TypeName(a.Type))
			}
			all = append(all, bsonval.ArrayValues(a)...)
		}
		if null {
			return bsonval.Null(), nil
		}
		return setResult(newValueSet(all, k)), nil
	})
}

func compileSetIntersection(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	k := vars.Collator()
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		var acc valueSet
		null, started := false, false
		for _, a := range x {
			if Nullish(a) {
				null = true
				continue
			}
			if a.Type != bsoncore.TypeArray {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(17047), "All operands of $setIntersection must be arrays. One argument is of type: %s", bsonval.TypeName(a.Type))
			}
			s := newValueSet(bsonval.ArrayValues(a), k)
			if !started {
				acc, started = s, true
				continue
			}
			acc = slices.DeleteFunc(acc, func(v bsoncore.Value) bool { return !s.in(k)(v) })
		}
		if null {
			return bsonval.Null(), nil
		}
		return setResult(acc), nil
	})
}

func compileSetDifference(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	k := vars.Collator()
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) || Nullish(x[1]) {
			return bsonval.Null(), nil
		}
		for i, which := range []string{"First", "Second"} {
			if x[i].Type != bsoncore.TypeArray {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(17048+int32(i)), "both operands of $setDifference must be arrays. %s argument is of type: %s", which, bsonval.TypeName(x[i].Type))
			}
		}
		a, b := newValueSet(bsonval.ArrayValues(x[0]), k), newValueSet(bsonval.ArrayValues(x[1]), k)
		return setResult(slices.DeleteFunc(a, b.in(k))), nil
	})
}

func compileSetEquals(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	k := vars.Collator()
	es, err := args(v, vars)
	if err != nil {
		return nil, err
	}
	if len(es) < 2 {
		return nil, mongoerr.New(mongoerr.Location(17045), "$setEquals needs at least two arguments had: %d", len(es))
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		x, err := evalAll(es, root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		var first valueSet
		equal := true
		for i, a := range x {
			if a.Type != bsoncore.TypeArray {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(5887502), "All operands of $setEquals must be arrays. %d-th argument is of type: %s", i+1, bsonval.TypeName(a.Type))
			}
			s := newValueSet(bsonval.ArrayValues(a), k)
			if i == 0 {
				first = s
				continue
			}
			if len(s) != len(first) {
				equal = false
				continue
			}
			for j := range s {
				if k.Compare(s[j], first[j]) != 0 {
					equal = false
				}
			}
		}
		return bsonval.Bool(equal), nil
	}}, nil
}

func compileSetIsSubset(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	k := vars.Collator()
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if x[0].Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(17046), "both operands of $setIsSubset must be arrays. First argument is of type: %s", bsonval.TypeName(x[0].Type))
		}
		if x[1].Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(17042), "both operands of $setIsSubset must be arrays. Second argument is of type: %s", bsonval.TypeName(x[1].Type))
		}
		has := newValueSet(bsonval.ArrayValues(x[1]), k).in(k)
		for _, e := range bsonval.ArrayValues(x[0]) {
			if !has(e) {
				return bsonval.Bool(false), nil
			}
		}
		return bsonval.Bool(true), nil
	})
}
