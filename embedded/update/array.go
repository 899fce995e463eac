package update

import (
	"math"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/query"
)

// updPushOrAdd is $push or $addToSet (with $each): values appended to the
// array (a missing field is an empty one), $addToSet's only when not in it.
func updPushOrAdd(o updateOp, cur *bsonval.MValue, root *bsonval.MDoc) (*bsonval.MValue, bool, error) {
	if cur != nil && !cur.IsArray {
		return nil, false, mongoerr.New(mongoerr.BadValue, "The field '%s' must be an array but is of type %s in document %s", o.path, bsonval.TypeName(cur.Value().Type), idDocOf(root))
	}
	arr := []*bsonval.MValue{}
	if cur != nil {
		arr = append(arr, cur.Arr...)
	}
	each := []bsoncore.Value{o.arg}
	var mods bsoncore.Document
	if o.arg.Type == bsoncore.TypeEmbeddedDocument {
		if ev, err := bsoncore.Document(o.arg.Data).LookupErr("$each"); err == nil {
			if ev.Type != bsoncore.TypeArray {
				return nil, false, mongoerr.New(mongoerr.BadValue, "The argument to $each in %s must be an array but it was of type: %s", o.op, bsonval.TypeName(ev.Type))
			}
			each = bsonval.ArrayValues(ev)
			mods = bsoncore.Document(o.arg.Data)
		}
	}
	if o.op == "$addToSet" {
		for _, v := range each {
			dup := false
			for _, x := range arr {
				if bsonval.Equal(x.Value(), v) {
					dup = true
					break
				}
			}
			if !dup {
				arr = append(arr, bsonval.Mutable(v))
			}
		}
		return &bsonval.MValue{IsArray: true, Arr: arr}, false, nil
	}
	return pushWith(arr, each, mods)
}

// updPop is $pop: the array without its first (-1) or last element.
func updPop(o updateOp, cur *bsonval.MValue) (*bsonval.MValue, bool, error) {
	if cur == nil {
		return nil, false, nil
	}
	if !cur.IsArray {
		return nil, false, mongoerr.New(mongoerr.TypeMismatch, "Path '%s' contains an element of non-array type '%s'", o.path, bsonval.TypeName(cur.Value().Type))
	}
	arr := append([]*bsonval.MValue{}, cur.Arr...)
	if len(arr) > 0 {
		if bsonval.NumberFloat(o.arg) < 0 {
			arr = arr[1:]
		} else {
			arr = arr[:len(arr)-1]
		}
	}
	return &bsonval.MValue{IsArray: true, Arr: arr}, false, nil
}

// pull is $pull or $pullAll: the array without the values the argument
// names or matches.
func (u *Update) pull(o updateOp, cur *bsonval.MValue) (*bsonval.MValue, bool, error) {
	if cur == nil {
		return nil, false, nil
	}
	if !cur.IsArray {
		return nil, false, mongoerr.New(mongoerr.BadValue, "Cannot apply %s to a non-array value", o.op)
	}
	var drop func(v bsoncore.Value) bool
	if o.op == "$pullAll" {
		if o.arg.Type != bsoncore.TypeArray {
			return nil, false, mongoerr.New(mongoerr.BadValue, "$pullAll requires an array argument but was given a %s", bsonval.TypeName(o.arg.Type))
		}
		vals := bsonval.ArrayValues(o.arg)
		drop = func(v bsoncore.Value) bool {
			for _, x := range vals {
				if bsonval.Equal(x, v) {
					return true
				}
			}
			return false
		}
	} else {
		var err error
		if drop, err = pullPred(o.arg, u.vars); err != nil {
			return nil, false, err
		}
	}
	var arr []*bsonval.MValue
	for _, e := range cur.Arr {
		if !drop(e.Value()) {
			arr = append(arr, e)
		}
	}
	return &bsonval.MValue{IsArray: true, Arr: arr}, false, nil
}

// pullPred is what $pull removes: values equal to a value, or matching a
// condition (a query on the element, or operators on it).
func pullPred(arg bsoncore.Value, vars *expr.Vars) (func(bsoncore.Value) bool, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		if arg.Type == bsoncore.TypeRegex {
			p, err := query.RegexPred(arg)
			return p, err
		}
		return func(v bsoncore.Value) bool { return bsonval.Equal(v, arg) }, nil
	}
	if query.IsOperatorDoc(arg) {
		wrapped := bsoncore.NewDocumentBuilder().AppendDocument("v", arg.Data).Build()
		f, err := compileFilter(wrapped, vars)
		if err != nil {
			return nil, err
		}
		return func(v bsoncore.Value) bool {
			return f.Match(bsoncore.BuildDocument(nil, bsoncore.AppendValueElement(nil, "v", v)))
		}, nil
	}
	f, err := compileFilter(bsoncore.Document(arg.Data), vars)
	if err != nil {
		return nil, err
	}
	return func(v bsoncore.Value) bool {
		return v.Type == bsoncore.TypeEmbeddedDocument && f.Match(bsoncore.Document(v.Data))
	}, nil
}

// pushWith applies $push with $each, $position, $sort and $slice.
func pushWith(arr []*bsonval.MValue, each []bsoncore.Value, mods bsoncore.Document) (*bsonval.MValue, bool, error) {
	pos := len(arr)
	if mods != nil {
		for _, e := range bsonval.Elements(mods) {
			switch e.Key() {
			case "$each", "$slice", "$sort":
			case "$position":
				n, ok := bsonval.IntOf(e.Value())
				if !ok {
					if e.Value().Type == bsoncore.TypeDouble && e.Value().Double() == math.Trunc(e.Value().Double()) {
						n, ok = int64(e.Value().Double()), true
					}
				}
				if !ok {
					return nil, false, mongoerr.New(mongoerr.BadValue, "The value for $position must be an integer value, not of type: %s", bsonval.TypeName(e.Value().Type))
				}
				if n < 0 {
					n += int64(len(arr))
					if n < 0 {
						n = 0
					}
				}
				if n < int64(pos) {
					pos = int(n)
				}
			default:
				return nil, false, mongoerr.New(mongoerr.BadValue, "Unrecognized clause in $push: %s", e.Key())
			}
		}
	}
	ins := make([]*bsonval.MValue, len(each))
	for i, v := range each {
		ins[i] = bsonval.Mutable(v)
	}
	out := append(append(append([]*bsonval.MValue{}, arr[:pos]...), ins...), arr[pos:]...)
	if mods != nil {
		if sv, err := mods.LookupErr("$sort"); err == nil {
			if err := sortArray(out, sv); err != nil {
				return nil, false, err
			}
		}
		if sl, err := mods.LookupErr("$slice"); err == nil {
			if !bsonval.IsNumber(sl) {
				return nil, false, mongoerr.New(mongoerr.BadValue, "The value for $slice must be an integer value but was given type: %s", bsonval.TypeName(sl.Type))
			}
			n := int(bsonval.NumberFloat(sl))
			switch {
			case n >= 0 && n < len(out):
				out = out[:n]
			case n < 0 && -n < len(out):
				out = out[len(out)+n:]
			}
		}
	}
	return &bsonval.MValue{IsArray: true, Arr: out}, false, nil
}

func sortArray(arr []*bsonval.MValue, spec bsoncore.Value) error {
	vals := make([]bsoncore.Value, len(arr))
	for i, a := range arr {
		vals[i] = a.Value()
	}
	idx := make([]int, len(arr))
	for i := range idx {
		idx[i] = i
	}
	var less func(a, b bsoncore.Value) bool
	if bsonval.IsNumber(spec) {
		dir := bsonval.NumberFloat(spec)
		if dir != 1 && dir != -1 {
			return mongoerr.New(mongoerr.BadValue, "The $sort element value must be either 1 or -1")
		}
		less = func(a, b bsoncore.Value) bool {
			c := bsonval.Compare(a, b)
			if dir < 0 {
				return c > 0
			}
			return c < 0
		}
	} else if spec.Type == bsoncore.TypeEmbeddedDocument {
		s, err := bsonval.CompileSort(bsoncore.Document(spec.Data))
		if err != nil {
			return err
		}
		less = func(a, b bsoncore.Value) bool {
			da, db := docOrEmpty(a), docOrEmpty(b)
			return s.Compare(da, db) < 0
		}
	} else {
		return mongoerr.New(mongoerr.BadValue, "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields")
	}
	sort.SliceStable(idx, func(i, j int) bool { return less(vals[idx[i]], vals[idx[j]]) })
	cp := append([]*bsonval.MValue{}, arr...)
	for i, j := range idx {
		arr[i] = cp[j]
	}
	return nil
}

func docOrEmpty(v bsoncore.Value) bsoncore.Document {
	if v.Type == bsoncore.TypeEmbeddedDocument {
		return bsoncore.Document(v.Data)
	}
	return bsoncore.NewDocumentBuilder().Build()
}
