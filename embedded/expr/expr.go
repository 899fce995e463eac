package expr

import (
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// Vars are what an expression sees besides its document: the let
// variables (Vars), the clock $$NOW reads (Now) and the collation strings
// compare by (Coll).
type Vars struct {
	Vars map[string]bsoncore.Value
	Now  time.Time
	Coll *bsonval.Collator // the command's collation; nil: simple
}

// Collator is the collation strings are compared with (nil: simple).
func (v *Vars) Collator() *bsonval.Collator {
	if v == nil {
		return nil
	}
	return v.Coll
}

// Expr is a compiled aggregation expression. Eval evaluates it on root
// ($$ROOT, and $$CURRENT unless local binds it) with the local variables
// of enclosing operators ($$this, $$value, $let's, $map's as); a
// missing result has Type 0.
type Expr struct {
	Eval func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error)
}

func constExpr(v bsoncore.Value) *Expr {
	return &Expr{Eval: func(bsoncore.Document, map[string]bsoncore.Value) (bsoncore.Value, error) { return v, nil }}
}

// exprPath is the value of "$a.b": through arrays it gives the array of
// the values found.
func exprPath(v bsoncore.Value, parts []string) bsoncore.Value {
	for i, p := range parts {
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument:
			f, err := bsoncore.Document(v.Data).LookupErr(p)
			if err != nil {
				return bsonval.Missing
			}
			v = f
		case bsoncore.TypeArray:
			var out []bsoncore.Value
			for _, e := range bsonval.ArrayValues(v) {
				if e.Type != bsoncore.TypeEmbeddedDocument && e.Type != bsoncore.TypeArray {
					continue
				}
				r := exprPath(e, parts[i:])
				if r.Type != 0 {
					out = append(out, r)
				}
			}
			return bsonval.Array(out)
		default:
			return bsonval.Missing
		}
	}
	return v
}

// Compile compiles an aggregation expression with the variables
// vars (nil: none, $$NOW the present time).
func Compile(v bsoncore.Value, vars *Vars) (*Expr, error) {
	if vars == nil {
		vars = &Vars{Now: time.Now()}
	}
	switch v.Type {
	case bsoncore.TypeString:
		return compileStringExpr(v, vars)
	case bsoncore.TypeArray:
		return compileArrayExpr(v, vars)
	case bsoncore.TypeEmbeddedDocument:
		return compileObjectExpr(v, vars)
	}
	return constExpr(v), nil
}

// compileStringExpr is a string expression: "$$name" a variable, "$a.b"
// a field path, any other string itself.
func compileStringExpr(v bsoncore.Value, vars *Vars) (*Expr, error) {
	s := v.StringValue()
	if strings.HasPrefix(s, "$$") {
		name, rest, _ := strings.Cut(s[2:], ".")
		var parts []string
		if rest != "" {
			parts = strings.Split(rest, ".")
		}
		return compileVar(name, parts, vars)
	}
	if strings.HasPrefix(s, "$") {
		if len(s) == 1 {
			return nil, mongoerr.New(mongoerr.Location(16872), "'$' by itself is not a valid FieldPath")
		}
		parts := strings.Split(s[1:], ".")
		return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			if cur, ok := local["CURRENT"]; ok {
				return exprPath(cur, parts), nil
			}
			return exprPath(bsonval.Doc(root), parts), nil
		}}, nil
	}
	return constExpr(v), nil
}

// compileArrayExpr is an array of expressions: the array of their values,
// missing ones null.
func compileArrayExpr(v bsoncore.Value, vars *Vars) (*Expr, error) {
	var es []*Expr
	for _, e := range bsonval.ArrayValues(v) {
		c, err := Compile(e, vars)
		if err != nil {
			return nil, err
		}
		es = append(es, c)
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		out := make([]bsoncore.Value, 0, len(es))
		for _, e := range es {
			r, err := e.Eval(root, local)
			if err != nil {
				return bsonval.Missing, err
			}
			if r.Type == 0 {
				r = bsonval.Null()
			}
			out = append(out, r)
		}
		return bsonval.Array(out), nil
	}}, nil
}

// compileObjectExpr is a document: an operator expression when its one
// field names an operator, else the document of its fields' values,
// missing ones left out.
func compileObjectExpr(v bsoncore.Value, vars *Vars) (*Expr, error) {
	els := bsonval.Elements(bsoncore.Document(v.Data))
	if len(els) == 1 && strings.HasPrefix(els[0].Key(), "$") {
		return compileOp(els[0].Key(), els[0].Value(), vars)
	}
	type field struct {
		k string
		e *Expr
	}
	var fs []field
	for _, el := range els {
		if strings.HasPrefix(el.Key(), "$") {
			return nil, mongoerr.New(mongoerr.Location(16410), "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
		c, err := Compile(el.Value(), vars)
		if err != nil {
			return nil, err
		}
		fs = append(fs, field{el.Key(), c})
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		b := bsoncore.NewDocumentBuilder()
		for _, f := range fs {
			r, err := f.e.Eval(root, local)
			if err != nil {
				return bsonval.Missing, err
			}
			if r.Type != 0 {
				b.AppendValue(f.k, r)
			}
		}
		return bsonval.Doc(b.Build()), nil
	}}, nil
}

// args compiles an operator's arguments: an array, or one value.
func args(v bsoncore.Value, vars *Vars) ([]*Expr, error) {
	var vals []bsoncore.Value
	if v.Type == bsoncore.TypeArray {
		vals = bsonval.ArrayValues(v)
	} else {
		vals = []bsoncore.Value{v}
	}
	out := make([]*Expr, len(vals))
	for i, a := range vals {
		e, err := Compile(a, vars)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func evalAll(es []*Expr, root bsoncore.Document, local map[string]bsoncore.Value) ([]bsoncore.Value, error) {
	out := make([]bsoncore.Value, len(es))
	for i, e := range es {
		r, err := e.Eval(root, local)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// Nullish reports whether v is null, undefined or missing, the values
// most operators answer null for.
func Nullish(v bsoncore.Value) bool {
	return v.Type == 0 || v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeUndefined
}

// simple builds an operator from a function of its evaluated arguments,
// checking the argument count when n >= 0.
func simple(op string, v bsoncore.Value, vars *Vars, n int, f func([]bsoncore.Value) (bsoncore.Value, error)) (*Expr, error) {
	es, err := args(v, vars)
	if err != nil {
		return nil, err
	}
	if n >= 0 && len(es) != n {
		return nil, mongoerr.New(mongoerr.Location(16020), "Expression %s takes exactly %d arguments. %d were passed in.", op, n, len(es))
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		vals, err := evalAll(es, root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		return f(vals)
	}}, nil
}

// compileOp compiles the operator expression {op: v}.
func compileOp(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	if compile, ok := exprOps[op]; ok {
		return compile(op, v, vars)
	}
	return nil, mongoerr.New(mongoerr.InvalidPipelineOperator, "Unrecognized expression '%s'", op)
}

func optExpr(d bsoncore.Document, key string, vars *Vars) (*Expr, error) {
	v, err := d.LookupErr(key)
	if err != nil {
		return nil, nil
	}
	return Compile(v, vars)
}

// Predicate is $expr in a query filter, compiled with vars: the compiler
// the query package's Options.Expr takes. A document matches when the
// expression's value is true by MongoDB's rules; an error does not match.
func Predicate(vars *Vars) func(bsoncore.Value) (func(bsoncore.Document) bool, error) {
	return func(arg bsoncore.Value) (func(bsoncore.Document) bool, error) {
		e, err := Compile(arg, vars)
		if err != nil {
			return nil, err
		}
		return func(doc bsoncore.Document) bool {
			r, err := e.Eval(doc, nil)
			return err == nil && bsonval.Truthy(r)
		}, nil
	}
}
