package expr

import (
	"math"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The type expression operators: $type, $isNumber, $toString, $toInt,
// $toLong, $toDouble, $toDecimal, $toBool, $toDate, $toObjectId and
// $convert.

func compileType(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		return bsonval.String(bsonval.TypeName(x[0].Type)), nil
	})
}

func compileIsNumber(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) { return bsonval.Bool(bsonval.IsNumber(x[0])), nil })
}

func compileToString(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) {
			return bsonval.Null(), nil
		}
		return bsonval.String(bsonval.Text(x[0])), nil
	})
}

// compileToType is $toInt, $toLong, $toDouble, $toDecimal, $toBool,
// $toDate and $toObjectId: convert to the type the name ends with.
func compileToType(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) { return convert(x[0], op[3:]) })
}

// compileConvert is $convert: {input, to, onError, onNull}.
func compileConvert(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	args, err := namedArgs(v, vars, nil, func() error {
		return mongoerr.New(mongoerr.FailedToParse, "$convert expects an object of named arguments but found: %s", bsonval.TypeName(v.Type))
	}, func(k string) error {
		return mongoerr.New(mongoerr.FailedToParse, "$convert found an unknown argument: %s", k)
	}, "input", "to", "onError", "onNull")
	if err != nil {
		return nil, err
	}
	in, to, onErr, onNull := args["input"], args["to"], args["onError"], args["onNull"]
	for _, k := range []string{"input", "to"} {
		if args[k] == nil {
			return nil, mongoerr.New(mongoerr.FailedToParse, "Missing '%s' parameter to $convert", k)
		}
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		iv, err := in.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		tv, err := to.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		if Nullish(iv) {
			if onNull != nil {
				return onNull.Eval(root, local)
			}
			return bsonval.Null(), nil
		}
		target := bsonval.Text(tv)
		if bsonval.IsNumber(tv) {
			target = bsonval.TypeNames[bsoncore.Type(int(bsonval.NumberFloat(tv)))]
		}
		names := map[string]string{"int": "Int", "long": "Long", "double": "Double", "decimal": "Decimal", "bool": "Bool", "date": "Date", "objectId": "ObjectId", "string": "String"}
		r, err := convert(iv, names[target])
		if err != nil && onErr != nil {
			return onErr.Eval(root, local)
		}
		return r, err
	}}, nil
}

// convert is v converted to the type named (Int, Long, Double, Decimal,
// Bool, String, Date or ObjectId): null for null or missing.
func convert(v bsoncore.Value, to string) (bsoncore.Value, error) {
	if Nullish(v) {
		return bsonval.Null(), nil
	}
	switch to {
	case "Int", "Long":
		return convertInt(v, to)
	case "Double", "Decimal":
		return convertFloat(v, to)
	case "Bool":
		return bsonval.Bool(bsonval.Truthy(v)), nil
	case "String":
		return bsonval.String(bsonval.Text(v)), nil
	case "Date":
		return convertDate(v, to)
	case "ObjectId":
		return convertObjectID(v, to)
	}
	return unsupportedConversion(v, to)
}

// unsupportedConversion is the error for a conversion of v to type to
// that $convert does not make.
func unsupportedConversion(v bsoncore.Value, to string) (bsoncore.Value, error) {
	return bsonval.Missing, mongoerr.New(mongoerr.Location(241), "Unsupported conversion from %s to %s in $convert with no onError value", bsonval.TypeName(v.Type), strings.ToLower(to))
}

// convertInt converts v, not null, to an int or a long (to "Int" or
// "Long").
func convertInt(v bsoncore.Value, to string) (bsoncore.Value, error) {
	var i int64
	switch {
	case v.Type == bsoncore.TypeString:
		n, err := strconv.ParseInt(v.StringValue(), 10, 64)
		if err != nil {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(241), "Failed to parse number '%s' in $convert with no onError value", v.StringValue())
		}
		i = n
	case bsonval.IsNumber(v):
		f := bsonval.NumberFloat(v)
		if n, ok := bsonval.IntOf(v); ok {
			i = n
		} else {
			i = int64(math.Trunc(f))
		}
	case v.Type == bsoncore.TypeBoolean:
		if v.Boolean() {
			i = 1
		}
	case v.Type == bsoncore.TypeDateTime && to == "Long":
		i = v.DateTime()
	default:
		return unsupportedConversion(v, to)
	}
	if to == "Int" {
		if i > math.MaxInt32 || i < math.MinInt32 {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(241), "Conversion would overflow target type in $convert with no onError value")
		}
		return bsonval.Int32(int32(i)), nil
	}
	return bsonval.Int64(i), nil
}

// convertFloat converts v, not null, to a double or a decimal (to
// "Double" or "Decimal").
func convertFloat(v bsoncore.Value, to string) (bsoncore.Value, error) {
	var f float64
	switch {
	case v.Type == bsoncore.TypeString:
		n, err := strconv.ParseFloat(v.StringValue(), 64)
		if err != nil {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(241), "Failed to parse number '%s' in $convert with no onError value", v.StringValue())
		}
		f = n
	case bsonval.IsNumber(v):
		if to == "Decimal" {
			r, _ := bsonval.BigOf(v)
			if r != nil {
				d, _ := bson.ParseDecimal128(r.FloatString(20))
				return bsonval.Decimal(bsonval.TrimDecimal(d)), nil
			}
		}
		f = bsonval.NumberFloat(v)
	case v.Type == bsoncore.TypeBoolean:
		if v.Boolean() {
			f = 1
		}
	case v.Type == bsoncore.TypeDateTime:
		f = float64(v.DateTime())
	default:
		return unsupportedConversion(v, to)
	}
	if to == "Decimal" {
		d, _ := bson.ParseDecimal128(strconv.FormatFloat(f, 'g', -1, 64))
		return bsonval.Decimal(d), nil
	}
	return bsonval.Double(f), nil
}

// convertDate converts v, not null, to a date.
func convertDate(v bsoncore.Value, to string) (bsoncore.Value, error) {
	switch {
	case v.Type == bsoncore.TypeString:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z0700", "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, v.StringValue()); err == nil {
				return bsonval.DateTime(t.UnixMilli()), nil
			}
		}
		return bsonval.Missing, mongoerr.New(mongoerr.Location(241), "Error parsing date string '%s'", v.StringValue())
	case v.Type == bsoncore.TypeDateTime:
		return v, nil
	case v.Type == bsoncore.TypeInt64 || v.Type == bsoncore.TypeDouble || v.Type == bsoncore.TypeDecimal128:
		return bsonval.DateTime(int64(bsonval.NumberFloat(v))), nil
	case v.Type == bsoncore.TypeObjectID || v.Type == bsoncore.TypeTimestamp:
		t, _ := dateOf(v)
		return bsonval.DateTime(t.UnixMilli()), nil
	}
	return unsupportedConversion(v, to)
}

// convertObjectID converts v, not null, to an ObjectId.
func convertObjectID(v bsoncore.Value, to string) (bsoncore.Value, error) {
	switch v.Type {
	case bsoncore.TypeObjectID:
		return v, nil
	case bsoncore.TypeString:
		id, err := bson.ObjectIDFromHex(v.StringValue())
		if err != nil {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(241), "Failed to parse objectId '%s' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found %d", v.StringValue(), len(v.StringValue()))
		}
		return bsoncore.Value{Type: bsoncore.TypeObjectID, Data: id[:]}, nil
	}
	return unsupportedConversion(v, to)
}
