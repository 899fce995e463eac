package expr

import (
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The data size and timestamp operators: $bsonSize, $binarySize,
// $tsSecond and $tsIncrement, each of one argument and null for null or
// missing; and $rand.

// compileBSONSize is a document's size in bytes encoded as BSON, an int.
func compileBSONSize(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a := x[0]
		if Nullish(a) {
			return bsonval.Null(), nil
		}
		if a.Type != bsoncore.TypeEmbeddedDocument {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(31393), "$bsonSize requires a document input, found: %s", bsonval.TypeName(a.Type))
		}
		return bsonval.Int32(int32(len(a.Data))), nil
	})
}

// compileBinarySize is the size in bytes of a string (UTF-8) or of binary
// data's content, an int.
func compileBinarySize(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a := x[0]
		switch {
		case Nullish(a):
			return bsonval.Null(), nil
		case a.Type == bsoncore.TypeString:
			return bsonval.Int32(int32(len(a.StringValue()))), nil
		case a.Type == bsoncore.TypeBinary:
			_, data := a.Binary()
			return bsonval.Int32(int32(len(data))), nil
		}
		return bsonval.Missing, mongoerr.New(mongoerr.Location(51276), "$binarySize requires a string or BinData argument, found: %s", bsonval.TypeName(a.Type))
	})
}

// compileTimestampPart is a timestamp's seconds ($tsSecond) or increment
// ($tsIncrement), a long.
func compileTimestampPart(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	code := int32(5687301)
	if op == "$tsIncrement" {
		code = 5687302
	}
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a := x[0]
		if Nullish(a) {
			return bsonval.Null(), nil
		}
		if a.Type != bsoncore.TypeTimestamp {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(code), "Argument to %s must be a timestamp, but is %s", op, bsonval.TypeName(a.Type))
		}
		t, i := a.Timestamp()
		if op == "$tsSecond" {
			return bsonval.Int64(int64(t)), nil
		}
		return bsonval.Int64(int64(i)), nil
	})
}

// compileRand is $rand: a double from 0 up to 1.
func compileRand(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return &Expr{Eval: func(bsoncore.Document, map[string]bsoncore.Value) (bsoncore.Value, error) {
		return bsonval.Double(rand.Float64()), nil
	}}, nil
}
