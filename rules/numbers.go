package rules

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Integral is the int64 that a BSON number equals, and true: an int32, an
// int64, or a double that holds a whole number in int64's range. The server
// compares numbers by value across these types, so 7, NumberLong(7) and 7.0
// are one _id to it; false for anything else.
func Integral(v bson.RawValue) (int64, bool) {
	switch v.Type {
	case bson.TypeInt32:
		i, ok := v.Int32OK()
		return int64(i), ok
	case bson.TypeInt64:
		return v.Int64OK()
	case bson.TypeDouble:
		f, ok := v.DoubleOK()
		if ok && f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return int64(f), true
		}
	}
	return 0, false
}
