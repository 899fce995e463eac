package expr

import (
	"math"
	"math/big"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The arithmetic operators beyond arith.go's ($log), the trigonometric
// operators and the bitwise operators.
//
// Trigonometry takes any number and gives a double, or a decimal for a
// decimal argument. A decimal's sine, cosine and so on are computed in
// double precision and given back as a decimal (about 16 significant
// digits, not the 34 a decimal holds); $degreesToRadians and
// $radiansToDegrees convert decimals at full decimal precision.

// trigBound is the domain a trigonometric operator accepts: lo..hi, each
// end open or closed. Outside it the operator fails with code 50989.
type trigBound struct {
	lo, hi         float64
	loOpen, hiOpen bool
}

func (b trigBound) has(f float64) bool {
	if f < b.lo || f > b.hi {
		return false
	}
	if f == b.lo && b.loOpen || f == b.hi && b.hiOpen {
		return false
	}
	return true
}

func (b trigBound) String() string {
	end := func(f float64) string {
		switch {
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s := "["
	if b.loOpen {
		s = "("
	}
	s += end(b.lo) + "," + end(b.hi)
	if b.hiOpen {
		return s + ")"
	}
	return s + "]"
}

var (
	finite   = trigBound{math.Inf(-1), math.Inf(1), true, true}
	anyValue = trigBound{math.Inf(-1), math.Inf(1), false, false}
	unit     = trigBound{-1, 1, false, false}
)

var trigFuncs = map[string]struct {
	f     func(float64) float64
	bound trigBound
}{
	"$sin":   {math.Sin, finite},
	"$cos":   {math.Cos, finite},
	"$tan":   {math.Tan, finite},
	"$asin":  {math.Asin, unit},
	"$acos":  {math.Acos, unit},
	"$atan":  {math.Atan, anyValue},
	"$sinh":  {math.Sinh, anyValue},
	"$cosh":  {math.Cosh, anyValue},
	"$tanh":  {math.Tanh, anyValue},
	"$asinh": {math.Asinh, anyValue},
	"$acosh": {math.Acosh, trigBound{1, math.Inf(1), false, false}},
	"$atanh": {math.Atanh, unit},
}

// numText is a number as the server writes it in error messages.
func numText(v bsoncore.Value) string {
	switch v.Type {
	case bsoncore.TypeDouble:
		f := v.Double()
		switch {
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		case math.IsNaN(f):
			return "nan"
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case bsoncore.TypeDecimal128:
		h, l := v.Decimal128()
		return bson.NewDecimal128(h, l).String()
	}
	return bsonval.Text(v)
}

// floatDecimal is f as a decimal value.
func floatDecimal(f float64) bsoncore.Value {
	var s string
	switch {
	case math.IsNaN(f):
		s = "NaN"
	case math.IsInf(f, 1):
		s = "Infinity"
	case math.IsInf(f, -1):
		s = "-Infinity"
	default:
		s = strconv.FormatFloat(f, 'g', -1, 64)
	}
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		d, _ = bson.ParseDecimal128("NaN")
	}
	return bsonval.Decimal(d)
}

// numResult is f as a decimal when like is one, else as a double.
func numResult(like bsoncore.Value, f float64) bsoncore.Value {
	if like.Type == bsoncore.TypeDecimal128 {
		return floatDecimal(f)
	}
	return bsonval.Double(f)
}

// isNaNValue reports a double or decimal NaN.
func isNaNValue(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeDouble:
		return math.IsNaN(v.Double())
	case bsoncore.TypeDecimal128:
		_, s := bsonval.BigOf(v)
		return math.IsNaN(s)
	}
	return false
}

// numericArg is the check of the one-number operators: null for null or
// missing, code 28765 for anything but a number.
func numericArg(op string, a bsoncore.Value) (null bool, err error) {
	if Nullish(a) {
		return true, nil
	}
	if !bsonval.IsNumber(a) {
		return false, mongoerr.New(mongoerr.Location(28765), "%s only supports numeric types, not %s", op, bsonval.TypeName(a.Type))
	}
	return false, nil
}

func compileTrig(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	fn := trigFuncs[op]
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a := x[0]
		if null, err := numericArg(op, a); null || err != nil {
			return bsonval.Null(), err
		}
		if isNaNValue(a) {
			return a, nil
		}
		f := bsonval.NumberFloat(a)
		if !fn.bound.has(f) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(50989), "cannot apply %s to %s, value must in %s", op, numText(a), fn.bound)
		}
		return numResult(a, fn.f(f)), nil
	})
}

// compileAtan2 is {$atan2: [y, x]}: the angle of the point (x, y).
func compileAtan2(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		y, xx := x[0], x[1]
		if Nullish(y) || Nullish(xx) {
			return bsonval.Null(), nil
		}
		if !bsonval.IsNumber(y) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(51044), "%s only supports numeric types, not %s", op, bsonval.TypeName(y.Type))
		}
		if !bsonval.IsNumber(xx) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(51045), "%s only supports numeric types, not %s", op, bsonval.TypeName(xx.Type))
		}
		r := math.Atan2(bsonval.NumberFloat(y), bsonval.NumberFloat(xx))
		if y.Type == bsoncore.TypeDecimal128 || xx.Type == bsoncore.TypeDecimal128 {
			return floatDecimal(r), nil
		}
		return bsonval.Double(r), nil
	})
}

// piText is π to more digits than a decimal holds.
const piText = "3.14159265358979323846264338327950288419716939937510582097494459"

func compileAngle(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a := x[0]
		if null, err := numericArg(op, a); null || err != nil {
			return bsonval.Null(), err
		}
		if a.Type == bsoncore.TypeDecimal128 {
			r, _ := bsonval.BigOf(a)
			if r == nil || r.Sign() == 0 {
				return a, nil // NaN, infinities and zero convert to themselves
			}
			pi, _, _ := big.ParseFloat(piText, 10, 256, big.ToNearestEven)
			f := new(big.Float).SetPrec(256).SetRat(r)
			k := new(big.Float).SetPrec(256)
			if op == "$degreesToRadians" {
				k.Quo(pi, big.NewFloat(180))
			} else {
				k.Quo(big.NewFloat(180), pi)
			}
			f.Mul(f, k)
			d, err := bson.ParseDecimal128(f.Text('e', 33))
			if err != nil {
				g, _ := f.Float64()
				return floatDecimal(g), nil
			}
			return bsonval.Decimal(d), nil
		}
		f := bsonval.NumberFloat(a)
		if op == "$degreesToRadians" {
			return bsonval.Double(f * (math.Pi / 180)), nil
		}
		return bsonval.Double(f * (180 / math.Pi)), nil
	})
}

// compileLog is {$log: [number, base]}.
func compileLog(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		n, b := x[0], x[1]
		if Nullish(n) || Nullish(b) {
			return bsonval.Null(), nil
		}
		if !bsonval.IsNumber(n) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28756), "$log's argument must be numeric, not %s", bsonval.TypeName(n.Type))
		}
		if !bsonval.IsNumber(b) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28757), "$log's base must be numeric, not %s", bsonval.TypeName(b.Type))
		}
		like := bsonval.Double(0)
		if n.Type == bsoncore.TypeDecimal128 || b.Type == bsoncore.TypeDecimal128 {
			like = vDecimalZero()
		}
		if isNaNValue(n) || isNaNValue(b) {
			return numResult(like, math.NaN()), nil
		}
		nf, bf := bsonval.NumberFloat(n), bsonval.NumberFloat(b)
		if !(nf > 0) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28758), "$log's argument must be a positive number, but is %s", numText(n))
		}
		if !(bf > 0) || bf == 1 {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28759), "$log's base must be a positive number not equal to 1, but is %s", numText(b))
		}
		return numResult(like, math.Log(nf)/math.Log(bf)), nil
	})
}

func vDecimalZero() bsoncore.Value {
	d, _ := bson.ParseDecimal128("0")
	return bsonval.Decimal(d)
}

// compileBitwise is $bitAnd, $bitOr and $bitXor over ints and longs: an
// int result when every operand is an int, else a long.
func compileBitwise(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		var acc int64
		if op == "$bitAnd" {
			acc = -1
		}
		long := false
		for _, a := range x {
			if Nullish(a) {
				return bsonval.Null(), nil
			}
			i, ok := bsonval.IntOf(a)
			if !ok {
				return bsonval.Missing, mongoerr.New(mongoerr.TypeMismatch, "%s only supports int and long operands.", op)
			}
			long = long || a.Type == bsoncore.TypeInt64
			switch op {
			case "$bitAnd":
				acc &= i
			case "$bitOr":
				acc |= i
			default:
				acc ^= i
			}
		}
		if long {
			return bsonval.Int64(acc), nil
		}
		return bsonval.Int32(int32(acc)), nil
	})
}

func compileBitNot(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a := x[0]
		if null, err := numericArg(op, a); null || err != nil {
			return bsonval.Null(), err
		}
		switch a.Type {
		case bsoncore.TypeInt32:
			return bsonval.Int32(^a.Int32()), nil
		case bsoncore.TypeInt64:
			return bsonval.Int64(^a.Int64()), nil
		}
		return bsonval.Missing, mongoerr.New(mongoerr.TypeMismatch, "%s only supports int and long, not: %s.", op, bsonval.TypeName(a.Type))
	})
}
