package expr

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The string expression operators: $concat, $toUpper, $toLower, $substr,
// $substrBytes, $substrCP, $strLenBytes, $strLenCP, $split, $trim,
// $ltrim, $rtrim, $indexOfBytes, $indexOfCP, $strcasecmp, $replaceOne
// and $replaceAll; the regular expression ones are in regex.go.

// evalNamed evaluates the named arguments present; absent ones are
// missing.
func evalNamed(es map[string]*Expr, root bsoncore.Document, local map[string]bsoncore.Value, names ...string) ([]bsoncore.Value, error) {
	out := make([]bsoncore.Value, len(names))
	for i, n := range names {
		if e := es[n]; e != nil {
			r, err := e.Eval(root, local)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
	}
	return out, nil
}

// trimSpace is what $trim removes without 'chars': the null character,
// ASCII whitespace and Unicode's space separators.
const trimSpace = "\x00 \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

func compileTrim(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	es, err := namedArgs(v, vars, nil, func() error {
		return mongoerr.New(mongoerr.Location(50696), "%s only supports an object as an argument, found %s", op, bsonval.TypeName(v.Type))
	}, unknownArg(op, 50694, "found an unknown argument"), "input", "chars")
	if err != nil {
		return nil, err
	}
	if es["input"] == nil {
		return nil, mongoerr.New(mongoerr.Location(50695), "%s requires an 'input' field", op)
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		x, err := evalNamed(es, root, local, "input", "chars")
		if err != nil {
			return bsonval.Missing, err
		}
		in := x[0]
		if Nullish(in) {
			return bsonval.Null(), nil
		}
		if in.Type != bsoncore.TypeString {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(50699), "%s requires its input to be a string, got %s (of type %s) instead.", op, bsonval.Shell(in), bsonval.TypeName(in.Type))
		}
		cut := trimSpace
		if es["chars"] != nil {
			if Nullish(x[1]) {
				return bsonval.Null(), nil
			}
			if x[1].Type != bsoncore.TypeString {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(50700), "%s requires 'chars' to be a string, got %s (of type %s) instead.", op, bsonval.Shell(x[1]), bsonval.TypeName(x[1].Type))
			}
			cut = x[1].StringValue()
		}
		s := in.StringValue()
		if op != "$rtrim" {
			s = strings.TrimLeft(s, cut)
		}
		if op != "$ltrim" {
			s = strings.TrimRight(s, cut)
		}
		return bsonval.String(s), nil
	}}, nil
}

// compileIndexOfStr is $indexOfBytes and $indexOfCP: [string, substring,
// start, end], indexes in bytes or code points.
func compileIndexOfStr(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	codes := [2]int32{40091, 40092}
	if op == "$indexOfCP" {
		codes = [2]int32{40093, 40094}
	}
	return ranged(op, v, vars, 2, 4, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) {
			return bsonval.Null(), nil
		}
		if x[0].Type != bsoncore.TypeString {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(codes[0]), "%s requires a string as the first argument, found: %s", op, bsonval.TypeName(x[0].Type))
		}
		if x[1].Type != bsoncore.TypeString {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(codes[1]), "%s requires a string as the second argument, found: %s", op, bsonval.TypeName(x[1].Type))
		}
		s, sub := x[0].StringValue(), x[1].StringValue()
		if op == "$indexOfBytes" {
			start, end, err := indexBounds(op, x, len(s))
			if err != nil {
				return bsonval.Missing, err
			}
			if start > end {
				return bsonval.Int32(-1), nil
			}
			if i := strings.Index(s[start:end], sub); i >= 0 {
				return bsonval.Int32(int32(start + i)), nil
			}
			return bsonval.Int32(-1), nil
		}
		rs, rsub := []rune(s), []rune(sub)
		start, end, err := indexBounds(op, x, len(rs))
		if err != nil {
			return bsonval.Missing, err
		}
		for i := start; i+len(rsub) <= end; i++ {
			if string(rs[i:i+len(rsub)]) == string(rsub) {
				return bsonval.Int32(int32(i)), nil
			}
		}
		return bsonval.Int32(-1), nil
	})
}

// coerceString is a value as the string operators that accept any scalar
// read it: null and missing are the empty string.
func coerceString(op string, v bsoncore.Value) (string, error) {
	switch v.Type {
	case 0, bsoncore.TypeNull, bsoncore.TypeUndefined, bsoncore.TypeString, bsoncore.TypeSymbol,
		bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128, bsoncore.TypeDateTime:
		return bsonval.Text(v), nil
	case bsoncore.TypeTimestamp:
		return v.String(), nil
	}
	return "", mongoerr.New(mongoerr.Location(16007), "can't convert from BSON type %s to String", bsonval.TypeName(v.Type))
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func compileStrcasecmp(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a, err := coerceString(op, x[0])
		if err != nil {
			return bsonval.Missing, err
		}
		b, err := coerceString(op, x[1])
		if err != nil {
			return bsonval.Missing, err
		}
		return bsonval.Int32(int32(strings.Compare(asciiLower(a), asciiLower(b)))), nil
	})
}

func compileReplace(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	es, err := namedArgs(v, vars, nil, func() error {
		return mongoerr.New(mongoerr.Location(51751), "%s requires an object as an argument, found: %s", op, bsonval.TypeName(v.Type))
	}, unknownArg(op, 51750, "found an unknown argument"), "input", "find", "replacement")
	if err != nil {
		return nil, err
	}
	for i, k := range []string{"input", "find", "replacement"} {
		if es[k] == nil {
			return nil, mongoerr.New(mongoerr.Location(51749-int32(i)), "%s requires '%s' to be specified", op, k)
		}
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		x, err := evalNamed(es, root, local, "input", "find", "replacement")
		if err != nil {
			return bsonval.Missing, err
		}
		null := false
		for i, k := range []string{"input", "find", "replacement"} {
			if Nullish(x[i]) {
				null = true
				continue
			}
			if x[i].Type != bsoncore.TypeString {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(51746-int32(i)), "%s requires that '%s' be a string, found: %s", op, k, bsonval.Shell(x[i]))
			}
		}
		if null {
			return bsonval.Null(), nil
		}
		s, find, repl := x[0].StringValue(), x[1].StringValue(), x[2].StringValue()
		if op == "$replaceOne" {
			return bsonval.String(strings.Replace(s, find, repl, 1)), nil
		}
		return bsonval.String(strings.ReplaceAll(s, find, repl)), nil
	}}, nil
}

// compileConcat is $concat: strings joined, null when any is null or
// missing.
func compileConcat(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, -1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		var b strings.Builder
		for _, s := range x {
			if Nullish(s) {
				return bsonval.Null(), nil
			}
			if s.Type != bsoncore.TypeString {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(16702), "$concat only supports strings, not %s", bsonval.TypeName(s.Type))
			}
			b.WriteString(s.StringValue())
		}
		return bsonval.String(b.String()), nil
	})
}

// compileChangeCase is $toUpper and $toLower.
func compileChangeCase(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		s := bsonval.Text(x[0])
		if op == "$toUpper" {
			return bsonval.String(strings.ToUpper(s)), nil
		}
		return bsonval.String(strings.ToLower(s)), nil
	})
}

// compileSubstr is $substr and $substrBytes ([string, start, length] in
// bytes) and $substrCP (in code points).
func compileSubstr(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 3, func(x []bsoncore.Value) (bsoncore.Value, error) {
		s := bsonval.Text(x[0])
		start, n := int(bsonval.NumberFloat(x[1])), int(bsonval.NumberFloat(x[2]))
		if op == "$substrCP" {
			r := []rune(s)
			if start < 0 || start > len(r) {
				return bsonval.String(""), nil
			}
			if n < 0 || start+n > len(r) {
				n = len(r) - start
			}
			return bsonval.String(string(r[start : start+n])), nil
		}
		if start < 0 || start > len(s) {
			return bsonval.String(""), nil
		}
		if n < 0 || start+n > len(s) {
			n = len(s) - start
		}
		return bsonval.String(s[start : start+n]), nil
	})
}

func compileStrLen(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if x[0].Type != bsoncore.TypeString {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(34471), "%s requires a string argument, found: %s", op, bsonval.TypeName(x[0].Type))
		}
		if op == "$strLenCP" {
			return bsonval.Int32(int32(len([]rune(x[0].StringValue())))), nil
		}
		return bsonval.Int32(int32(len(x[0].StringValue()))), nil
	})
}

func compileSplit(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) {
			return bsonval.Null(), nil
		}
		var out []bsoncore.Value
		for _, p := range strings.Split(bsonval.Text(x[0]), bsonval.Text(x[1])) {
			out = append(out, bsonval.String(p))
		}
		return bsonval.Array(out), nil
	})
}
