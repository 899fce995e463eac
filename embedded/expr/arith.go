package expr

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The arithmetic expression operators: $add, $multiply, $subtract,
// $divide, $mod, $abs, $ceil, $floor, $sqrt, $trunc, $round, $exp, $ln,
// $log10 and $pow, and the expression forms of $sum, $avg, $max and $min.

// compileAddMultiply is $add and $multiply over numbers; $add also takes
// one date, which makes the sum a date.
func compileAddMultiply(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, -1, func(vals []bsoncore.Value) (bsoncore.Value, error) {
		var acc bsoncore.Value
		date, ms := false, int64(0)
		if op == "$add" {
			acc = bsonval.Int32(0)
		} else {
			acc = bsonval.Int32(1)
		}
		for _, x := range vals {
			if Nullish(x) {
				return bsonval.Null(), nil
			}
			if x.Type == bsoncore.TypeDateTime && op == "$add" {
				if date {
					return bsonval.Missing, mongoerr.New(mongoerr.Location(16612), "only one date allowed in an $add expression")
				}
				date, ms = true, x.DateTime()
				continue
			}
			if !bsonval.IsNumber(x) {
				return bsonval.Missing, mongoerr.New(mongoerr.TypeMismatch, "%s only supports numeric or date types, not %s", op, bsonval.TypeName(x.Type))
			}
			if op == "$add" {
				acc = bsonval.Arith('+', acc, x)
			} else {
				acc = bsonval.Arith('*', acc, x)
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
func compileSubtract(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a, b := x[0], x[1]
		switch {
		case Nullish(a) || Nullish(b):
			return bsonval.Null(), nil
		case a.Type == bsoncore.TypeDateTime && b.Type == bsoncore.TypeDateTime:
			return bsonval.Int64(a.DateTime() - b.DateTime()), nil
		case a.Type == bsoncore.TypeDateTime && bsonval.IsNumber(b):
			return dateShift(a.DateTime(), negate(b)), nil
		case bsonval.IsNumber(a) && bsonval.IsNumber(b):
			return bsonval.Arith('+', a, negate(b)), nil
		}
		return bsonval.Missing, mongoerr.New(mongoerr.TypeMismatch, "can't $subtract %s from %s", bsonval.TypeName(b.Type), bsonval.TypeName(a.Type))
	})
}

// dateShift is the date ms moved by n milliseconds. A number that is not
// an integer is rounded to the nearest one (halves away from zero) first:
// the manual's rule for a date mixed with non-integers in $add and
// $subtract alike.
func dateShift(ms int64, n bsoncore.Value) bsoncore.Value {
	if i, ok := bsonval.IntOf(n); ok {
		return bsonval.DateTime(ms + i)
	}
	return bsonval.DateTime(ms + int64(math.Round(bsonval.NumberFloat(n))))
}

// compileDivMod is $divide and $mod.
func compileDivMod(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a, b := x[0], x[1]
		if Nullish(a) || Nullish(b) {
			return bsonval.Null(), nil
		}
		if !bsonval.IsNumber(a) || !bsonval.IsNumber(b) {
			return bsonval.Missing, mongoerr.New(mongoerr.TypeMismatch, "%s only supports numeric types, not %s and %s", op, bsonval.TypeName(a.Type), bsonval.TypeName(b.Type))
		}
		if bsonval.NumberFloat(b) == 0 {
			if op == "$divide" {
				return bsonval.Missing, mongoerr.New(mongoerr.BadValue, "can't $divide by zero")
			}
			return bsonval.Missing, mongoerr.New(mongoerr.Location(16610), "can't $mod by zero")
		}
		if op == "$divide" {
			return bsonval.Double(bsonval.NumberFloat(a) / bsonval.NumberFloat(b)), nil
		}
		ai, aok := bsonval.IntOf(a)
		bi, bok := bsonval.IntOf(b)
		if aok && bok {
			r := ai % bi
			if a.Type == bsoncore.TypeInt32 && b.Type == bsoncore.TypeInt32 {
				return bsonval.Int32(int32(r)), nil
			}
			return bsonval.Int64(r), nil
		}
		return bsonval.Double(math.Mod(bsonval.NumberFloat(a), bsonval.NumberFloat(b))), nil
	})
}

// compileUnaryMath is the operators of one number: $abs, $ceil, $floor,
// $sqrt, $trunc and $round (with an optional place), $exp, $ln and $log10.
func compileUnaryMath(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if len(x) == 0 || Nullish(x[0]) {
			return bsonval.Null(), nil
		}
		a := x[0]
		if !bsonval.IsNumber(a) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28765), "%s only supports numeric types, not %s", op, bsonval.TypeName(a.Type))
		}
		place := 0.0 // the decimal place of $round and $trunc
		if len(x) > 1 {
			place = bsonval.NumberFloat(x[1])
		}
		if i, ok := bsonval.IntOf(a); ok && op != "$sqrt" && op != "$exp" && op != "$ln" && op != "$log10" {
			if op == "$abs" && i < 0 {
				return intLike(a, -i), nil
			}
			if (op == "$round" || op == "$trunc") && place < 0 {
				return intLike(a, roundInt(i, int(-place), op == "$round")), nil
			}
			return a, nil
		}
		f := bsonval.NumberFloat(a)
		if op == "$trunc" || op == "$round" {
			m := math.Pow(10, place)
			return bsonval.Double(unaryMath[op](f*m) / m), nil
		}
		return bsonval.Double(unaryMath[op](f)), nil
	})
}

// unaryMath is the function of a double each operator of one number
// applies ($trunc and $round at the decimal place 0).
var unaryMath = map[string]func(float64) float64{
	"$abs": math.Abs, "$ceil": math.Ceil, "$floor": math.Floor, "$sqrt": math.Sqrt, "$trunc": math.Trunc,
	"$round": math.RoundToEven, "$exp": math.Exp, "$ln": math.Log, "$log10": math.Log10,
}

func compilePow(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) || Nullish(x[1]) {
			return bsonval.Null(), nil
		}
		r := math.Pow(bsonval.NumberFloat(x[0]), bsonval.NumberFloat(x[1]))
		_, ai := bsonval.IntOf(x[0])
		_, bi := bsonval.IntOf(x[1])
		if ai && bi && r == math.Trunc(r) && math.Abs(r) < 9e15 {
			return bsonval.Int(int64(r)), nil
		}
		return bsonval.Double(r), nil
	})
}

// compileArrayAccumulator is the expression form of $sum, $avg, $max and
// $min: over its arguments, or over the elements of its one array
// argument.
func compileArrayAccumulator(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if len(x) == 1 && x[0].Type == bsoncore.TypeArray {
			x = bsonval.ArrayValues(x[0])
		}
		acc := NewAccumulator(op)
		acc.Coll = vars.Collator()
		for _, e := range x {
			acc.Add(e)
		}
		return acc.Result(), nil
	})
}

func negate(v bsoncore.Value) bsoncore.Value {
	switch v.Type {
	case bsoncore.TypeInt32:
		return bsonval.Int64(-int64(v.Int32()))
	case bsoncore.TypeInt64:
		if v.Int64() == math.MinInt64 {
			return bsonval.Double(-float64(v.Int64()))
		}
		return bsonval.Int64(-v.Int64())
	case bsoncore.TypeDouble:
		return bsonval.Double(-v.Double())
	}
	r, _ := bsonval.BigOf(v)
	if r == nil {
		return v
	}
	d, _ := bson.ParseDecimal128(r.Neg(r).FloatString(20))
	return bsonval.Decimal(bsonval.TrimDecimal(d))
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
		return bsonval.Int32(int32(i))
	}
	return bsonval.Int64(i)
}
