package ejson

import (
	"math"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func parseDouble(v value) (float64, error) {
	if v.t == bsoncore.TypeDouble {
		return v.f, nil
	}
	if v.t != bsoncore.TypeString {
		return 0, typeErr(v, "a string as the value of $numberDouble")
	}
	switch string(v.s) {
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(unsafeString(v.s), 64)
	if err != nil {
		return 0, &Error{Offset: v.p, Found: "the $numberDouble " + shown(v.s), Expected: "a number within the range of a double, Infinity, -Infinity or NaN"}
	}
	return f, nil
}

func parseInt32(v value) (int32, error) {
	if v.t == bsoncore.TypeInt32 {
		return int32(v.i), nil
	}
	i, err := parseInt64Value(v, "$numberInt")
	if err != nil {
		return 0, err
	}
	if i < math.MinInt32 || i > math.MaxInt32 {
		return 0, &Error{Offset: v.p, Found: "the $numberInt " + shown(v.s), Expected: "an integer from -2147483648 to 2147483647"}
	}
	return int32(i), nil
}

func parseInt64Value(v value, wrapper string) (int64, error) {
	if v.t == bsoncore.TypeInt64 && wrapper == "$numberLong" {
		return v.i, nil
	}
	if v.t != bsoncore.TypeString {
		return 0, typeErr(v, "a string of an integer as the value of "+wrapper)
	}
	i, ok := parseInt64(v.s)
	if !ok {
		return 0, &Error{Offset: v.p, Found: "the " + wrapper + " " + shown(v.s), Expected: "a decimal integer from -9223372036854775808 to 9223372036854775807"}
	}
	return i, nil
}
