package engine

import (
	"context"
	"errors"
	"math"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func dec(t *testing.T, s string) bson.Decimal128 {
	t.Helper()
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// mathDoc is the document the math operators are evaluated on: each
// numeric type, NaN, the infinities and values of other types.
func mathDoc(t *testing.T) bson.D {
	return bson.D{
		{Key: "i", Value: int32(5)},
		{Key: "l", Value: int64(23)},
		{Key: "d", Value: 0.5},
		{Key: "dec", Value: dec(t, "0.5")},
		{Key: "nan", Value: math.NaN()},
		{Key: "inf", Value: math.Inf(1)},
		{Key: "ninf", Value: math.Inf(-1)},
		{Key: "dnan", Value: dec(t, "NaN")},
		{Key: "dinf", Value: dec(t, "-Infinity")},
		{Key: "s", Value: "abc"},
		{Key: "n", Value: nil},
		{Key: "b", Value: true},
		{Key: "arr", Value: bson.A{1, 2}},
		{Key: "obj", Value: bson.D{{Key: "a", Value: 1}}},
	}
}

// $log on the manual's examples, its domain and its errors.
func TestLogExpr(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("log")
	bitsNeeded := op("$floor", op("$add", bson.A{1, op("$log", bson.A{"$i", 2})}))
	checkExprs(t, coll, mathDoc(t), []exprCase{
		{expr: op("$log", bson.A{100, 10}), want: `{"x":2.0}`},
		{expr: op("$log", bson.A{100, math.E}), want: `{"x":4.605170185988092}`},
		// the manual's bits needed for 5 (the document's i)
		{expr: bitsNeeded, want: `{"x":3.0}`},
		{expr: op("$floor", op("$add", bson.A{1, op("$log", bson.A{"$l", 2})})), want: `{"x":5.0}`},
		{expr: op("$floor", op("$add", bson.A{1, op("$log", bson.A{2, 2})})), want: `{"x":2.0}`},
		{expr: op("$floor", op("$add", bson.A{1, op("$log", bson.A{10, 2})})), want: `{"x":4.0}`},
		{expr: op("$log", bson.A{int64(8), int64(2)}), want: `{"x":3.0}`},
		{expr: op("$log", bson.A{dec(t, "100"), 10}), want: `{"x":{"$numberDecimal":"2"}}`},
		{expr: op("$log", bson.A{"$inf", 10}), want: `{"x":{"$numberDouble":"Infinity"}}`},
		// null, missing, NaN
		{expr: op("$log", bson.A{"$n", 10}), want: `{"x":null}`},
		{expr: op("$log", bson.A{10, "$nope"}), want: `{"x":null}`},
		{expr: op("$log", bson.A{"$nan", 10}), want: `{"x":{"$numberDouble":"NaN"}}`},
		{expr: op("$log", bson.A{10, "$nan"}), want: `{"x":{"$numberDouble":"NaN"}}`},
		{expr: op("$log", bson.A{"$dnan", 10}), want: `{"x":{"$numberDecimal":"NaN"}}`},
		{expr: op("$log", bson.A{-1, "$s"}), code: 28757},
		// errors
		{expr: op("$log", bson.A{"$s", 10}), code: 28756, msg: "$log's argument must be numeric, not string"},
		{expr: op("$log", bson.A{10, "$b"}), code: 28757, msg: "$log's base must be numeric, not bool"},
		{expr: op("$log", bson.A{0, 10}), code: 28758, msg: "$log's argument must be a positive number, but is 0"},
		{expr: op("$log", bson.A{-2.5, 10}), code: 28758, msg: "but is -2.5"},
		{expr: op("$log", bson.A{"$ninf", 10}), code: 28758},
		{expr: op("$log", bson.A{dec(t, "-1"), 10}), code: 28758},
		{expr: op("$log", bson.A{10, 1}), code: 28759, msg: "$log's base must be a positive number not equal to 1, but is 1"},
		{expr: op("$log", bson.A{10, 0}), code: 28759},
		{expr: op("$log", bson.A{10, -10}), code: 28759},
		{expr: op("$log", bson.A{10}), code: 16020},
		{expr: op("$log", 10), code: 16020},
		{expr: op("$log", bson.A{10, 10, 10}), code: 16020},
	})
}

// The trigonometric operators on the manual's examples, their domains,
// NaN, infinities, null and wrong types.
func TestTrigExprs(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("trig")
	doc := append(mathDoc(t),
		bson.E{Key: "angle_a", Value: dec(t, "53.13010235415597870314438744090659")},
		bson.E{Key: "angle_c", Value: dec(t, "90")},
		bson.E{Key: "side_a", Value: 3.0},
		bson.E{Key: "side_b", Value: 4.0},
		bson.E{Key: "hypotenuse", Value: 5.0},
	)
	deg := func(e any) bson.D { return op("$radiansToDegrees", e) }
	checkExprs(t, coll, doc, []exprCase{
		// the manual's right triangle with sides 3, 4 and 5: the angle
		// next to side_a is 36.869897645844021... degrees, the other
		// 53.130102354155978...
		{expr: deg(op("$acos", op("$divide", bson.A{"$side_b", "$hypotenuse"}))), want: `{"x":36.86989764584401}`},
		{expr: deg(op("$asin", op("$divide", bson.A{"$side_a", "$hypotenuse"}))), want: `{"x":36.86989764584401}`},
		{expr: deg(op("$atan", op("$divide", bson.A{"$side_b", "$side_a"}))), want: `{"x":53.13010235415598}`},
		{expr: deg(op("$atan2", bson.A{"$side_b", "$side_a"})), want: `{"x":53.13010235415598}`},
		{expr: op("$multiply", bson.A{op("$sin", 0.9272952180016122), "$hypotenuse"}), want: `{"x":3.9999999999999996}`},
		{expr: op("$multiply", bson.A{op("$cos", 0.9272952180016122), "$hypotenuse"}), want: `{"x":3.0000000000000004}`},
		{expr: op("$tan", 0.4636476090008061), want: `{"x":0.5}`},
		// the manual's $degreesToRadians of its decimal angles
		{expr: op("$degreesToRadians", "$angle_c"), want: `{"x":{"$numberDecimal":"1.570796326794896619231321691639751"}}`},
		{expr: op("$degreesToRadians", "$angle_a"), want: `{"x":{"$numberDecimal":"0.9272952180016122324285124629224288"}}`},
		{expr: op("$radiansToDegrees", dec(t, "1.570796326794896619231321691639751")), want: `{"x":{"$numberDecimal":"89.99999999999999999999999999999997"}}`},
		{expr: op("$degreesToRadians", 180), want: `{"x":3.141592653589793}`},
		{expr: op("$radiansToDegrees", int64(1)), want: `{"x":57.29577951308232}`},
		{expr: op("$degreesToRadians", "$inf"), want: `{"x":{"$numberDouble":"Infinity"}}`},
		{expr: op("$radiansToDegrees", "$ninf"), want: `{"x":{"$numberDouble":"-Infinity"}}`},
		{expr: op("$degreesToRadians", "$nan"), want: `{"x":{"$numberDouble":"NaN"}}`},
		{expr: op("$radiansToDegrees", "$dinf"), want: `{"x":{"$numberDecimal":"-Infinity"}}`},
		{expr: op("$degreesToRadians", dec(t, "0")), want: `{"x":{"$numberDecimal":"0"}}`},
		{expr: op("$degreesToRadians", "$s"), code: 28765, msg: "$degreesToRadians only supports numeric types, not string"},
		{expr: op("$radiansToDegrees", "$n"), want: `{"x":null}`},
		// ints, longs, doubles give doubles; a decimal gives a decimal
		{expr: op("$sin", 0), want: `{"x":0.0}`},
		{expr: op("$cos", int64(0)), want: `{"x":1.0}`},
		{expr: op("$cos", dec(t, "0")), want: `{"x":{"$numberDecimal":"1"}}`},
		{expr: op("$asin", "$dec"), want: `{"x":{"$numberDecimal":"0.5235987755982989"}}`},
		{expr: op("$acos", "$d"), want: `{"x":1.0471975511965976}`},
		{expr: op("$acos", 1), want: `{"x":0.0}`},
		{expr: op("$acos", -1), want: `{"x":3.141592653589793}`},
		{expr: op("$atan", "$inf"), want: `{"x":1.5707963267948966}`},
		{expr: op("$sinh", 0), want: `{"x":0.0}`},
		{expr: op("$sinh", "$ninf"), want: `{"x":{"$numberDouble":"-Infinity"}}`},
		{expr: op("$cosh", 0), want: `{"x":1.0}`},
		{expr: op("$cosh", "$inf"), want: `{"x":{"$numberDouble":"Infinity"}}`},
		{expr: op("$tanh", "$inf"), want: `{"x":1.0}`},
		{expr: op("$asinh", 0), want: `{"x":0.0}`},
		{expr: op("$acosh", 1), want: `{"x":0.0}`},
		{expr: op("$acosh", "$inf"), want: `{"x":{"$numberDouble":"Infinity"}}`},
		{expr: op("$atanh", "$d"), want: `{"x":0.5493061443340548}`},
		{expr: op("$atanh", 1), want: `{"x":{"$numberDouble":"Infinity"}}`},
		{expr: op("$atanh", -1), want: `{"x":{"$numberDouble":"-Infinity"}}`},
		{expr: op("$atan2", bson.A{1, 0}), want: `{"x":1.5707963267948966}`},
		{expr: op("$atan2", bson.A{0, -1}), want: `{"x":3.141592653589793}`},
		{expr: op("$atan2", bson.A{dec(t, "1"), 1}), want: `{"x":{"$numberDecimal":"0.7853981633974483"}}`},
		{expr: op("$atan2", bson.A{"$inf", "$inf"}), want: `{"x":0.7853981633974483}`},
		{expr: op("$sin", bson.A{0}), want: `{"x":0.0}`},
		// NaN gives NaN, inside a domain or not
		{expr: op("$sin", "$nan"), want: `{"x":{"$numberDouble":"NaN"}}`},
		{expr: op("$acos", "$nan"), want: `{"x":{"$numberDouble":"NaN"}}`},
		{expr: op("$acosh", "$dnan"), want: `{"x":{"$numberDecimal":"NaN"}}`},
		{expr: op("$atan2", bson.A{"$nan", 1}), want: `{"x":{"$numberDouble":"NaN"}}`},
		// null and missing
		{expr: op("$sin", nil), want: `{"x":null}`},
		{expr: op("$tanh", "$nope"), want: `{"x":null}`},
		{expr: op("$atan2", bson.A{"$n", 1}), want: `{"x":null}`},
		{expr: op("$atan2", bson.A{1, "$nope"}), want: `{"x":null}`},
		// outside the domains
		{expr: op("$sin", "$inf"), code: 50989, msg: "cannot apply $sin to inf, value must in (-inf,inf)"},
		{expr: op("$cos", "$ninf"), code: 50989, msg: "cannot apply $cos to -inf"},
		{expr: op("$tan", "$dinf"), code: 50989, msg: "cannot apply $tan to -Infinity"},
		{expr: op("$acos", "$ninf"), code: 50989, msg: "cannot apply $acos to -inf, value must in [-1,1]"},
		{expr: op("$acos", 1.5), code: 50989, msg: "cannot apply $acos to 1.5, value must in [-1,1]"},
		{expr: op("$asin", -2), code: 50989, msg: "cannot apply $asin to -2, value must in [-1,1]"},
		{expr: op("$asin", dec(t, "1.0000000001")), code: 50989},
		{expr: op("$atanh", int64(2)), code: 50989},
		{expr: op("$acosh", 0.5), code: 50989, msg: "cannot apply $acosh to 0.5, value must in [1,inf]"},
		// wrong types and counts
		{expr: op("$sin", "$s"), code: 28765, msg: "$sin only supports numeric types, not string"},
		{expr: op("$acosh", "$b"), code: 28765, msg: "$acosh only supports numeric types, not bool"},
		{expr: op("$cos", "$arr"), code: 28765, msg: "not array"},
		{expr: op("$tan", "$obj"), code: 28765},
		{expr: op("$atan2", bson.A{"$s", 1}), code: 51044, msg: "$atan2 only supports numeric types, not string"},
		{expr: op("$atan2", bson.A{1, "$b"}), code: 51045, msg: "$atan2 only supports numeric types, not bool"},
		{expr: op("$atan2", bson.A{1}), code: 16020},
		{expr: op("$sin", bson.A{1, 2}), code: 16020},
		{expr: op("$degreesToRadians", bson.A{}), code: 16020},
	})
}

// The bitwise operators on the manual's switches and their edge cases.
func TestBitwiseExprs(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("bits")
	doc := bson.D{
		{Key: "a", Value: int32(3)}, {Key: "b", Value: int32(5)},
		{Key: "l", Value: int64(63)}, {Key: "neg", Value: int32(-1)},
		{Key: "big", Value: int64(math.MaxInt64)}, {Key: "min", Value: int32(math.MinInt32)},
		{Key: "d", Value: 3.0}, {Key: "dec", Value: dec(t, "3")},
		{Key: "s", Value: "x"}, {Key: "n", Value: nil}, {Key: "t", Value: true},
	}
	checkExprs(t, coll, doc, []exprCase{
		// the manual's switches { a: 3, b: 5 }
		{expr: op("$bitAnd", bson.A{"$a", "$b"}), want: `{"x":1}`},
		{expr: op("$bitAnd", bson.A{"$a", "$l"}), want: `{"x":3}`},
		{expr: op("$bitOr", bson.A{"$a", "$b"}), want: `{"x":7}`},
		{expr: op("$bitOr", bson.A{"$a", "$l"}), want: `{"x":63}`},
		{expr: op("$bitXor", bson.A{"$a", "$b"}), want: `{"x":6}`},
		{expr: op("$bitXor", bson.A{"$a", "$l"}), want: `{"x":60}`},
		{expr: op("$bitNot", "$a"), want: `{"x":-4}`},
		{expr: op("$bitNot", "$l"), want: `{"x":-64}`},
		// the other switches { a: 0, b: 127 }, { a: 2, b: 3 }
		{expr: op("$bitAnd", bson.A{int32(0), int32(127)}), want: `{"x":0}`},
		{expr: op("$bitAnd", bson.A{int32(2), int32(3)}), want: `{"x":2}`},
		{expr: op("$bitAnd", bson.A{int32(2), int64(63)}), want: `{"x":2}`},
		// an int is sign-extended when mixed with a long
		{expr: op("$bitAnd", bson.A{"$neg", "$big"}), want: `{"x":9223372036854775807}`},
		{expr: op("$bitOr", bson.A{"$min", int64(0)}), want: `{"x":-2147483648}`},
		{expr: op("$bitNot", "$min"), want: `{"x":2147483647}`},
		{expr: op("$bitNot", "$big"), want: `{"x":-9223372036854775808}`},
		// the result's type: long when any operand is a long
		{expr: op("$type", op("$bitAnd", bson.A{"$a", "$l"})), want: `{"x":"long"}`},
		{expr: op("$type", op("$bitOr", bson.A{"$a", "$b"})), want: `{"x":"int"}`},
		{expr: op("$type", op("$bitXor", bson.A{int64(1), int64(1)})), want: `{"x":"long"}`},
		{expr: op("$type", op("$bitNot", "$l")), want: `{"x":"long"}`},
		{expr: op("$type", op("$bitNot", "$a")), want: `{"x":"int"}`},
		{expr: op("$type", op("$bitAnd", bson.A{})), want: `{"x":"int"}`},
		// one operand, none
		{expr: op("$bitAnd", "$a"), want: `{"x":3}`},
		{expr: op("$bitAnd", bson.A{}), want: `{"x":-1}`},
		{expr: op("$bitOr", bson.A{}), want: `{"x":0}`},
		{expr: op("$bitXor", bson.A{}), want: `{"x":0}`},
		{expr: op("$bitXor", bson.A{"$a", "$a", "$a"}), want: `{"x":3}`},
		// null and missing
		{expr: op("$bitAnd", bson.A{"$a", "$n"}), want: `{"x":null}`},
		{expr: op("$bitOr", bson.A{"$nope", "$a"}), want: `{"x":null}`},
		{expr: op("$bitXor", bson.A{nil}), want: `{"x":null}`},
		{expr: op("$bitNot", "$n"), want: `{"x":null}`},
		{expr: op("$bitNot", "$nope"), want: `{"x":null}`},
		// only ints and longs
		{expr: op("$bitAnd", bson.A{"$a", "$d"}), code: 14, msg: "$bitAnd only supports int and long operands."},
		{expr: op("$bitOr", bson.A{"$dec", "$a"}), code: 14, msg: "$bitOr only supports int and long operands."},
		{expr: op("$bitXor", bson.A{"$a", "$s"}), code: 14},
		{expr: op("$bitAnd", bson.A{"$t", 1}), code: 14},
		{expr: op("$bitNot", "$d"), code: 14, msg: "$bitNot only supports int and long, not: double."},
		{expr: op("$bitNot", "$dec"), code: 14, msg: "not: decimal."},
		{expr: op("$bitNot", "$s"), code: 28765, msg: "$bitNot only supports numeric types, not string"},
		{expr: op("$bitNot", bson.A{1, 2}), code: 16020},
	})
}

// Every operator of expr_math.go and expr_misc.go on values of every kind,
// alone and (for those of two or more operands) in pairs, answers (a value or an error) without failing the
// server.
func TestMathMiscExprsAnyInput(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("anyin")
	vals := bson.A{nil, true, "s", int32(0), int32(-1), int32(math.MinInt32), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, math.Copysign(0, -1), 1e308, -1e-320, math.NaN(), math.Inf(1), math.Inf(-1),
		dec(t, "NaN"), dec(t, "-Infinity"), dec(t, "9.999999999999999999999999999999999E+6144"), dec(t, "-1E-6176"), dec(t, "0E+300"),
		bson.A{1}, bson.D{{Key: "a", Value: 1}}, bson.Timestamp{T: 1, I: 2}, bson.Binary{Data: []byte{1}},
		bson.DateTime(0), bson.NewObjectID(), bson.Regex{Pattern: "a"}, bson.MinKey{}, bson.MaxKey{}}
	ops := []string{"$log", "$sin", "$cos", "$tan", "$asin", "$acos", "$atan", "$atan2", "$sinh", "$cosh", "$tanh",
		"$asinh", "$acosh", "$atanh", "$degreesToRadians", "$radiansToDegrees", "$bitAnd", "$bitOr", "$bitXor", "$bitNot",
		"$bsonSize", "$binarySize", "$tsSecond", "$tsIncrement"}
	binary := map[string]bool{"$log": true, "$atan2": true, "$bitAnd": true, "$bitOr": true, "$bitXor": true}
	ctx := context.Background()
	var fields bson.D
	for i, v := range vals {
		fields = append(fields, bson.E{Key: "v" + strconv.Itoa(i), Value: v})
	}
	if _, err := coll.InsertOne(ctx, fields); err != nil {
		t.Fatal(err)
	}
	for _, name := range ops {
		var exprs bson.D
		for i := range vals {
			exprs = append(exprs, bson.E{Key: "a" + strconv.Itoa(i), Value: op(name, bson.A{"$v" + strconv.Itoa(i)})})
			if !binary[name] {
				continue
			}
			for j := range vals {
				exprs = append(exprs, bson.E{Key: "b" + strconv.Itoa(i) + "_" + strconv.Itoa(j),
					Value: op(name, bson.A{"$v" + strconv.Itoa(i), "$v" + strconv.Itoa(j)})})
			}
		}
		for _, e := range exprs {
			cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "x", Value: e.Value}}}}})
			if err == nil {
				err = cur.All(ctx, &[]bson.Raw{})
			}
			var se mongo.ServerError
			if err != nil && !errors.As(err, &se) {
				t.Fatalf("%s %v: %v", name, e.Value, err)
			}
		}
	}
}

// $add and $subtract of a date and a number that is not an integer round
// the number to the nearest millisecond first, as the manual says of
// both ("When mixing Date and non-integer operands").
func TestDateArithmeticRounds(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("datearith")
	doc := bson.D{{Key: "date", Value: bson.DateTime(1000)}}
	at := func(ms int64) string { return dateX(bson.DateTime(ms)) }
	checkExprs(t, coll, doc, []exprCase{
		{expr: op("$add", bson.A{"$date", 1.6}), want: at(1002)},
		{expr: op("$add", bson.A{"$date", 1.4}), want: at(1001)},
		{expr: op("$add", bson.A{"$date", -1.6}), want: at(998)},
		{expr: op("$add", bson.A{1.5, "$date"}), want: at(1002)},
		{expr: op("$add", bson.A{"$date", dec(t, "2.7")}), want: at(1003)},
		{expr: op("$add", bson.A{"$date", int64(5)}), want: at(1005)},
		{expr: op("$subtract", bson.A{"$date", 1.6}), want: at(998)},
		{expr: op("$subtract", bson.A{"$date", 1.4}), want: at(999)},
		{expr: op("$subtract", bson.A{"$date", 0.5}), want: at(999)},
		{expr: op("$subtract", bson.A{"$date", -1.6}), want: at(1002)},
		{expr: op("$subtract", bson.A{"$date", dec(t, "2.7")}), want: at(997)},
		{expr: op("$subtract", bson.A{"$date", int32(5)}), want: at(995)},
	})
}
