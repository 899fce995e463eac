package expr

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The conditional expression operators: $cond, $ifNull and $switch.

// compileCond is $cond: {if, then, else} or [if, then, else].
func compileCond(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	var ifE, thenE, elseE *Expr
	var err error
	if v.Type == bsoncore.TypeEmbeddedDocument {
		d := bsoncore.Document(v.Data)
		get := func(k string) (*Expr, error) {
			a, err := d.LookupErr(k)
			if err != nil {
				return nil, mongoerr.New(mongoerr.Location(17080), "Missing '%s' parameter to $cond", k)
			}
			return Compile(a, vars)
		}
		if ifE, err = get("if"); err != nil {
			return nil, err
		}
		if thenE, err = get("then"); err != nil {
			return nil, err
		}
		if elseE, err = get("else"); err != nil {
			return nil, err
		}
	} else {
		es, err := args(v, vars)
		if err != nil {
			return nil, err
		}
		if len(es) != 3 {
			return nil, mongoerr.New(mongoerr.Location(16020), "Expression $cond takes exactly 3 arguments. %d were passed in.", len(es))
		}
		ifE, thenE, elseE = es[0], es[1], es[2]
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		c, err := ifE.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		if bsonval.Truthy(c) {
			return thenE.Eval(root, local)
		}
		return elseE.Eval(root, local)
	}}, nil
}

// compileIfNull is $ifNull: the first argument that is not null or
// missing, else the last one's value.
func compileIfNull(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	es, err := args(v, vars)
	if err != nil {
		return nil, err
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		var r bsoncore.Value
		for _, e := range es {
			r, err = e.Eval(root, local)
			if err != nil {
				return bsonval.Missing, err
			}
			if !Nullish(r) {
				return r, nil
			}
		}
		return r, nil
	}}, nil
}

// compileSwitch is $switch: {branches: [{case, then}], default}.
func compileSwitch(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(40060), "$switch requires an object as an argument")
	}
	d := bsoncore.Document(v.Data)
	type br struct{ c, t *Expr }
	var brs []br
	if bv, err := d.LookupErr("branches"); err == nil {
		for _, b := range bsonval.ArrayValues(bv) {
			bd := bsoncore.Document(b.Data)
			cv, e1 := bd.LookupErr("case")
			tv, e2 := bd.LookupErr("then")
			if e1 != nil || e2 != nil {
				return nil, mongoerr.New(mongoerr.Location(40064), "$switch requires each branch have a 'case' and 'then' expression")
			}
			c, err := Compile(cv, vars)
			if err != nil {
				return nil, err
			}
			t, err := Compile(tv, vars)
			if err != nil {
				return nil, err
			}
			brs = append(brs, br{c, t})
		}
	}
	var def *Expr
	if dv, err := d.LookupErr("default"); err == nil {
		if def, err = Compile(dv, vars); err != nil {
			return nil, err
		}
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		for _, b := range brs {
			c, err := b.c.Eval(root, local)
			if err != nil {
				return bsonval.Missing, err
			}
			if bsonval.Truthy(c) {
				return b.t.Eval(root, local)
			}
		}
		if def == nil {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(40066), "$switch could not find a matching branch for an input, and no default was specified.")
		}
		return def.Eval(root, local)
	}}, nil
}
