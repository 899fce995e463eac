package engine

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The string expression operators: $trim, $ltrim, $rtrim, $indexOfBytes,
// $indexOfCP, $strcasecmp, $replaceOne, $replaceAll, $regexMatch,
// $regexFind and $regexFindAll.
func init() {
	for _, op := range []string{"$trim", "$ltrim", "$rtrim"} {
		moreOps[op] = compileTrim
	}
	moreOps["$indexOfBytes"] = compileIndexOfStr
	moreOps["$indexOfCP"] = compileIndexOfStr
	moreOps["$strcasecmp"] = compileStrcasecmp
	moreOps["$replaceOne"] = compileReplace
	moreOps["$replaceAll"] = compileReplace
	for _, op := range []string{"$regexMatch", "$regexFind", "$regexFindAll"} {
		moreOps[op] = compileRegexOp
	}
}

// evalNamed evaluates the named arguments present; absent ones are
// missing.
func evalNamed(es map[string]*expr, root bsoncore.Document, local map[string]bsoncore.Value, names ...string) ([]bsoncore.Value, error) {
	out := make([]bsoncore.Value, len(names))
	for i, n := range names {
		if e := es[n]; e != nil {
			r, err := e.eval(root, local)
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

func compileTrim(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	es, err := namedArgs(v, vars, nil, func() error {
		return mongoerr.New(mongoerr.Location(50696), "%s only supports an object as an argument, found %s", op, typeName(v.Type))
	}, unknownArg(op, 50694, "found an unknown argument"), "input", "chars")
	if err != nil {
		return nil, err
	}
	if es["input"] == nil {
		return nil, mongoerr.New(mongoerr.Location(50695), "%s requires an 'input' field", op)
	}
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		x, err := evalNamed(es, root, local, "input", "chars")
		if err != nil {
			return missing, err
		}
		in := x[0]
		if nullish(in) {
			return vNull(), nil
		}
		if in.Type != bsoncore.TypeString {
			return missing, mongoerr.New(mongoerr.Location(50699), "%s requires its input to be a string, got %s (of type %s) instead.", op, shell(in), typeName(in.Type))
		}
		cut := trimSpace
		if es["chars"] != nil {
			if nullish(x[1]) {
				return vNull(), nil
			}
			if x[1].Type != bsoncore.TypeString {
				return missing, mongoerr.New(mongoerr.Location(50700), "%s requires 'chars' to be a string, got %s (of type %s) instead.", op, shell(x[1]), typeName(x[1].Type))
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
		return vString(s), nil
	}}, nil
}

// compileIndexOfStr is $indexOfBytes and $indexOfCP: [string, substring,
// start, end], indexes in bytes or code points.
func compileIndexOfStr(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	codes := [2]int32{40091, 40092}
	if op == "$indexOfCP" {
		codes = [2]int32{40093, 40094}
	}
	return ranged(op, v, vars, 2, 4, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if nullish(x[0]) {
			return vNull(), nil
		}
		if x[0].Type != bsoncore.TypeString {
			return missing, mongoerr.New(mongoerr.Location(codes[0]), "%s requires a string as the first argument, found: %s", op, typeName(x[0].Type))
		}
		if x[1].Type != bsoncore.TypeString {
			return missing, mongoerr.New(mongoerr.Location(codes[1]), "%s requires a string as the second argument, found: %s", op, typeName(x[1].Type))
		}
		s, sub := x[0].StringValue(), x[1].StringValue()
		if op == "$indexOfBytes" {
			start, end, err := indexBounds(op, x, len(s))
			if err != nil {
				return missing, err
			}
			if start > end {
				return vInt32(-1), nil
			}
			if i := strings.Index(s[start:end], sub); i >= 0 {
				return vInt32(int32(start + i)), nil
			}
			return vInt32(-1), nil
		}
		rs, rsub := []rune(s), []rune(sub)
		start, end, err := indexBounds(op, x, len(rs))
		if err != nil {
			return missing, err
		}
		for i := start; i+len(rsub) <= end; i++ {
			if string(rs[i:i+len(rsub)]) == string(rsub) {
				return vInt32(int32(i)), nil
			}
		}
		return vInt32(-1), nil
	})
}

// coerceString is a value as the string operators that accept any scalar
// read it: null and missing are the empty string.
func coerceString(op string, v bsoncore.Value) (string, error) {
	switch v.Type {
	case 0, bsoncore.TypeNull, bsoncore.TypeUndefined, bsoncore.TypeString, bsoncore.TypeSymbol,
		bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128, bsoncore.TypeDateTime:
		return toStr(v), nil
	case bsoncore.TypeTimestamp:
		return v.String(), nil
	}
	return "", mongoerr.New(mongoerr.Location(16007), "can't convert from BSON type %s to String", typeName(v.Type))
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

func compileStrcasecmp(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	return simple(op, v, vars, 2, func(x []bsoncore.Value) (bsoncore.Value, error) {
		a, err := coerceString(op, x[0])
		if err != nil {
			return missing, err
		}
		b, err := coerceString(op, x[1])
		if err != nil {
			return missing, err
		}
		return vInt32(int32(strings.Compare(asciiLower(a), asciiLower(b)))), nil
	})
}

func compileReplace(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	es, err := namedArgs(v, vars, nil, func() error {
		return mongoerr.New(mongoerr.Location(51751), "%s requires an object as an argument, found: %s", op, typeName(v.Type))
	}, unknownArg(op, 51750, "found an unknown argument"), "input", "find", "replacement")
	if err != nil {
		return nil, err
	}
	for i, k := range []string{"input", "find", "replacement"} {
		if es[k] == nil {
			return nil, mongoerr.New(mongoerr.Location(51749-int32(i)), "%s requires '%s' to be specified", op, k)
		}
	}
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		x, err := evalNamed(es, root, local, "input", "find", "replacement")
		if err != nil {
			return missing, err
		}
		null := false
		for i, k := range []string{"input", "find", "replacement"} {
			if nullish(x[i]) {
				null = true
				continue
			}
			if x[i].Type != bsoncore.TypeString {
				return missing, mongoerr.New(mongoerr.Location(51746-int32(i)), "%s requires that '%s' be a string, found: %s", op, k, shell(x[i]))
			}
		}
		if null {
			return vNull(), nil
		}
		s, find, repl := x[0].StringValue(), x[1].StringValue(), x[2].StringValue()
		if op == "$replaceOne" {
			return vString(strings.Replace(s, find, repl, 1)), nil
		}
		return vString(strings.ReplaceAll(s, find, repl)), nil
	}}, nil
}

// regexCacheSize bounds the patterns a regex operator keeps compiled when
// its pattern is not a constant.
const regexCacheSize = 32

// compileRegexOp is $regexMatch, $regexFind and $regexFindAll:
// {input, regex, options}, regex a string or a regular expression.
func compileRegexOp(op string, v bsoncore.Value, vars *exprVars) (*expr, error) {
	es, err := namedArgs(v, vars, nil, func() error {
		return mongoerr.New(mongoerr.Location(51103), "%s expects an object of named arguments but found: %s", op, typeName(v.Type))
	}, unknownArg(op, 31024, "found an unknown field"), "input", "regex", "options")
	if err != nil {
		return nil, err
	}
	if es["input"] == nil {
		return nil, mongoerr.New(mongoerr.Location(31022), "%s requires 'input' parameter", op)
	}
	if es["regex"] == nil {
		return nil, mongoerr.New(mongoerr.Location(31023), "%s requires 'regex' parameter", op)
	}
	cache := newRegexCache()
	return &expr{eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		x, err := evalNamed(es, root, local, "input", "regex", "options")
		if err != nil {
			return missing, err
		}
		in, rv, ov := x[0], x[1], x[2]
		if !nullish(in) && in.Type != bsoncore.TypeString {
			return missing, mongoerr.New(mongoerr.Location(51104), "%s needs 'input' to be of type string", op)
		}
		if !nullish(rv) && rv.Type != bsoncore.TypeString && rv.Type != bsoncore.TypeRegex {
			return missing, mongoerr.New(mongoerr.Location(51105), "%s needs 'regex' to be of type string or regex", op)
		}
		if !nullish(ov) && ov.Type != bsoncore.TypeString {
			return missing, mongoerr.New(mongoerr.Location(51106), "%s needs 'options' to be of type string", op)
		}
		pattern, opts := "", ""
		if ov.Type == bsoncore.TypeString {
			opts = ov.StringValue()
		}
		switch rv.Type {
		case bsoncore.TypeString:
			pattern = rv.StringValue()
		case bsoncore.TypeRegex:
			p, o := rv.Regex()
			if o != "" && !nullish(ov) {
				return missing, mongoerr.New(mongoerr.Location(51107), "%s: found regex option(s) specified in both 'regex' and 'option' fields", op)
			}
			pattern = p
			if o != "" {
				opts = o
			}
		}
		if strings.ContainsRune(pattern, 0) {
			return missing, mongoerr.New(mongoerr.Location(51109), "%s: regular expression cannot contain an embedded null byte", op)
		}
		if strings.ContainsRune(opts, 0) {
			return missing, mongoerr.New(mongoerr.Location(51110), "%s: regular expression options cannot contain an embedded null byte", op)
		}
		var re *mongoRegex
		if !nullish(rv) {
			var err error
			if re, err = cache.get(op, pattern, opts); err != nil {
				return missing, err
			}
		}
		if re == nil || nullish(in) {
			switch op {
			case "$regexMatch":
				return vBool(false), nil
			case "$regexFind":
				return vNull(), nil
			}
			return vArray([]bsoncore.Value{}), nil
		}
		s := in.StringValue()
		switch op {
		case "$regexMatch":
			return vBool(re.MatchString(s)), nil
		case "$regexFind":
			loc := re.FindStringSubmatchIndex(s)
			if loc == nil {
				return vNull(), nil
			}
			return regexResult(s, loc), nil
		}
		// Each search begins where the last match ended, or a character
		// past an empty one, and only before the end of the input; the
		// character before it is the context of ^, \b and \B.
		var out []bsoncore.Value
		for pos := 0; ; {
			var loc []int
			switch {
			case pos == 0:
				loc = re.FindStringSubmatchIndex(s)
			case re.after == nil:
				// a pattern that cannot be wrapped (an unclosed \Q): Go's
				// search, which skips an empty match where one ended
				for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
					if m[0] >= pos {
						loc = m
						break
					}
				}
			default:
				_, w := utf8.DecodeLastRuneInString(s[:pos])
				if m := re.after.FindStringSubmatchIndex(s[pos-w:]); m != nil {
					loc = m[2:]
					for i := range loc {
						if loc[i] >= 0 {
							loc[i] += pos - w
						}
					}
				}
			}
			if loc == nil {
				break
			}
			out = append(out, regexResult(s, loc))
			pos = loc[1]
			if loc[0] == loc[1] {
				_, w := utf8.DecodeRuneInString(s[pos:])
				pos += max(w, 1)
			}
			if pos >= len(s) {
				break
			}
		}
		if out == nil {
			out = []bsoncore.Value{}
		}
		return vArray(out), nil
	}}, nil
}

// regexResult is a match as {match, idx, captures}: idx in code points,
// a group that took no part in the match null.
func regexResult(s string, loc []int) bsoncore.Value {
	caps := make([]bsoncore.Value, 0, len(loc)/2-1)
	for g := 1; g < len(loc)/2; g++ {
		if loc[2*g] < 0 {
			caps = append(caps, vNull())
		} else {
			caps = append(caps, vString(s[loc[2*g]:loc[2*g+1]]))
		}
	}
	return vDoc(bsoncore.NewDocumentBuilder().
		AppendString("match", s[loc[0]:loc[1]]).
		AppendInt32("idx", int32(utf8.RuneCountInString(s[:loc[0]]))).
		AppendArray("captures", bsoncore.BuildArray(nil, caps...)).
		Build())
}

// regexCache keeps the regular expressions an operator compiled, by
// pattern and options.
type regexCache struct {
	mu  sync.Mutex
	res map[[2]string]*mongoRegex
}

// mongoRegex is a compiled pattern and, for searches from inside the
// input, the same pattern after one character of context: the first
// group of after is a match of re beginning at or after that character.
type mongoRegex struct {
	*regexp.Regexp
	after *regexp.Regexp
}

func newRegexCache() *regexCache { return &regexCache{res: map[[2]string]*mongoRegex{}} }

func (c *regexCache) get(op, pattern, opts string) (*mongoRegex, error) {
	key := [2]string{pattern, opts}
	c.mu.Lock()
	re := c.res[key]
	c.mu.Unlock()
	if re != nil {
		return re, nil
	}
	r, err := compileMongoRegex(op, pattern, opts)
	if err != nil {
		return nil, err
	}
	re = &mongoRegex{Regexp: r}
	if op == "$regexFindAll" {
		re.after, _ = regexp.Compile(`\A(?s:.)(?s:.*?)(` + r.String() + `)`)
	}
	c.mu.Lock()
	if len(c.res) >= regexCacheSize {
		clear(c.res)
	}
	c.res[key] = re
	c.mu.Unlock()
	return re, nil
}

// compileMongoRegex compiles a pattern with MongoDB's options: i, m, s,
// x (whitespace and # comments outside classes ignored) and u.
func compileMongoRegex(op, pattern, opts string) (*regexp.Regexp, error) {
	flags := ""
	extended := false
	for _, f := range opts {
		switch f {
		case 'i', 'm', 's':
			if !strings.ContainsRune(flags, f) {
				flags += string(f)
			}
		case 'x':
			extended = true
		case 'u':
		default:
			return nil, mongoerr.New(mongoerr.Location(51108), "%s invalid flag in regex options: %c", op, f)
		}
	}
	if extended {
		pattern = stripExtended(pattern)
	}
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, mongoerr.New(mongoerr.Location(51111), "Invalid Regex in %s: %s", op, err.Error())
	}
	return re, nil
}
