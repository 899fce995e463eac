package expr

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The object expression operators: $mergeObjects, $objectToArray,
// $arrayToObject, $getField, $setField and $unsetField.

func compileMergeObjects(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		var acc bsoncore.Document = bsoncore.NewDocumentBuilder().Build()
		for _, a := range x {
			if Nullish(a) {
				continue
			}
			if a.Type != bsoncore.TypeEmbeddedDocument {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(40400), "$mergeObjects requires object inputs, but input %s is of type %s", bsonval.Shell(a), bsonval.TypeName(a.Type))
			}
			acc = MergeDocs(acc, bsoncore.Document(a.Data))
		}
		return bsonval.Doc(acc), nil
	})
}

// MergeDocs is a with b's fields set over it.
func MergeDocs(a, b bsoncore.Document) bsoncore.Document {
	bb := bsoncore.NewDocumentBuilder()
	seen := map[string]bool{}
	for _, e := range bsonval.Elements(a) {
		if nv, err := b.LookupErr(e.Key()); err == nil {
			bb.AppendValue(e.Key(), nv)
		} else {
			bb.AppendValue(e.Key(), e.Value())
		}
		seen[e.Key()] = true
	}
	for _, e := range bsonval.Elements(b) {
		if !seen[e.Key()] {
			bb.AppendValue(e.Key(), e.Value())
		}
	}
	return bb.Build()
}

func compileObjectToArray(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) {
			return bsonval.Null(), nil
		}
		if x[0].Type != bsoncore.TypeEmbeddedDocument {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(40390), "$objectToArray requires a document input, found: %s", bsonval.TypeName(x[0].Type))
		}
		var out []bsoncore.Value
		for _, el := range bsonval.Elements(bsoncore.Document(x[0].Data)) {
			out = append(out, bsonval.Doc(bsoncore.NewDocumentBuilder().AppendString("k", el.Key()).AppendValue("v", el.Value()).Build()))
		}
		return bsonval.Array(out), nil
	})
}

// compileArrayToObject is $arrayToObject: an array of [k, v] pairs or of
// {k, v} documents as a document.
func compileArrayToObject(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) {
			return bsonval.Null(), nil
		}
		b := bsoncore.NewDocumentBuilder()
		for _, e := range bsonval.ArrayValues(x[0]) {
			switch e.Type {
			case bsoncore.TypeArray:
				kv := bsonval.ArrayValues(e)
				if len(kv) == 2 {
					b.AppendValue(bsonval.Text(kv[0]), kv[1])
				}
			case bsoncore.TypeEmbeddedDocument:
				d := bsoncore.Document(e.Data)
				k, _ := d.LookupErr("k")
				val, _ := d.LookupErr("v")
				b.AppendValue(bsonval.Text(k), val)
			}
		}
		return bsonval.Doc(b.Build()), nil
	})
}

// compileFieldOps compiles $getField, $setField and $unsetField, which
// name fields that may hold dots or start with '$'.
func compileFieldOps(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	field, input, value, err := fieldOpArgs(op, v, vars)
	if err != nil {
		return nil, err
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		fv, err := field.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		if fv.Type != bsoncore.TypeString {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(3041704), "%s requires 'field' to evaluate to type String, but got %s", op, bsonval.TypeName(fv.Type))
		}
		name := fv.StringValue()
		in, err := input.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		if Nullish(in) {
			if op == "$getField" {
				return bsonval.Missing, nil
			}
			return bsonval.Null(), nil
		}
		if in.Type != bsoncore.TypeEmbeddedDocument {
			if op == "$getField" {
				return bsonval.Missing, nil
			}
			return bsonval.Missing, mongoerr.New(mongoerr.Location(4161105), "%s requires 'input' to evaluate to type Object", op)
		}
		d := bsoncore.Document(in.Data)
		if op == "$getField" {
			r, err := d.LookupErr(name)
			if err != nil {
				return bsonval.Missing, nil
			}
			return r, nil
		}
		var nv bsoncore.Value
		if op == "$setField" {
			if nv, err = value.Eval(root, local); err != nil {
				return bsonval.Missing, err
			}
		}
		b := bsoncore.NewDocumentBuilder()
		set := false
		for _, e := range bsonval.Elements(d) {
			if e.Key() == name {
				if nv.Type != 0 {
					b.AppendValue(name, nv)
				}
				set = true
				continue
			}
			b.AppendValue(e.Key(), e.Value())
		}
		if !set && nv.Type != 0 {
			b.AppendValue(name, nv)
		}
		return bsonval.Doc(b.Build()), nil
	}}, nil
}

// fieldOpArgs compiles the field, input and value arguments of
// $getField, $setField or $unsetField; input defaults to $$CURRENT.
func fieldOpArgs(op string, v bsoncore.Value, vars *Vars) (field, input, value *Expr, err error) {
	if v.Type == bsoncore.TypeEmbeddedDocument && op != "$getField" || v.Type == bsoncore.TypeEmbeddedDocument && func() bool { _, e := bsoncore.Document(v.Data).LookupErr("field"); return e == nil }() {
		d := bsoncore.Document(v.Data)
		if field, err = optExpr(d, "field", vars); err != nil {
			return nil, nil, nil, err
		}
		if input, err = optExpr(d, "input", vars); err != nil {
			return nil, nil, nil, err
		}
		if value, err = optExpr(d, "value", vars); err != nil {
			return nil, nil, nil, err
		}
	} else if field, err = Compile(v, vars); err != nil {
		return nil, nil, nil, err
	}
	if field == nil {
		return nil, nil, nil, mongoerr.New(mongoerr.Location(3041702), "%s requires 'field' to be specified", op)
	}
	if input == nil {
		input = &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			if cur, ok := local["CURRENT"]; ok {
				return cur, nil
			}
			return bsonval.Doc(root), nil
		}}
	}
	if op == "$setField" && value == nil {
		return nil, nil, nil, mongoerr.New(mongoerr.Location(4161102), "$setField requires 'value' to be specified")
	}
	return field, input, value, nil
}
