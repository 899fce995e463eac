package expr

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The array expression operators that read an array's elements or
// join arrays: $isArray, $size, $arrayElemAt, $first, $last, $in and
// $concatArrays.

func compileIsArray(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		return bsonval.Bool(x[0].Type == bsoncore.TypeArray), nil
	})
}

func compileSize(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if x[0].Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(17124), "The argument to $size must be an array. Type of argument is %s", bsonval.TypeName(x[0].Type))
		}
		return bsonval.Int32(int32(len(bsonval.ArrayValues(x[0])))), nil
	})
}

// compileArrayElemAt is $arrayElemAt: [array, index], a negative index
// counted from the end; missing when out of range.
func compileArrayElemAt(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) || Nullish(x[1]) {
			return bsonval.Null(), nil
		}
		if x[0].Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28689), "$arrayElemAt's first argument must be an array, but is %s", bsonval.TypeName(x[0].Type))
		}
		vals := bsonval.ArrayValues(x[0])
		i := int(bsonval.NumberFloat(x[1]))
		if i < 0 {
			i += len(vals)
		}
		if i < 0 || i >= len(vals) {
			return bsonval.Missing, nil
		}
		return vals[i], nil
	})
}

// compileFirstLast is the expression forms of $first and $last: an
// array's first or last element, missing for an empty array.
func compileFirstLast(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) {
			return bsonval.Null(), nil
		}
		if x[0].Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28689), "%s's argument must be an array, but is %s", op, bsonval.TypeName(x[0].Type))
		}
		vals := bsonval.ArrayValues(x[0])
		if len(vals) == 0 {
			return bsonval.Missing, nil
		}
		if op == "$first" {
			return vals[0], nil
		}
		return vals[len(vals)-1], nil
	})
}

func compileIn(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	k := vars.Collator()
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if x[1].Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(40081), "$in requires an array as a second argument, found: %s", bsonval.TypeName(x[1].Type))
		}
		for _, e := range bsonval.ArrayValues(x[1]) {
			if k.Equal(e, x[0]) {
				return bsonval.Bool(true), nil
			}
		}
		return bsonval.Bool(false), nil
	})
}

func compileConcatArrays(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		var out []bsoncore.Value
		for _, a := range x {
			if Nullish(a) {
				return bsonval.Null(), nil
			}
			if a.Type != bsoncore.TypeArray {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(28664), "$concatArrays only supports arrays, not %s", bsonval.TypeName(a.Type))
			}
			out = append(out, bsonval.ArrayValues(a)...)
		}
		return bsonval.Array(out), nil
	})
}
