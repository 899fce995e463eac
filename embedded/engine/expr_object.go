package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The object expression operators: $mergeObjects, $objectToArray,
// $arrayToObject, $getField, $setField and $unsetField.
func init() {
	exprOps["$mergeObjects"] = compileMergeObjects
	exprOps["$objectToArray"] = compileObjectToArray
	exprOps["$arrayToObject"] = compileArrayToObject
	exprOps["$getField"] = compileFieldOps
	exprOps["$setField"] = compileFieldOps
	exprOps["$unsetField"] = compileFieldOps
}

func compileMergeObjects(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		var acc bsoncore.Document = bsoncore.NewDocumentBuilder().Build()
		for _, a := range x {
			if nullish(a) {
				continue
			}
			if a.Type != bsoncore.TypeEmbeddedDocument {
				return missing, mongoerr.New(mongoerr.Location(40400), "$mergeObjects requires object inputs, but input %s is of type %s", shell(a), typeName(a.Type))
			}
			acc = mergeDocs(acc, bsoncore.Document(a.Data))
		}
		return vDoc(acc), nil
	})
}

// mergeDocs is a with b's fields set over it.
func mergeDocs(a, b bsoncore.Document) bsoncore.Document {
	bb := bsoncore.NewDocumentBuilder()
	seen := map[string]bool{}
	for _, e := range elements(a) {
		if nv, err := b.LookupErr(e.Key()); err == nil {
			bb.AppendValue(e.Key(), nv)
		} else {
			bb.AppendValue(e.Key(), e.Value())
		}
		seen[e.Key()] = true
	}
	for _, e := range elements(b) {
		if !seen[e.Key()] {
			bb.AppendValue(e.Key(), e.Value())
		}
	}
	return bb.Build()
}

func compileObjectToArray(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if nullish(x[0]) {
			return vNull(), nil
		}
		if x[0].Type != bsoncore.TypeEmbeddedDocument {
			return missing, mongoerr.New(mongoerr.Location(40390), "$objectToArray requires a document input, found: %s", typeName(x[0].Type))
		}
		var out []bsoncore.Value
		for _, el := range elements(bsoncore.Document(x[0].Data)) {
			out = append(out, vDoc(bsoncore.NewDocumentBuilder().AppendString("k", el.Key()).AppendValue("v", el.Value()).Build()))
		}
		return vArray(out), nil
	})
}

// compileArrayToObject is $arrayToObject: an array of [k, v] pairs or of
// {k, v} documents as a document.
func compileArrayToObject(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if nullish(x[0]) {
			return vNull(), nil
		}
		b := bsoncore.NewDocumentBuilder()
		for _, e := range arrayValues(x[0]) {
			switch e.Type {
			case bsoncore.TypeArray:
				kv := arrayValues(e)
				if len(kv) == 2 {
					b.AppendValue(toStr(kv[0]), kv[1])
				}
			case bsoncore.TypeEmbeddedDocument:
				d := bsoncore.Document(e.Data)
				k, _ := d.LookupErr("k")
				val, _ := d.LookupErr("v")
				b.AppendValue(toStr(k), val)
			}
		}
		return vDoc(b.Build()), nil
	})
}

// compileFieldOps compiles $getField, $setField and $unsetField, which
// name fields that may hold dots or start with '$'.
func compileFieldOps(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	field, input, value, err := fieldOpArgs(op, v, vars)
	if err != nil {
		return nil, err
	}
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		fv, err := field.eval(root, local)
		if err != nil {
			return missing, err
		}
		if fv.Type != bsoncore.TypeString {
			return missing, mongoerr.New(mongoerr.Location(3041704), "%s requires 'field' to evaluate to type String, but got %s", op, typeName(fv.Type))
		}
		name := fv.StringValue()
		in, err := input.eval(root, local)
		if err != nil {
			return missing, err
		}
		if nullish(in) {
			if op == "$getField" {
				return missing, nil
			}
			return vNull(), nil
		}
		if in.Type != bsoncore.TypeEmbeddedDocument {
			if op == "$getField" {
				return missing, nil
			}
			return missing, mongoerr.New(mongoerr.Location(4161105), "%s requires 'input' to evaluate to type Object", op)
		}
		d := bsoncore.Document(in.Data)
		if op == "$getField" {
			r, err := d.LookupErr(name)
			if err != nil {
				return missing, nil
			}
			return r, nil
		}
		var nv bsoncore.Value
		if op == "$setField" {
			if nv, err = value.eval(root, local); err != nil {
				return missing, err
			}
		}
		b := bsoncore.NewDocumentBuilder()
		set := false
		for _, e := range elements(d) {
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
		return vDoc(b.Build()), nil
	}}, nil
}

// fieldOpArgs compiles the field, input and value arguments of
// $getField, $setField or $unsetField; input defaults to $$CURRENT.
func fieldOpArgs(op string, v bsoncore.Value, vars *exprVars) (field, input, value *expr, err error) {
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
	} else if field, err = compileExpr(v, vars); err != nil {
		return nil, nil, nil, err
	}
	if field == nil {
		return nil, nil, nil, mongoerr.New(mongoerr.Location(3041702), "%s requires 'field' to be specified", op)
	}
	if input == nil {
		input = &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			if cur, ok := local["CURRENT"]; ok {
				return cur, nil
			}
			return vDoc(root), nil
		}}
	}
	if op == "$setField" && value == nil {
		return nil, nil, nil, mongoerr.New(mongoerr.Location(4161102), "$setField requires 'value' to be specified")
	}
	return field, input, value, nil
}
