package update

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// operate computes an operator's new value from the current one (nil if
// the field is missing).
func (u *Update) operate(o updateOp, cur *bsonval.MValue, now time.Time, root *bsonval.MDoc) (*bsonval.MValue, bool, error) {
	switch o.op {
	case "$set", "$setOnInsert":
		return bsonval.Mutable(o.arg), false, nil
	case "$unset":
		return nil, true, nil
	case "$inc", "$mul":
		return updIncMul(o, cur, root)
	case "$min", "$max":
		return updMinMax(o, cur)
	case "$currentDate":
		return updCurrentDate(o, now)
	case "$push", "$addToSet":
		return updPushOrAdd(o, cur, root)
	case "$pop":
		return updPop(o, cur)
	case "$pull", "$pullAll":
		return u.pull(o, cur)
	case "$bit":
		return updBit(o, cur, root)
	}
	return nil, false, nil
}

// idDocOf names the document root in an error: {_id: ...}, or {}.
func idDocOf(root *bsonval.MDoc) string {
	if id, _ := root.Get("_id"); id != nil {
		return "{_id: " + bsonval.Shell(id.Value()) + "}"
	}
	return "{}"
}

// updIncMul is $inc or $mul: a missing field becomes the argument ($inc)
// or a zero of its type ($mul).
func updIncMul(o updateOp, cur *bsonval.MValue, root *bsonval.MDoc) (*bsonval.MValue, bool, error) {
	if cur == nil {
		if o.op == "$mul" {
			return bsonval.Mutable(zeroLike(o.arg)), false, nil
		}
		return bsonval.Mutable(o.arg), false, nil
	}
	cv := cur.Value()
	if !bsonval.IsNumber(cv) {
		return nil, false, mongoerr.New(mongoerr.TypeMismatch, "Cannot apply %s to a value of non-numeric type. %s has the field '%s' of non-numeric type %s", o.op, idDocOf(root), o.parts[len(o.parts)-1], bsonval.TypeName(cv.Type))
	}
	if o.op == "$inc" {
		return bsonval.Mutable(bsonval.Arith('+', cv, o.arg)), false, nil
	}
	return bsonval.Mutable(bsonval.Arith('*', cv, o.arg)), false, nil
}

// updMinMax is $min or $max: the argument when it is less (greater) than
// the current value or the field is missing.
func updMinMax(o updateOp, cur *bsonval.MValue) (*bsonval.MValue, bool, error) {
	if cur == nil {
		return bsonval.Mutable(o.arg), false, nil
	}
	c := bsonval.Compare(o.arg, cur.Value())
	if (o.op == "$min" && c < 0) || (o.op == "$max" && c > 0) {
		return bsonval.Mutable(o.arg), false, nil
	}
	return nil, false, nil
}

// updCurrentDate is $currentDate: now, as a date or a timestamp.
func updCurrentDate(o updateOp, now time.Time) (*bsonval.MValue, bool, error) {
	if o.arg.Type == bsoncore.TypeEmbeddedDocument {
		if t, err := bsoncore.Document(o.arg.Data).LookupErr("$type"); err == nil && bsonval.Text(t) == "timestamp" {
			return bsonval.Mutable(bsoncore.Value{Type: bsoncore.TypeTimestamp, Data: bsoncore.AppendTimestamp(nil, uint32(now.Unix()), 1)}), false, nil
		}
	}
	return bsonval.Mutable(bsonval.DateTime(now.UnixMilli())), false, nil
}

// updBit is $bit: and, or and xor of an integer field (0 when missing).
func updBit(o updateOp, cur *bsonval.MValue, root *bsonval.MDoc) (*bsonval.MValue, bool, error) {
	if cur == nil {
		cur = &bsonval.MValue{Leaf: bsonval.Int32(0)}
	}
	cv := cur.Value()
	x, ok := bsonval.IntOf(cv)
	if !ok {
		return nil, false, mongoerr.New(mongoerr.BadValue, "Cannot apply $bit to a value of non-integral type. %s has the field %s of non-integer type %s", idDocOf(root), o.path, bsonval.TypeName(cv.Type))
	}
	wide := cv.Type == bsoncore.TypeInt64
	for _, e := range bsonval.Elements(bsoncore.Document(o.arg.Data)) {
		k := e.Key()
		if k != "and" && k != "or" && k != "xor" {
			return nil, false, mongoerr.New(mongoerr.BadValue, "The $bit modifier only supports 'and', 'or', and 'xor', not '%s' which is an unknown operator: {%s: %s}", k, k, bsonval.Shell(e.Value()))
		}
		y, ok := bsonval.IntOf(e.Value())
		if !ok {
			return nil, false, mongoerr.New(mongoerr.BadValue, "The $bit modifier field must be an Integer(32/64 bit); a '%s' is not supported here: {%s: %s}", bsonval.TypeName(e.Value().Type), k, bsonval.Shell(e.Value()))
		}
		wide = wide || e.Value().Type == bsoncore.TypeInt64
		switch k {
		case "and":
			x &= y
		case "or":
			x |= y
		default:
			x ^= y
		}
	}
	if wide {
		return bsonval.Mutable(bsonval.Int64(x)), false, nil
	}
	return bsonval.Mutable(bsonval.Int32(int32(x))), false, nil
}

func zeroLike(v bsoncore.Value) bsoncore.Value {
	switch v.Type {
	case bsoncore.TypeInt64:
		return bsonval.Int64(0)
	case bsoncore.TypeDouble:
		return bsonval.Double(0)
	case bsoncore.TypeDecimal128:
		return bsonval.Arith('*', v, bsonval.Int32(0))
	}
	return bsonval.Int32(0)
}
