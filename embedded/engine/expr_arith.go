package engine

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The arithmetic expression operators: $add, $multiply, $subtract,
// $divide, $mod, $abs, $ceil, $floor, $sqrt, $trunc, $round, $exp, $ln,
// $log10 and $pow, and the expression forms of $sum, $avg, $max and $min.
func init() {
	exprOps["$add"] = compileAddMultiply
	exprOps["$multiply"] = compileAddMultiply
	exprOps["$subtract"] = compileSubtract
	exprOps["$divide"] = compileDivMod
	exprOps["$mod"] = compileDivMod
	for _, op := range []string{"$abs", "$ceil", "$floor", "$sqrt", "$trunc", "$round", "$exp", "$ln", "$log10"} {
		exprOps[op] = compileUnaryMath
	}
	exprOps["$pow"] = compilePow
	for _, op := range []string{"$sum", "$avg", "$max", "$min"} {
		exprOps[op] = compileArrayAccumulator
	}
}

// compileAddMultiply is $add and $multiply over numbers; $add also takes
// one date, which makes the sum a date.
func compileAddMultiply(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, -1, func(vals []bsoncore.Value) (bsoncore.Value, error) {
		var acc bsoncore.Value
		date, ms := false, int64(0)
		if op == "$add" {
			acc = vInt32(0)
		} else {
			acc = vInt32(1)
		}
		for _, x := range vals {
			if nullish(x) {
				return vNull(), nil
			}
			if x.Type == bsoncore.TypeDateTime && op == "$add" {
				if date {
					return missing, mongoerr.New(mongoerr.Location(16612), "only one date allowed in an $add expression")
				}
				date, ms = true, x.DateTime()
				continue
			}
			if !isNumber(x) {
				return missing, mongoerr.New(mongoerr.TypeMismatch, "%s only supports numeric or date types, not %s", op, typeName(x.Type))
			}
			if op == "$add" {
				acc = arith('+', acc, x)
			} else {
				acc = arith('*', acc, x)
			}
		}
		if date {
			return dateShift(ms, acc), nil
		}
		return acc, nil
	})
}

// compileSubtract is $subtract: a number from a number, a date from a
// date (milliseconds) or milliseconds from a date.
func compileSubtract(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a, b := x[0], x[1]
		switch {
		case nullish(a) || nullish(b):
			return vNull(), nil
		case a.Type == bsoncore.TypeDateTime && b.Type == bsoncore.TypeDateTime:
			return vInt64(a.DateTime() - b.DateTime()), nil
		case a.Type == bsoncore.TypeDateTime && isNumber(b):
			return dateShift(a.DateTime(), negate(b)), nil
		case isNumber(a) && isNumber(b):
			return arith('+', a, negate(b)), nil
		}
		return missing, mongoerr.New(mongoerr.TypeMismatch, "can't $subtract %s from %s", typeName(b.Type), typeName(a.Type))
	})
}

// dateShift is the date ms moved by n milliseconds. A number that is not
// an integer is rounded to the nearest one (halves away from zero) first:
// the manual's rule for a date mixed with non-integers in $add and
// $subtract alike.
func dateShift(ms int64, n bsoncore.Value) bsoncore.Value {
	if i, ok := intOf(n); ok {
		return vDate(ms + i)
	}
	return vDate(ms + int64(math.Round(numberFloat(n))))
}

// compileDivMod is $divide and $mod.
func compileDivMod(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a, b := x[0], x[1]
		if nullish(a) || nullish(b) {
			return vNull(), nil
		}
		if !isNumber(a) || !isNumber(b) {
			return missing, mongoerr.New(mongoerr.TypeMismatch, "%s only supports numeric types, not %s and %s", op, typeName(a.Type), typeName(b.Type))
		}
		if numberFloat(b) == 0 {
			if op == "$divide" {
				return missing, mongoerr.New(mongoerr.BadValue, "can't $divide by zero")
			}
			return missing, mongoerr.New(mongoerr.Location(16610), "can't $mod by zero")
		}
		if op == "$divide" {
			return vDouble(numberFloat(a) / numberFloat(b)), nil
		}
		ai, aok := intOf(a)
		bi, bok := intOf(b)
		if aok && bok {
			r := ai % bi
			if a.Type == bsoncore.TypeInt32 && b.Type == bsoncore.TypeInt32 {
				return vInt32(int32(r)), nil
			}
			return vInt64(r), nil
		}
		return vDouble(math.Mod(numberFloat(a), numberFloat(b))), nil
	})
}

// compileUnaryMath is the operators of one number: $abs, $ceil, $floor,
// $sqrt, $trunc and $round (with an optional place), $exp, $ln and $log10.
func compileUnaryMath(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if len(x) == 0 || nullish(x[0]) {
			return vNull(), nil
		}
		a := x[0]
		if !isNumber(a) {
			return missing, mongoerr.New(mongoerr.Location(28765), "%s only supports numeric types, not %s", op, typeName(a.Type))
		}
		place := 0.0 // the decimal place of $round and $trunc
		if len(x) > 1 {
			place = numberFloat(x[1])
		}
		if i, ok := intOf(a); ok && op != "$sqrt" && op != "$exp" && op != "$ln" && op != "$log10" {
			if op == "$abs" && i < 0 {
				return intLike(a, -i), nil
			}
			if (op == "$round" || op == "$trunc") && place < 0 {
				return intLike(a, roundInt(i, int(-place), op == "$round")), nil
			}
			return a, nil
		}
		f := numberFloat(a)
		switch op {
		case "$abs":
			f = math.Abs(f)
		case "$ceil":
			f = math.Ceil(f)
		case "$floor":
			f = math.Floor(f)
		case "$sqrt":
			f = math.Sqrt(f)
		case "$trunc":
			m := math.Pow(10, place)
			f = math.Trunc(f*m) / m
		case "$round":
			m := math.Pow(10, place)
			f = math.RoundToEven(f*m) / m
		case "$exp":
			f = math.Exp(f)
		case "$ln":
			f = math.Log(f)
		case "$log10":
			f = math.Log10(f)
		}
		return vDouble(f), nil
	})
}

func compilePow(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if nullish(x[0]) || nullish(x[1]) {
			return vNull(), nil
		}
		r := math.Pow(numberFloat(x[0]), numberFloat(x[1]))
		_, ai := intOf(x[0])
		_, bi := intOf(x[1])
		if ai && bi && r == math.Trunc(r) && math.Abs(r) < 9e15 {
			return intValue(int64(r)), nil
		}
		return vDouble(r), nil
	})
}

// compileArrayAccumulator is the expression form of $sum, $avg, $max and
// $min: over its arguments, or over the elements of its one array
// argument.
func compileArrayAccumulator(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if len(x) == 1 && x[0].Type == bsoncore.TypeArray {
			x = arrayValues(x[0])
		}
		acc := newAccumulator(op)
		acc.coll = vars.collator()
		for _, e := range x {
			acc.add(e)
		}
		return acc.result(), nil
	})
}

func negate(v bsoncore.Value) bsoncore.Value {
	switch v.Type {
	case bsoncore.TypeInt32:
		return vInt64(-int64(v.Int32()))
	case bsoncore.TypeInt64:
		if v.Int64() == math.MinInt64 {
			return vDouble(-float64(v.Int64()))
		}
		return vInt64(-v.Int64())
	case bsoncore.TypeDouble:
		return vDouble(-v.Double())
	}
	r, _ := bigOf(v)
	if r == nil {
		return v
	}
	d, _ := bson.ParseDecimal128(r.Neg(r).FloatString(20))
	return decimalValue(trimDecimal(d))
}

// roundInt is i rounded (half to even) or truncated to a multiple of
// 10^digits, as $round and $trunc with a negative place do for integers.
func roundInt(i int64, digits int, round bool) int64 {
	if digits > 18 {
		return 0
	}
	m := int64(1)
	for range digits {
		m *= 10
	}
	q, r := i/m, i%m
	if round {
		sign := int64(1)
		if i < 0 {
			sign, r = -1, -r
		}
		if 2*r > m || (2*r == m && q%2 != 0) {
			q += sign
		}
	}
	return q * m
}

func intLike(like bsoncore.Value, i int64) bsoncore.Value {
	if like.Type == bsoncore.TypeInt32 && i <= math.MaxInt32 {
		return vInt32(int32(i))
	}
	return vInt64(i)
}
