package expr

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The variable expression operators: $literal and $let; compileVar reads
// the variables themselves ("$$name").

// compileVar is the variable "$$name" followed by the path parts: NOW,
// REMOVE, ROOT, CURRENT or a variable in vars.
func compileVar(name string, parts []string, vars *Vars) (*Expr, error) {
	switch name {
	case "NOW":
		return constExpr(bsonval.DateTime(vars.Now.UnixMilli())), nil
	case "REMOVE":
		return constExpr(bsonval.Missing), nil
	case "ROOT":
		return &Expr{Eval: func(root bsoncore.Document, _ map[string]bsoncore.Value) (bsoncore.Value, error) {
			return exprPath(bsonval.Doc(root), parts), nil
		}}, nil
	}
	if v, ok := vars.Vars[name]; ok && name != "CURRENT" {
		return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			if lv, ok := local[name]; ok {
				return exprPath(lv, parts), nil
			}
			return exprPath(v, parts), nil
		}}, nil
	}
	if name != "CURRENT" {
		return nil, mongoerr.New(mongoerr.Location(17276), "Use of undefined variable: %s", name)
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		if lv, ok := local[name]; ok {
			return exprPath(lv, parts), nil
		}
		return exprPath(bsonval.Doc(root), parts), nil
	}}, nil
}

// compileLiteral is $literal: its argument, unevaluated.
func compileLiteral(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return constExpr(v), nil
}

// compileLet is $let: {vars, in}, in evaluated with the variables bound.
func compileLet(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(16874), "$let only supports an object as its argument")
	}
	d := bsoncore.Document(v.Data)
	vv, err := d.LookupErr("vars")
	if err != nil {
		return nil, mongoerr.New(mongoerr.Location(16876), "Missing 'vars' parameter to $let")
	}
	inner := &Vars{Vars: map[string]bsoncore.Value{}, Now: vars.Now}
	for k, val := range vars.Vars {
		inner.Vars[k] = val
	}
	type bind struct {
		name string
		e    *Expr
	}
	var binds []bind
	for _, el := range bsonval.Elements(bsoncore.Document(vv.Data)) {
		e, err := Compile(el.Value(), vars)
		if err != nil {
			return nil, err
		}
		binds = append(binds, bind{el.Key(), e})
		inner.Vars[el.Key()] = bsonval.Null()
	}
	body, err := optExpr(d, "in", inner)
	if err != nil || body == nil {
		return nil, mongoerr.New(mongoerr.Location(16877), "Missing 'in' parameter to $let")
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		l := map[string]bsoncore.Value{}
		for k, val := range local {
			l[k] = val
		}
		for _, b := range binds {
			r, err := b.e.Eval(root, local)
			if err != nil {
				return bsonval.Missing, err
			}
			l[b.name] = r
		}
		return body.Eval(root, l)
	}}, nil
}
