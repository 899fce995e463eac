package expr

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/query"
)

// The regular expression operators: $regexMatch, $regexFind and
// $regexFindAll.

// regexCacheSize bounds the patterns a regex operator keeps compiled when
// its pattern is not a constant.
const regexCacheSize = 32

// compileRegexOp is $regexMatch, $regexFind and $regexFindAll:
// {input, regex, options}, regex a string or a regular expression.
func compileRegexOp(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	es, err := namedArgs(v, vars, nil, func() error {
		return mongoerr.New(mongoerr.Location(51103), "%s expects an object of named arguments but found: %s", op, bsonval.TypeName(v.Type))
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
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		x, err := evalNamed(es, root, local, "input", "regex", "options")
		if err != nil {
			return bsonval.Missing, err
		}
		in, rv, ov := x[0], x[1], x[2]
		if !Nullish(in) && in.Type != bsoncore.TypeString {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(51104), "%s needs 'input' to be of type string", op)
		}
		pattern, opts, err := regexArgs(op, rv, ov)
		if err != nil {
			return bsonval.Missing, err
		}
		var re *mongoRegex
		if !Nullish(rv) {
			var err error
			if re, err = cache.get(op, pattern, opts); err != nil {
				return bsonval.Missing, err
			}
		}
		if re == nil || Nullish(in) {
			switch op {
			case "$regexMatch":
				return bsonval.Bool(false), nil
			case "$regexFind":
				return bsonval.Null(), nil
			}
			return bsonval.Array([]bsoncore.Value{}), nil
		}
		s := in.StringValue()
		switch op {
		case "$regexMatch":
			return bsonval.Bool(re.MatchString(s)), nil
		case "$regexFind":
			loc := re.FindStringSubmatchIndex(s)
			if loc == nil {
				return bsonval.Null(), nil
			}
			return regexResult(s, loc), nil
		}
		return regexFindAll(re, s), nil
	}}, nil
}

// regexArgs checks the regex and options arguments of a regex operator,
// evaluated, and gives the pattern and options they name: options from
// either argument, not both.
func regexArgs(op string, rv, ov bsoncore.Value) (pattern, opts string, err error) {
	if !Nullish(rv) && rv.Type != bsoncore.TypeString && rv.Type != bsoncore.TypeRegex {
		return "", "", mongoerr.New(mongoerr.Location(51105), "%s needs 'regex' to be of type string or regex", op)
	}
	if !Nullish(ov) && ov.Type != bsoncore.TypeString {
		return "", "", mongoerr.New(mongoerr.Location(51106), "%s needs 'options' to be of type string", op)
	}
	if ov.Type == bsoncore.TypeString {
		opts = ov.StringValue()
	}
	switch rv.Type {
	case bsoncore.TypeString:
		pattern = rv.StringValue()
	case bsoncore.TypeRegex:
		p, o := rv.Regex()
		if o != "" && !Nullish(ov) {
			return "", "", mongoerr.New(mongoerr.Location(51107), "%s: found regex option(s) specified in both 'regex' and 'option' fields", op)
		}
		pattern = p
		if o != "" {
			opts = o
		}
	}
	if strings.ContainsRune(pattern, 0) {
		return "", "", mongoerr.New(mongoerr.Location(51109), "%s: regular expression cannot contain an embedded null byte", op)
	}
	if strings.ContainsRune(opts, 0) {
		return "", "", mongoerr.New(mongoerr.Location(51110), "%s: regular expression options cannot contain an embedded null byte", op)
	}
	return pattern, opts, nil
}

// regexFindAll is $regexFindAll's array of the matches of re in s.
func regexFindAll(re *mongoRegex, s string) bsoncore.Value {
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
	return bsonval.Array(out)
}

// regexResult is a match as {match, idx, captures}: idx in code points,
// a group that took no part in the match null.
func regexResult(s string, loc []int) bsoncore.Value {
	caps := make([]bsoncore.Value, 0, len(loc)/2-1)
	for g := 1; g < len(loc)/2; g++ {
		if loc[2*g] < 0 {
			caps = append(caps, bsonval.Null())
		} else {
			caps = append(caps, bsonval.String(s[loc[2*g]:loc[2*g+1]]))
		}
	}
	return bsonval.Doc(bsoncore.NewDocumentBuilder().
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
		pattern = query.StripExtended(pattern)
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
