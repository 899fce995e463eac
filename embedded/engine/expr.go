package engine

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// exprVars are the variables an expression sees: let variables, $$NOW.
type exprVars struct {
	vars map[string]bsoncore.Value
	now  time.Time
	coll *collator // the command's collation; nil: simple
}

// collator is the collation strings are compared with (nil: simple).
func (v *exprVars) collator() *collator {
	if v == nil {
		return nil
	}
	return v.coll
}

// expr is a compiled aggregation expression.
type expr struct {
	eval func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error)
}

func constExpr(v bsoncore.Value) *expr {
	return &expr{eval: func(bsoncore.Document, map[string]bsoncore.Value) (bsoncore.Value, error) { return v, nil }}
}

// truthy is MongoDB's boolean conversion.
func truthy(v bsoncore.Value) bool {
	switch v.Type {
	case 0, bsoncore.TypeNull, bsoncore.TypeUndefined:
		return false
	case bsoncore.TypeBoolean:
		return v.Boolean()
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		return numberFloat(v) != 0
	}
	return true
}

// exprPath is the value of "$a.b": through arrays it gives the array of
// the values found.
func exprPath(v bsoncore.Value, parts []string) bsoncore.Value {
	for i, p := range parts {
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument:
			f, err := bsoncore.Document(v.Data).LookupErr(p)
			if err != nil {
				return missing
			}
			v = f
		case bsoncore.TypeArray:
			var out []bsoncore.Value
			for _, e := range arrayValues(v) {
				if e.Type != bsoncore.TypeEmbeddedDocument && e.Type != bsoncore.TypeArray {
					continue
				}
				r := exprPath(e, parts[i:])
				if r.Type != 0 {
					out = append(out, r)
				}
			}
			return vArray(out)
		default:
			return missing
		}
	}
	return v
}

func compileExpr(v bsoncore.Value, vars *exprVars) (*expr, error) {
	if vars == nil {
		vars = &exprVars{now: time.Now()}
	}
	switch v.Type {
	case bsoncore.TypeString:
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
			return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
				if cur, ok := local["CURRENT"]; ok {
					return exprPath(cur, parts), nil
				}
				return exprPath(vDoc(root), parts), nil
			}}, nil
		}
		return constExpr(v), nil
	case bsoncore.TypeArray:
		var es []*expr
		for _, e := range arrayValues(v) {
			c, err := compileExpr(e, vars)
			if err != nil {
				return nil, err
			}
			es = append(es, c)
		}
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			out := make([]bsoncore.Value, 0, len(es))
			for _, e := range es {
				r, err := e.eval(root, local)
				if err != nil {
					return missing, err
				}
				if r.Type == 0 {
					r = vNull()
				}
				out = append(out, r)
			}
			return vArray(out), nil
		}}, nil
	case bsoncore.TypeEmbeddedDocument:
		els := elements(bsoncore.Document(v.Data))
		if len(els) == 1 && strings.HasPrefix(els[0].Key(), "$") {
			return compileOp(els[0].Key(), els[0].Value(), vars)
		}
		type field struct {
			k string
			e *expr
		}
		var fs []field
		for _, el := range els {
			if strings.HasPrefix(el.Key(), "$") {
				return nil, mongoerr.New(mongoerr.Location(16410), "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
			}
			c, err := compileExpr(el.Value(), vars)
			if err != nil {
				return nil, err
			}
			fs = append(fs, field{el.Key(), c})
		}
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			b := bsoncore.NewDocumentBuilder()
			for _, f := range fs {
				r, err := f.e.eval(root, local)
				if err != nil {
					return missing, err
				}
				if r.Type != 0 {
					b.AppendValue(f.k, r)
				}
			}
			return vDoc(b.Build()), nil
		}}, nil
	}
	return constExpr(v), nil
}

func compileVar(name string, parts []string, vars *exprVars) (*expr, error) {
	switch name {
	case "NOW":
		return constExpr(vDate(vars.now.UnixMilli())), nil
	case "REMOVE":
		return constExpr(missing), nil
	case "ROOT":
		return &expr{eval: func(root bsoncore.Document, _ map[string]bsoncore.Value) (bsoncore.Value, error) {
			return exprPath(vDoc(root), parts), nil
		}}, nil
	}
	if v, ok := vars.vars[name]; ok && name != "CURRENT" {
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			if lv, ok := local[name]; ok {
				return exprPath(lv, parts), nil
			}
			return exprPath(v, parts), nil
		}}, nil
	}
	if name != "CURRENT" {
		return nil, mongoerr.New(mongoerr.Location(17276), "Use of undefined variable: %s", name)
	}
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		if lv, ok := local[name]; ok {
			return exprPath(lv, parts), nil
		}
		return exprPath(vDoc(root), parts), nil
	}}, nil
}

// args compiles an operator's arguments: an array, or one value.
func args(v bsoncore.Value, vars *exprVars) ([]*expr, error) {
	var vals []bsoncore.Value
	if v.Type == bsoncore.TypeArray {
		vals = arrayValues(v)
	} else {
		vals = []bsoncore.Value{v}
	}
	out := make([]*expr, len(vals))
	for i, a := range vals {
		e, err := compileExpr(a, vars)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func evalAll(es []*expr, root bsoncore.Document, local map[string]bsoncore.Value) ([]bsoncore.Value, error) {
	out := make([]bsoncore.Value, len(es))
	for i, e := range es {
		r, err := e.eval(root, local)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func nullish(v bsoncore.Value) bool {
	return v.Type == 0 || v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeUndefined
}

// simple builds an operator from a function of its evaluated arguments,
// checking the argument count when n >= 0.
func simple(op string, v bsoncore.Value, vars *exprVars, n int, f func([]bsoncore.Value) (bsoncore.Value, error)) (*expr, error) {
	es, err := args(v, vars)
	if err != nil {
		return nil, err
	}
	if n >= 0 && len(es) != n {
		return nil, mongoerr.New(mongoerr.Location(16020), "Expression %s takes exactly %d arguments. %d were passed in.", op, n, len(es))
	}
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		vals, err := evalAll(es, root, local)
		if err != nil {
			return missing, err
		}
		return f(vals)
	}}, nil
}

func compileOp(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	switch op {
	case "$literal":
		return constExpr(v), nil
	case "$add", "$multiply":
		return simple(op, v, vars, -1, func(vals []bsoncore.Value) (bsoncore.Value, error) {
			var acc bsoncore.Value
			date := false
			if op == "$add" {
				acc = vInt32(0)
			} else {
				acc = vInt32(1)
			}
			for _, x := range vals {
				if nullish(x) {
					return vNull(), nil
				}
				if x.Type == bsoncore.TypeDateTime && op == "$add" {
					if date {
						return missing, mongoerr.New(mongoerr.Location(16612), "only one date allowed in an $add expression")
					}
					date = true
					acc = arith('+', acc, vInt64(x.DateTime()))
					continue
				}
				if !isNumber(x) {
					return missing, mongoerr.New(mongoerr.TypeMismatch, "%s only supports numeric or date types, not %s", op, typeName(x.Type))
				}
				if op == "$add" {
					acc = arith('+', acc, x)
				} else {
					acc = arith('*', acc, x)
				}
			}
			if date {
				return vDate(int64(math.Round(numberFloat(acc)))), nil
			}
			return acc, nil
		})
	case "$subtract":
		return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
			a, b := x[0], x[1]
			switch {
			case nullish(a) || nullish(b):
				return vNull(), nil
			case a.Type == bsoncore.TypeDateTime && b.Type == bsoncore.TypeDateTime:
				return vInt64(a.DateTime() - b.DateTime()), nil
			case a.Type == bsoncore.TypeDateTime && isNumber(b):
				return vDate(a.DateTime() - int64(numberFloat(b))), nil
			case isNumber(a) && isNumber(b):
				return arith('+', a, negate(b)), nil
			}
			return missing, mongoerr.New(mongoerr.TypeMismatch, "can't $subtract %s from %s", typeName(b.Type), typeName(a.Type))
		})
	case "$divide", "$mod":
		return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
			a, b := x[0], x[1]
			if nullish(a) || nullish(b) {
				return vNull(), nil
			}
			if !isNumber(a) || !isNumber(b) {
				return missing, mongoerr.New(mongoerr.TypeMismatch, "%s only supports numeric types, not %s and %s", op, typeName(a.Type), typeName(b.Type))
			}
			if numberFloat(b) == 0 {
				if op == "$divide" {
					return missing, mongoerr.New(mongoerr.BadValue, "can't $divide by zero")
				}
				return missing, mongoerr.New(mongoerr.Location(16610), "can't $mod by zero")
			}
			if op == "$divide" {
				return vDouble(numberFloat(a) / numberFloat(b)), nil
			}
			ai, aok := intOf(a)
			bi, bok := intOf(b)
			if aok && bok {
				r := ai % bi
				if a.Type == bsoncore.TypeInt32 && b.Type == bsoncore.TypeInt32 {
					return vInt32(int32(r)), nil
				}
				return vInt64(r), nil
			}
			return vDouble(math.Mod(numberFloat(a), numberFloat(b))), nil
		})
	case "$abs", "$ceil", "$floor", "$sqrt", "$trunc", "$round", "$exp", "$ln", "$log10":
		return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if len(x) == 0 || nullish(x[0]) {
				return vNull(), nil
			}
			a := x[0]
			if !isNumber(a) {
				return missing, mongoerr.New(mongoerr.Location(28765), "%s only supports numeric types, not %s", op, typeName(a.Type))
			}
			if i, ok := intOf(a); ok && op != "$sqrt" && op != "$exp" && op != "$ln" && op != "$log10" {
				if op == "$abs" && i < 0 {
					return intLike(a, -i), nil
				}
				return a, nil
			}
			f := numberFloat(a)
			switch op {
			case "$abs":
				f = math.Abs(f)
			case "$ceil":
				f = math.Ceil(f)
			case "$floor":
				f = math.Floor(f)
			case "$sqrt":
				f = math.Sqrt(f)
			case "$trunc":
				p := 0.0
				if len(x) > 1 {
					p = numberFloat(x[1])
				}
				m := math.Pow(10, p)
				f = math.Trunc(f*m) / m
			case "$round":
				p := 0.0
				if len(x) > 1 {
					p = numberFloat(x[1])
				}
				m := math.Pow(10, p)
				f = math.RoundToEven(f*m) / m
			case "$exp":
				f = math.Exp(f)
			case "$ln":
				f = math.Log(f)
			case "$log10":
				f = math.Log10(f)
			}
			return vDouble(f), nil
		})
	case "$pow":
		return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if nullish(x[0]) || nullish(x[1]) {
				return vNull(), nil
			}
			r := math.Pow(numberFloat(x[0]), numberFloat(x[1]))
			_, ai := intOf(x[0])
			_, bi := intOf(x[1])
			if ai && bi && r == math.Trunc(r) && math.Abs(r) < 9e15 {
				return intValue(int64(r)), nil
			}
			return vDouble(r), nil
		})
	case "$cmp", "$eq", "$ne", "$gt", "$gte", "$lt", "$lte":
		return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
			c := compareValues(x[0], x[1])
			switch op {
			case "$cmp":
				return vInt32(int32(c)), nil
			case "$eq":
				return vBool(c == 0), nil
			case "$ne":
				return vBool(c != 0), nil
			}
			return vBool(cmpOK(op, c)), nil
		})
	case "$and", "$or":
		es, err := args(v, vars)
		if err != nil {
			return nil, err
		}
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			for _, e := range es {
				r, err := e.eval(root, local)
				if err != nil {
					return missing, err
				}
				if op == "$and" && !truthy(r) {
					return vBool(false), nil
				}
				if op == "$or" && truthy(r) {
					return vBool(true), nil
				}
			}
			return vBool(op == "$and"), nil
		}}, nil
	case "$not":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) { return vBool(!truthy(x[0])), nil })
	case "$cond":
		var ifE, thenE, elseE *expr
		var err error
		if v.Type == bsoncore.TypeEmbeddedDocument {
			d := bsoncore.Document(v.Data)
			get := func(k string) (*expr, error) {
				a, err := d.LookupErr(k)
				if err != nil {
					return nil, mongoerr.New(mongoerr.Location(17080), "Missing '%s' parameter to $cond", k)
				}
				return compileExpr(a, vars)
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
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			c, err := ifE.eval(root, local)
			if err != nil {
				return missing, err
			}
			if truthy(c) {
				return thenE.eval(root, local)
			}
			return elseE.eval(root, local)
		}}, nil
	case "$ifNull":
		es, err := args(v, vars)
		if err != nil {
			return nil, err
		}
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			var r bsoncore.Value
			for _, e := range es {
				r, err = e.eval(root, local)
				if err != nil {
					return missing, err
				}
				if !nullish(r) {
					return r, nil
				}
			}
			return r, nil
		}}, nil
	case "$switch":
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.Location(40060), "$switch requires an object as an argument")
		}
		d := bsoncore.Document(v.Data)
		type br struct{ c, t *expr }
		var brs []br
		if bv, err := d.LookupErr("branches"); err == nil {
			for _, b := range arrayValues(bv) {
				bd := bsoncore.Document(b.Data)
				cv, e1 := bd.LookupErr("case")
				tv, e2 := bd.LookupErr("then")
				if e1 != nil || e2 != nil {
					return nil, mongoerr.New(mongoerr.Location(40064), "$switch requires each branch have a 'case' and 'then' expression")
				}
				c, err := compileExpr(cv, vars)
				if err != nil {
					return nil, err
				}
				t, err := compileExpr(tv, vars)
				if err != nil {
					return nil, err
				}
				brs = append(brs, br{c, t})
			}
		}
		var def *expr
		if dv, err := d.LookupErr("default"); err == nil {
			if def, err = compileExpr(dv, vars); err != nil {
				return nil, err
			}
		}
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			for _, b := range brs {
				c, err := b.c.eval(root, local)
				if err != nil {
					return missing, err
				}
				if truthy(c) {
					return b.t.eval(root, local)
				}
			}
			if def == nil {
				return missing, mongoerr.New(mongoerr.Location(40066), "$switch could not find a matching branch for an input, and no default was specified.")
			}
			return def.eval(root, local)
		}}, nil
	case "$type":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) { return vString(typeName(x[0].Type)), nil })
	case "$isNumber":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) { return vBool(isNumber(x[0])), nil })
	case "$isArray":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			return vBool(x[0].Type == bsoncore.TypeArray), nil
		})
	case "$size":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if x[0].Type != bsoncore.TypeArray {
				return missing, mongoerr.New(mongoerr.Location(17124), "The argument to $size must be an array. Type of argument is %s", typeName(x[0].Type))
			}
			return vInt32(int32(len(arrayValues(x[0])))), nil
		})
	case "$concat":
		return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			var b strings.Builder
			for _, s := range x {
				if nullish(s) {
					return vNull(), nil
				}
				if s.Type != bsoncore.TypeString {
					return missing, mongoerr.New(mongoerr.Location(16702), "$concat only supports strings, not %s", typeName(s.Type))
				}
				b.WriteString(s.StringValue())
			}
			return vString(b.String()), nil
		})
	case "$toUpper", "$toLower":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			s := toStr(x[0])
			if op == "$toUpper" {
				return vString(strings.ToUpper(s)), nil
			}
			return vString(strings.ToLower(s)), nil
		})
	case "$substr", "$substrBytes", "$substrCP":
		return simple(op, v, vars, 3, func(x []bsoncore.Value) (bsoncore.Value, error) {
			s := toStr(x[0])
			start, n := int(numberFloat(x[1])), int(numberFloat(x[2]))
			if op == "$substrCP" {
				r := []rune(s)
				if start < 0 || start > len(r) {
					return vString(""), nil
				}
				if n < 0 || start+n > len(r) {
					n = len(r) - start
				}
				return vString(string(r[start : start+n])), nil
			}
			if start < 0 || start > len(s) {
				return vString(""), nil
			}
			if n < 0 || start+n > len(s) {
				n = len(s) - start
			}
			return vString(s[start : start+n]), nil
		})
	case "$strLenCP", "$strLenBytes":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if x[0].Type != bsoncore.TypeString {
				return missing, mongoerr.New(mongoerr.Location(34471), "%s requires a string argument, found: %s", op, typeName(x[0].Type))
			}
			if op == "$strLenCP" {
				return vInt32(int32(len([]rune(x[0].StringValue())))), nil
			}
			return vInt32(int32(len(x[0].StringValue()))), nil
		})
	case "$split":
		return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if nullish(x[0]) {
				return vNull(), nil
			}
			var out []bsoncore.Value
			for _, p := range strings.Split(toStr(x[0]), toStr(x[1])) {
				out = append(out, vString(p))
			}
			return vArray(out), nil
		})
	case "$toString":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if nullish(x[0]) {
				return vNull(), nil
			}
			return vString(toStr(x[0])), nil
		})
	case "$toInt", "$toLong", "$toDouble", "$toDecimal", "$toBool", "$toDate", "$toObjectId":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) { return convert(x[0], op[3:]) })
	case "$convert":
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.FailedToParse, "$convert expects an object of named arguments but found: %s", typeName(v.Type))
		}
		d := bsoncore.Document(v.Data)
		in, err := optExpr(d, "input", vars)
		if err != nil {
			return nil, err
		}
		to, err := optExpr(d, "to", vars)
		if err != nil {
			return nil, err
		}
		onErr, _ := optExpr(d, "onError", vars)
		onNull, _ := optExpr(d, "onNull", vars)
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			iv, err := in.eval(root, local)
			if err != nil {
				return missing, err
			}
			tv, err := to.eval(root, local)
			if err != nil {
				return missing, err
			}
			if nullish(iv) {
				if onNull != nil {
					return onNull.eval(root, local)
				}
				return vNull(), nil
			}
			target := toStr(tv)
			if isNumber(tv) {
				target = typeNames[bsoncore.Type(int(numberFloat(tv)))]
			}
			names := map[string]string{"int": "Int", "long": "Long", "double": "Double", "decimal": "Decimal", "bool": "Bool", "date": "Date", "objectId": "ObjectId", "string": "String"}
			r, err := convert(iv, names[target])
			if err != nil && onErr != nil {
				return onErr.eval(root, local)
			}
			return r, err
		}}, nil
	case "$year", "$month", "$dayOfMonth", "$hour", "$minute", "$second", "$millisecond", "$dayOfWeek", "$dayOfYear", "$week", "$isoWeek", "$isoWeekYear", "$isoDayOfWeek":
		arg := v
		var tz *expr
		if v.Type == bsoncore.TypeEmbeddedDocument {
			d := bsoncore.Document(v.Data)
			if dv, err := d.LookupErr("date"); err == nil {
				arg = dv
				if t, err := d.LookupErr("timezone"); err == nil {
					if tz, err = compileExpr(t, vars); err != nil {
						return nil, err
					}
				}
			}
		}
		if arg.Type == bsoncore.TypeArray {
			vals := arrayValues(arg)
			if len(vals) == 1 {
				arg = vals[0]
			}
		}
		e, err := compileExpr(arg, vars)
		if err != nil {
			return nil, err
		}
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			d, err := e.eval(root, local)
			if err != nil {
				return missing, err
			}
			if nullish(d) {
				return vNull(), nil
			}
			t, ok := dateOf(d)
			if !ok {
				return missing, mongoerr.New(mongoerr.Location(16006), "can't convert from BSON type %s to Date", typeName(d.Type))
			}
			if tz != nil {
				zv, err := tz.eval(root, local)
				if err != nil {
					return missing, err
				}
				loc, err := location(toStr(zv))
				if err != nil {
					return missing, err
				}
				t = t.In(loc)
			}
			return vInt32(int32(datePart(op, t))), nil
		}}, nil
	case "$dateToString":
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.Location(18629), "$dateToString only supports an object as its argument")
		}
		d := bsoncore.Document(v.Data)
		de, err := optExpr(d, "date", vars)
		if err != nil || de == nil {
			return nil, mongoerr.New(mongoerr.Location(18628), "Missing 'date' parameter to $dateToString")
		}
		fe, _ := optExpr(d, "format", vars)
		tze, _ := optExpr(d, "timezone", vars)
		one, _ := optExpr(d, "onNull", vars)
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			dv, err := de.eval(root, local)
			if err != nil {
				return missing, err
			}
			if nullish(dv) {
				if one != nil {
					return one.eval(root, local)
				}
				return vNull(), nil
			}
			t, ok := dateOf(dv)
			if !ok {
				return missing, mongoerr.New(mongoerr.Location(16006), "can't convert from BSON type %s to Date", typeName(dv.Type))
			}
			format := "%Y-%m-%dT%H:%M:%S.%LZ"
			if fe != nil {
				fv, _ := fe.eval(root, local)
				format = toStr(fv)
			}
			if tze != nil {
				zv, _ := tze.eval(root, local)
				loc, err := location(toStr(zv))
				if err != nil {
					return missing, err
				}
				t = t.In(loc)
			}
			return vString(formatDate(format, t)), nil
		}}, nil
	case "$arrayElemAt":
		return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if nullish(x[0]) || nullish(x[1]) {
				return vNull(), nil
			}
			if x[0].Type != bsoncore.TypeArray {
				return missing, mongoerr.New(mongoerr.Location(28689), "$arrayElemAt's first argument must be an array, but is %s", typeName(x[0].Type))
			}
			vals := arrayValues(x[0])
			i := int(numberFloat(x[1]))
			if i < 0 {
				i += len(vals)
			}
			if i < 0 || i >= len(vals) {
				return missing, nil
			}
			return vals[i], nil
		})
	case "$first", "$last":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if nullish(x[0]) {
				return vNull(), nil
			}
			if x[0].Type != bsoncore.TypeArray {
				return missing, mongoerr.New(mongoerr.Location(28689), "%s's argument must be an array, but is %s", op, typeName(x[0].Type))
			}
			vals := arrayValues(x[0])
			if len(vals) == 0 {
				return missing, nil
			}
			if op == "$first" {
				return vals[0], nil
			}
			return vals[len(vals)-1], nil
		})
	case "$in":
		return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if x[1].Type != bsoncore.TypeArray {
				return missing, mongoerr.New(mongoerr.Location(40081), "$in requires an array as a second argument, found: %s", typeName(x[1].Type))
			}
			for _, e := range arrayValues(x[1]) {
				if valuesEqual(e, x[0]) {
					return vBool(true), nil
				}
			}
			return vBool(false), nil
		})
	case "$concatArrays":
		return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			var out []bsoncore.Value
			for _, a := range x {
				if nullish(a) {
					return vNull(), nil
				}
				if a.Type != bsoncore.TypeArray {
					return missing, mongoerr.New(mongoerr.Location(28664), "$concatArrays only supports arrays, not %s", typeName(a.Type))
				}
				out = append(out, arrayValues(a)...)
			}
			return vArray(out), nil
		})
	case "$mergeObjects":
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
	case "$filter", "$map":
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
			as = toStr(a)
		}
		key := "cond"
		if op == "$map" {
			key = "in"
		}
		inner := &exprVars{vars: map[string]bsoncore.Value{}, now: vars.now}
		for k, val := range vars.vars {
			inner.vars[k] = val
		}
		inner.vars[as] = vNull()
		body, err := optExpr(d, key, inner)
		if err != nil {
			return nil, err
		}
		if body == nil {
			return nil, mongoerr.New(mongoerr.Location(28650), "Missing '%s' parameter to %s", key, op)
		}
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			iv, err := in.eval(root, local)
			if err != nil {
				return missing, err
			}
			if nullish(iv) {
				return vNull(), nil
			}
			if iv.Type != bsoncore.TypeArray {
				return missing, mongoerr.New(mongoerr.Location(28651), "input to %s must be an array not %s", op, typeName(iv.Type))
			}
			l := map[string]bsoncore.Value{}
			for k, val := range local {
				l[k] = val
			}
			var out []bsoncore.Value
			for _, e := range arrayValues(iv) {
				l[as] = e
				r, err := body.eval(root, l)
				if err != nil {
					return missing, err
				}
				if op == "$map" {
					if r.Type == 0 {
						r = vNull()
					}
					out = append(out, r)
				} else if truthy(r) {
					out = append(out, e)
				}
			}
			return vArray(out), nil
		}}, nil
	case "$let":
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.Location(16874), "$let only supports an object as its argument")
		}
		d := bsoncore.Document(v.Data)
		vv, err := d.LookupErr("vars")
		if err != nil {
			return nil, mongoerr.New(mongoerr.Location(16876), "Missing 'vars' parameter to $let")
		}
		inner := &exprVars{vars: map[string]bsoncore.Value{}, now: vars.now}
		for k, val := range vars.vars {
			inner.vars[k] = val
		}
		type bind struct {
			name string
			e    *expr
		}
		var binds []bind
		for _, el := range elements(bsoncore.Document(vv.Data)) {
			e, err := compileExpr(el.Value(), vars)
			if err != nil {
				return nil, err
			}
			binds = append(binds, bind{el.Key(), e})
			inner.vars[el.Key()] = vNull()
		}
		body, err := optExpr(d, "in", inner)
		if err != nil || body == nil {
			return nil, mongoerr.New(mongoerr.Location(16877), "Missing 'in' parameter to $let")
		}
		return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
			l := map[string]bsoncore.Value{}
			for k, val := range local {
				l[k] = val
			}
			for _, b := range binds {
				r, err := b.e.eval(root, local)
				if err != nil {
					return missing, err
				}
				l[b.name] = r
			}
			return body.eval(root, l)
		}}, nil
	case "$objectToArray":
		return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if nullish(x[0]) {
				return vNull(), nil
			}
			var out []bsoncore.Value
			for _, el := range elements(bsoncore.Document(x[0].Data)) {
				out = append(out, vDoc(bsoncore.NewDocumentBuilder().AppendString("k", el.Key()).AppendValue("v", el.Value()).Build()))
			}
			return vArray(out), nil
		})
	case "$arrayToObject":
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
	case "$rand":
		return &expr{eval: func(bsoncore.Document, map[string]bsoncore.Value) (bsoncore.Value, error) {
			return vDouble(rand.Float64()), nil
		}}, nil
	case "$getField", "$setField", "$unsetField":
		return compileFieldOps(op, v, vars)
	case "$sum", "$avg", "$max", "$min":
		return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
			if len(x) == 1 && x[0].Type == bsoncore.TypeArray {
				x = arrayValues(x[0])
			}
			acc := newAccumulator(op)
			for _, e := range x {
				acc.add(e)
			}
			return acc.result(), nil
		})
	}
	if compile, ok := moreOps[op]; ok {
		return compile(op, v, vars)
	}
	return nil, mongoerr.New(mongoerr.InvalidPipelineOperator, "Unrecognized expression '%s'", op)
}

// moreOps are expression operators compiled outside compileOp, one file
// per group (expr_*.go), each adding its own in an init function.
var moreOps = map[string]func(op string, v bsoncore.Value, vars *exprVars) (*expr, error){}

func optExpr(d bsoncore.Document, key string, vars *exprVars) (*expr, error) {
	v, err := d.LookupErr(key)
	if err != nil {
		return nil, nil
	}
	return compileExpr(v, vars)
}

func negate(v bsoncore.Value) bsoncore.Value {
	switch v.Type {
	case bsoncore.TypeInt32:
		return vInt64(-int64(v.Int32()))
	case bsoncore.TypeInt64:
		if v.Int64() == math.MinInt64 {
			return vDouble(-float64(v.Int64()))
		}
		return vInt64(-v.Int64())
	case bsoncore.TypeDouble:
		return vDouble(-v.Double())
	}
	r, _ := bigOf(v)
	if r == nil {
		return v
	}
	d, _ := bson.ParseDecimal128(r.Neg(r).FloatString(20))
	return decimalValue(trimDecimal(d))
}

func intLike(like bsoncore.Value, i int64) bsoncore.Value {
	if like.Type == bsoncore.TypeInt32 && i <= math.MaxInt32 {
		return vInt32(int32(i))
	}
	return vInt64(i)
}

func toStr(v bsoncore.Value) string {
	switch v.Type {
	case bsoncore.TypeString:
		return v.StringValue()
	case bsoncore.TypeSymbol:
		return v.Symbol()
	case bsoncore.TypeObjectID:
		return bson.ObjectID(v.ObjectID()).Hex()
	case bsoncore.TypeDateTime:
		return time.UnixMilli(v.DateTime()).UTC().Format("2006-01-02T15:04:05.000Z")
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		i, _ := intOf(v)
		return strconv.FormatInt(i, 10)
	case bsoncore.TypeDouble:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case bsoncore.TypeBoolean:
		return strconv.FormatBool(v.Boolean())
	case bsoncore.TypeDecimal128:
		h, l := v.Decimal128()
		return bson.NewDecimal128(h, l).String()
	case 0, bsoncore.TypeNull:
		return ""
	}
	return shell(v)
}

func dateOf(v bsoncore.Value) (time.Time, bool) {
	switch v.Type {
	case bsoncore.TypeDateTime:
		return time.UnixMilli(v.DateTime()).UTC(), true
	case bsoncore.TypeObjectID:
		id := v.ObjectID()
		return time.Unix(int64(uint32(id[0])<<24|uint32(id[1])<<16|uint32(id[2])<<8|uint32(id[3])), 0).UTC(), true
	case bsoncore.TypeTimestamp:
		t, _ := v.Timestamp()
		return time.Unix(int64(t), 0).UTC(), true
	}
	return time.Time{}, false
}

func convert(v bsoncore.Value, to string) (bsoncore.Value, error) {
	if nullish(v) {
		return vNull(), nil
	}
	bad := func() (bsoncore.Value, error) {
		return missing, mongoerr.New(mongoerr.Location(241), "Unsupported conversion from %s to %s in $convert with no onError value", typeName(v.Type), strings.ToLower(to))
	}
	switch to {
	case "Int", "Long":
		var i int64
		switch {
		case v.Type == bsoncore.TypeString:
			n, err := strconv.ParseInt(v.StringValue(), 10, 64)
			if err != nil {
				return missing, mongoerr.New(mongoerr.Location(241), "Failed to parse number '%s' in $convert with no onError value", v.StringValue())
			}
			i = n
		case isNumber(v):
			f := numberFloat(v)
			if n, ok := intOf(v); ok {
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
			return bad()
		}
		if to == "Int" {
			if i > math.MaxInt32 || i < math.MinInt32 {
				return missing, mongoerr.New(mongoerr.Location(241), "Conversion would overflow target type in $convert with no onError value")
			}
			return vInt32(int32(i)), nil
		}
		return vInt64(i), nil
	case "Double", "Decimal":
		var f float64
		switch {
		case v.Type == bsoncore.TypeString:
			n, err := strconv.ParseFloat(v.StringValue(), 64)
			if err != nil {
				return missing, mongoerr.New(mongoerr.Location(241), "Failed to parse number '%s' in $convert with no onError value", v.StringValue())
			}
			f = n
		case isNumber(v):
			if to == "Decimal" {
				r, _ := bigOf(v)
				if r != nil {
					d, _ := bson.ParseDecimal128(r.FloatString(20))
					return decimalValue(trimDecimal(d)), nil
				}
			}
			f = numberFloat(v)
		case v.Type == bsoncore.TypeBoolean:
			if v.Boolean() {
				f = 1
			}
		case v.Type == bsoncore.TypeDateTime:
			f = float64(v.DateTime())
		default:
			return bad()
		}
		if to == "Decimal" {
			d, _ := bson.ParseDecimal128(strconv.FormatFloat(f, 'g', -1, 64))
			return decimalValue(d), nil
		}
		return vDouble(f), nil
	case "Bool":
		return vBool(truthy(v)), nil
	case "String":
		return vString(toStr(v)), nil
	case "Date":
		switch {
		case v.Type == bsoncore.TypeString:
			for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z0700", "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
				if t, err := time.Parse(layout, v.StringValue()); err == nil {
					return vDate(t.UnixMilli()), nil
				}
			}
			return missing, mongoerr.New(mongoerr.Location(241), "Error parsing date string '%s'", v.StringValue())
		case v.Type == bsoncore.TypeDateTime:
			return v, nil
		case v.Type == bsoncore.TypeInt64 || v.Type == bsoncore.TypeDouble || v.Type == bsoncore.TypeDecimal128:
			return vDate(int64(numberFloat(v))), nil
		case v.Type == bsoncore.TypeObjectID || v.Type == bsoncore.TypeTimestamp:
			t, _ := dateOf(v)
			return vDate(t.UnixMilli()), nil
		}
		return bad()
	case "ObjectId":
		switch v.Type {
		case bsoncore.TypeObjectID:
			return v, nil
		case bsoncore.TypeString:
			id, err := bson.ObjectIDFromHex(v.StringValue())
			if err != nil {
				return missing, mongoerr.New(mongoerr.Location(241), "Failed to parse objectId '%s' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found %d", v.StringValue(), len(v.StringValue()))
			}
			return bsoncore.Value{Type: bsoncore.TypeObjectID, Data: id[:]}, nil
		}
		return bad()
	}
	return bad()
}

func location(name string) (*time.Location, error) {
	if name == "" || name == "UTC" || name == "GMT" || name == "Z" {
		return time.UTC, nil
	}
	if name[0] == '+' || name[0] == '-' {
		s := strings.ReplaceAll(name[1:], ":", "")
		if len(s) == 2 {
			s += "00"
		}
		if len(s) == 4 {
			h, e1 := strconv.Atoi(s[:2])
			m, e2 := strconv.Atoi(s[2:])
			if e1 == nil && e2 == nil {
				off := (h*60 + m) * 60
				if name[0] == '-' {
					off = -off
				}
				return time.FixedZone(name, off), nil
			}
		}
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, mongoerr.New(mongoerr.Location(40485), "unrecognized time zone identifier: \"%s\"", name)
	}
	return loc, nil
}

func datePart(op string, t time.Time) int {
	switch op {
	case "$year":
		return t.Year()
	case "$month":
		return int(t.Month())
	case "$dayOfMonth":
		return t.Day()
	case "$hour":
		return t.Hour()
	case "$minute":
		return t.Minute()
	case "$second":
		return t.Second()
	case "$millisecond":
		return t.Nanosecond() / 1e6
	case "$dayOfWeek":
		return int(t.Weekday()) + 1
	case "$dayOfYear":
		return t.YearDay()
	case "$week":
		// weeks begin on Sunday; days before the first Sunday are week 0
		return (t.YearDay() + 6 - int(t.Weekday())) / 7
	case "$isoWeek":
		_, w := t.ISOWeek()
		return w
	case "$isoWeekYear":
		y, _ := t.ISOWeek()
		return y
	case "$isoDayOfWeek":
		d := int(t.Weekday())
		if d == 0 {
			d = 7
		}
		return d
	}
	return 0
}

func formatDate(f string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			b.WriteString(pad(t.Year(), 4))
		case 'm':
			b.WriteString(pad(int(t.Month()), 2))
		case 'd':
			b.WriteString(pad(t.Day(), 2))
		case 'H':
			b.WriteString(pad(t.Hour(), 2))
		case 'M':
			b.WriteString(pad(t.Minute(), 2))
		case 'S':
			b.WriteString(pad(t.Second(), 2))
		case 'L':
			b.WriteString(pad(t.Nanosecond()/1e6, 3))
		case 'j':
			b.WriteString(pad(t.YearDay(), 3))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday()) + 1))
		case 'u':
			b.WriteString(strconv.Itoa(datePart("$isoDayOfWeek", t)))
		case 'U':
			b.WriteString(pad(datePart("$week", t), 2))
		case 'V':
			b.WriteString(pad(datePart("$isoWeek", t), 2))
		case 'G':
			b.WriteString(pad(datePart("$isoWeekYear", t), 4))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			_, off := t.Zone()
			b.WriteString(strconv.Itoa(off / 60))
		case 'b':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

func pad(n, w int) string {
	s := strconv.Itoa(n)
	for len(s) < w {
		s = "0" + s
	}
	return s
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

// compileFieldOps compiles $getField, $setField and $unsetField, which
// name fields that may hold dots or start with '$'.
func compileFieldOps(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	var field, input, value *expr
	var err error
	if v.Type == bsoncore.TypeEmbeddedDocument && op != "$getField" || v.Type == bsoncore.TypeEmbeddedDocument && func() bool { _, e := bsoncore.Document(v.Data).LookupErr("field"); return e == nil }() {
		d := bsoncore.Document(v.Data)
		if field, err = optExpr(d, "field", vars); err != nil {
			return nil, err
		}
		if input, err = optExpr(d, "input", vars); err != nil {
			return nil, err
		}
		if value, err = optExpr(d, "value", vars); err != nil {
			return nil, err
		}
	} else if field, err = compileExpr(v, vars); err != nil {
		return nil, err
	}
	if field == nil {
		return nil, mongoerr.New(mongoerr.Location(3041702), "%s requires 'field' to be specified", op)
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
		return nil, mongoerr.New(mongoerr.Location(4161102), "$setField requires 'value' to be specified")
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
