package expr

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/query"
)

// The comparison expression operators $cmp, $eq, $ne, $gt, $gte, $lt and
// $lte, and the boolean ones $and, $or and $not.

// compileCompare compares strings by the command's collation.
func compileCompare(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	k := vars.Collator()
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		c := k.Compare(x[0], x[1])
		switch op {
		case "$cmp":
			return bsonval.Int32(int32(c)), nil
		case "$eq":
			return bsonval.Bool(c == 0), nil
		case "$ne":
			return bsonval.Bool(c != 0), nil
		}
		return bsonval.Bool(query.CompareOK(op, c)), nil
	})
}

// compileAndOr is $and and $or, which stop at the first argument that
// decides the result.
func compileAndOr(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	es, err := args(v, vars)
	if err != nil {
		return nil, err
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		for _, e := range es {
			r, err := e.Eval(root, local)
			if err != nil {
				return bsonval.Missing, err
			}
			if op == "$and" && !bsonval.Truthy(r) {
				return bsonval.Bool(false), nil
			}
			if op == "$or" && bsonval.Truthy(r) {
				return bsonval.Bool(true), nil
			}
		}
		return bsonval.Bool(op == "$and"), nil
	}}, nil
}

func compileNot(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) { return bsonval.Bool(!bsonval.Truthy(x[0])), nil })
}
