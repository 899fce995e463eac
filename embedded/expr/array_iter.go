package expr

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The array expression operators that evaluate an expression for each
// element: $filter, $map and $reduce.

// compileFilterMap is $filter ({input, as, cond}) and $map ({input, as,
// in}); as names the element's variable, "this" when absent.
func compileFilterMap(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(28646), "%s only supports an object as its argument", op)
	}
	d := bsoncore.Document(v.Data)
	in, err := optExpr(d, "input", vars)
	if err != nil || in == nil {
		return nil, mongoerr.New(mongoerr.Location(28648), "Missing 'input' parameter to %s", op)
	}
	as := "this"
	if a, err := d.LookupErr("as"); err == nil {
		as = bsonval.Text(a)
	}
	key := "cond"
	if op == "$map" {
		key = "in"
	}
	inner := &Vars{Vars: map[string]bsoncore.Value{}, Now: vars.Now}
	for k, val := range vars.Vars {
		inner.Vars[k] = val
	}
	inner.Vars[as] = bsonval.Null()
	body, err := optExpr(d, key, inner)
	if err != nil {
		return nil, err
	}
	if body == nil {
		return nil, mongoerr.New(mongoerr.Location(28650), "Missing '%s' parameter to %s", key, op)
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		iv, err := in.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		if Nullish(iv) {
			return bsonval.Null(), nil
		}
		if iv.Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28651), "input to %s must be an array not %s", op, bsonval.TypeName(iv.Type))
		}
		l := map[string]bsoncore.Value{}
		for k, val := range local {
			l[k] = val
		}
		var out []bsoncore.Value
		for _, e := range bsonval.ArrayValues(iv) {
			l[as] = e
			r, err := body.Eval(root, l)
			if err != nil {
				return bsonval.Missing, err
			}
			if op == "$map" {
				if r.Type == 0 {
					r = bsonval.Null()
				}
				out = append(out, r)
			} else if bsonval.Truthy(r) {
				out = append(out, e)
			}
		}
		return bsonval.Array(out), nil
	}}, nil
}

// withVars is vars with names added, bound to null at compile time and
// to their values through local when evaluated.
func withVars(vars *Vars, names ...string) *Vars {
	inner := &Vars{Vars: map[string]bsoncore.Value{}, Now: vars.Now}
	for k, val := range vars.Vars {
		inner.Vars[k] = val
	}
	for _, n := range names {
		inner.Vars[n] = bsonval.Null()
	}
	return inner
}

func copyLocal(local map[string]bsoncore.Value) map[string]bsoncore.Value {
	l := make(map[string]bsoncore.Value, len(local)+2)
	for k, val := range local {
		l[k] = val
	}
	return l
}

func compileReduce(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	es, err := namedArgs(v, vars, map[string]*Vars{"in": withVars(vars, "value", "this")}, func() error {
		return mongoerr.New(mongoerr.Location(40075), "$reduce requires an object as an argument, found: %s", bsonval.TypeName(v.Type))
	}, unknownArg(op, 40076, "found an unknown argument"), "input", "initialValue", "in")
	if err != nil {
		return nil, err
	}
	for i, k := range []string{"input", "initialValue", "in"} {
		if es[k] == nil {
			return nil, mongoerr.New(mongoerr.Location(40077+int32(i)), "$reduce requires '%s' to be specified", k)
		}
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		vals, ok, err := evalArray(es["input"], root, local, func(iv bsoncore.Value) error {
			return mongoerr.New(mongoerr.Location(40080), "$reduce requires that 'input' be an array, found: %s", bsonval.Shell(iv))
		})
		if !ok {
			return bsonval.Null(), err
		}
		acc, err := es["initialValue"].Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		l := copyLocal(local)
		for _, e := range vals {
			l["value"], l["this"] = acc, e
			if acc, err = es["in"].Eval(root, l); err != nil {
				return bsonval.Missing, err
			}
		}
		return acc, nil
	}}, nil
}
