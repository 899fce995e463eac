package query

import (
	"math"
	"regexp"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// matcher decides whether a document matches; pos receives the index of
// the first array a positional match went through.
type matcher func(doc bsoncore.Document, pos *int) bool

// ValuePred tests one value a path reached (not its array's elements).
type ValuePred func(v bsoncore.Value) bool

// Filter is a compiled query filter.
type Filter struct {
	m        matcher
	eqs      []Equality
	ranges   []Range
	scanOnly bool // read every document: strings compare by a collation, not as index keys do
}

// Equality is a top-level condition that Path equals Value.
type Equality struct {
	Path  string
	Value bsoncore.Value
}

// Options are what a filter is compiled with; nil is the simple collation
// and no $expr.
type Options struct {
	// Collation compares strings (nil: simple). A filter with one is
	// served by scans only: index keys are in binary order.
	Collation *bsonval.Collator
	// Expr compiles the argument of $expr into a test of a document
	// (nil: $expr is refused).
	Expr func(arg bsoncore.Value) (func(doc bsoncore.Document) bool, error)
}

func (o *Options) collator() *bsonval.Collator {
	if o == nil {
		return nil
	}
	return o.Collation
}

// Compile compiles a query filter as MongoDB's find takes it; a nil
// filter matches every document. Its errors are MongoDB's (mongoerr).
func Compile(filter bsoncore.Document, cfg *Options) (*Filter, error) {
	filter = OrEmpty(filter) // a command without a filter matches everything
	f := &Filter{scanOnly: cfg.collator() != nil}
	m, err := compileAnd(filter, cfg, f, true)
	if err != nil {
		return nil, err
	}
	f.m = m
	// a range is the whole filter only when the filter is its one field
	// ({_id: {$gte: a, $lt: b}}): never one of the conditions of an $and
	els := bsonval.Elements(filter)
	whole := len(els) == 1 && !strings.HasPrefix(els[0].Key(), "$")
	for i := range f.ranges {
		f.ranges[i].Exact = f.ranges[i].Exact && whole
	}
	return f, nil
}

// Match reports whether doc matches.
func (f *Filter) Match(doc bsoncore.Document) bool {
	if f == nil {
		return true
	}
	p := -1
	return f.m(doc, &p)
}

// MatchPos is Match and the array position a positional operator uses.
func (f *Filter) MatchPos(doc bsoncore.Document) (bool, int) {
	p := -1
	if f == nil {
		return true, -1
	}
	ok := f.m(doc, &p)
	return ok, p
}

func compileAnd(filter bsoncore.Document, cfg *Options, f *Filter, top bool) (matcher, error) {
	if err := filter.Validate(); err != nil {
		return nil, mongoerr.New(mongoerr.BadValue, "malformed filter: %v", err)
	}
	var ms []matcher
	els := bsonval.Elements(filter)
	for _, e := range els {
		k, v := e.Key(), e.Value()
		var m matcher
		var err error
		if strings.HasPrefix(k, "$") {
			m, err = compileTopOp(k, v, cfg, f)
		} else {
			m, err = compileField(k, v, cfg)
			if err == nil && f != nil && top && !IsOperatorDoc(v) && v.Type != bsoncore.TypeRegex {
				f.eqs = append(f.eqs, Equality{k, v})
			} else if err == nil && f != nil && top && IsOperatorDoc(v) {
				if ev, ok := bsoncore.Document(v.Data).LookupErr("$eq"); ok == nil {
					f.eqs = append(f.eqs, Equality{k, ev})
				}
				if rc, ok := rangeOf(k, bsoncore.Document(v.Data)); ok {
					f.ranges = append(f.ranges, rc)
				}
			}
		}
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return allOf(ms), nil
}

// allOf matches when every one of ms matches: always, when there are
// none.
func allOf(ms []matcher) matcher {
	return func(doc bsoncore.Document, pos *int) bool {
		for _, m := range ms {
			if !m(doc, pos) {
				return false
			}
		}
		return true
	}
}

// IsOperatorDoc reports whether v is a document whose first field is an
// operator ({$gt: 1}), not a value to equal.
func IsOperatorDoc(v bsoncore.Value) bool {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return false
	}
	els := bsonval.Elements(bsoncore.Document(v.Data))
	return len(els) > 0 && strings.HasPrefix(els[0].Key(), "$")
}

func compileTopOp(op string, v bsoncore.Value, cfg *Options, f *Filter) (matcher, error) {
	switch op {
	case "$and", "$or", "$nor":
		if v.Type != bsoncore.TypeArray {
			return nil, mongoerr.New(mongoerr.BadValue, "%s must be an array", op)
		}
		vals := bsonval.ArrayValues(v)
		if len(vals) == 0 {
			return nil, mongoerr.New(mongoerr.BadValue, "$and/$or/$nor must be a nonempty array")
		}
		var ms []matcher
		for _, sub := range vals {
			if sub.Type != bsoncore.TypeEmbeddedDocument {
				return nil, mongoerr.New(mongoerr.BadValue, "$or/$and/$nor entries need to be full objects")
			}
			var ff *Filter
			if op == "$and" {
				ff = f
			}
			m, err := compileAnd(bsoncore.Document(sub.Data), cfg, ff, op == "$and")
			if err != nil {
				return nil, err
			}
			ms = append(ms, m)
		}
		return func(doc bsoncore.Document, pos *int) bool {
			for _, m := range ms {
				ok := m(doc, pos)
				switch {
				case op == "$and" && !ok:
					return false
				case op == "$or" && ok:
					return true
				case op == "$nor" && ok:
					return false
				}
			}
			return op != "$or"
		}, nil
	case "$expr":
		if cfg == nil || cfg.Expr == nil {
			return nil, mongoerr.New(mongoerr.BadValue, "$expr is not allowed in this context")
		}
		test, err := cfg.Expr(v)
		if err != nil {
			return nil, err
		}
		return func(doc bsoncore.Document, _ *int) bool { return test(doc) }, nil
	case "$comment":
		return func(bsoncore.Document, *int) bool { return true }, nil
	case "$jsonSchema":
		return compileJSONSchema(v)
	case "$text":
		return nil, mongoerr.New(mongoerr.BadValue, "$text is not supported by oidkit's server: text search needs a text index, which it does not have")
	case "$where":
		return nil, mongoerr.New(mongoerr.BadValue, "$where is not supported by oidkit's server: it runs no JavaScript")
	}
	return nil, mongoerr.New(mongoerr.BadValue, "unknown top level operator: %s. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.", op)
}

// compileField compiles {path: value-or-operators}.
func compileField(path string, v bsoncore.Value, cfg *Options) (matcher, error) {
	if path == "" {
		path = ""
	}
	if !IsOperatorDoc(v) {
		if v.Type == bsoncore.TypeRegex {
			p, err := RegexPred(v)
			if err != nil {
				return nil, err
			}
			return fieldMatcher(path, p, true), nil
		}
		return fieldMatcher(path, eqPred(v, cfg.collator()), true), nil
	}
	var ms []matcher
	d := bsoncore.Document(v.Data)
	opts := ""
	if o, err := d.LookupErr("$options"); err == nil {
		if o.Type != bsoncore.TypeString {
			return nil, mongoerr.New(mongoerr.BadValue, "$options has to be a string")
		}
		opts = o.StringValue()
	}
	for _, e := range bsonval.Elements(d) {
		op, arg := e.Key(), e.Value()
		m, err := compileFieldOp(path, op, arg, opts, cfg)
		if err != nil {
			return nil, err
		}
		if m != nil {
			ms = append(ms, m)
		}
	}
	return allOf(ms), nil
}

// fieldMatcher matches when some value the path reaches, or (elementwise)
// one of the elements of an array it reaches, satisfies p.
func fieldMatcher(path string, p ValuePred, elementwise bool) matcher {
	return func(doc bsoncore.Document, pos *int) bool {
		for _, c := range bsonval.Candidates(doc, path) {
			if p(c.Value) {
				if *pos < 0 {
					*pos = c.Pos
				}
				return true
			}
			if elementwise && c.Value.Type == bsoncore.TypeArray {
				for i, e := range bsonval.ArrayValues(c.Value) {
					if p(e) {
						if *pos < 0 {
							if c.Pos >= 0 {
								*pos = c.Pos
							} else {
								*pos = i
							}
						}
						return true
					}
				}
			}
		}
		return false
	}
}

func eqPred(x bsoncore.Value, k *bsonval.Collator) ValuePred {
	if x.Type == bsoncore.TypeNull {
		return func(v bsoncore.Value) bool {
			return v.Type == 0 || v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeUndefined
		}
	}
	if k != nil {
		return func(v bsoncore.Value) bool { return k.Equal(v, x) }
	}
	return func(v bsoncore.Value) bool { return bsonval.Equal(v, x) }
}

func cmpPred(op string, x bsoncore.Value, k *bsonval.Collator) ValuePred {
	return func(v bsoncore.Value) bool {
		if x.Type == bsoncore.TypeMinKey || x.Type == bsoncore.TypeMaxKey {
			c := bsonval.Compare(v, x)
			return CompareOK(op, c)
		}
		if bsonval.TypeOrder(v.Type) != bsonval.TypeOrder(x.Type) {
			return false
		}
		if x.Type == bsoncore.TypeNull && v.Type == 0 {
			return op == "$gte" || op == "$lte"
		}
		if bsonval.IsNumber(v) && (math.IsNaN(bsonval.NumberFloat(v)) || math.IsNaN(bsonval.NumberFloat(x))) {
			bothNaN := math.IsNaN(bsonval.NumberFloat(v)) && math.IsNaN(bsonval.NumberFloat(x))
			return bothNaN && (op == "$gte" || op == "$lte")
		}
		return CompareOK(op, k.Compare(v, x))
	}
}

// CompareOK reports whether a comparison's result c (-1, 0, 1) satisfies
// op: $gt, $gte, $lt, else $lte.
func CompareOK(op string, c int) bool {
	switch op {
	case "$gt":
		return c > 0
	case "$gte":
		return c >= 0
	case "$lt":
		return c < 0
	}
	return c <= 0
}

// RegexPred is the test of a regular expression value x, as {field: /re/}
// matches: strings and symbols by the pattern, regexes by being the same.
func RegexPred(x bsoncore.Value) (ValuePred, error) {
	pat, opts := x.Regex()
	re, err := compileRegex(pat, opts)
	if err != nil {
		return nil, err
	}
	return func(v bsoncore.Value) bool {
		switch v.Type {
		case bsoncore.TypeString:
			return re.MatchString(v.StringValue())
		case bsoncore.TypeSymbol:
			return re.MatchString(v.Symbol())
		case bsoncore.TypeRegex:
			p, o := v.Regex()
			return p == pat && o == opts
		}
		return false
	}, nil
}

// compileRegex turns a PCRE pattern and MongoDB's options into Go's regexp.
func compileRegex(pat, opts string) (*regexp.Regexp, error) {
	flags := ""
	for _, o := range opts {
		switch o {
		case 'i', 'm', 's':
			flags += string(o)
		case 'x':
			pat = StripExtended(pat)
		case 'u':
		default:
			return nil, mongoerr.New(mongoerr.Location(51108), "invalid flag in regex options: %c", o)
		}
	}
	if flags != "" {
		pat = "(?" + flags + ")" + pat
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, mongoerr.New(mongoerr.Location(51091), "Regular expression is invalid: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

// StripExtended is pattern p with the white space and # comments that the
// x option ignores removed (outside character classes and escapes).
func StripExtended(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			i++
			b.WriteByte(p[i])
			continue
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case !inClass && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			continue
		case !inClass && c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// typeArg is the type name a $type argument (alias or number) stands for.
func typeArg(v bsoncore.Value) string {
	if v.Type == bsoncore.TypeString {
		s := v.StringValue()
		if s == "number" {
			return s
		}
		for _, n := range bsonval.TypeNames {
			if n == s {
				return s
			}
		}
		return ""
	}
	if bsonval.IsNumber(v) {
		n := int(bsonval.NumberFloat(v))
		switch n {
		case -1:
			return "minKey"
		case 127:
			return "maxKey"
		}
		return bsonval.TypeNames[bsoncore.Type(n)]
	}
	return ""
}

// OrEmpty is d, or {} for a filter not given.
func OrEmpty(d bsoncore.Document) bsoncore.Document {
	if d == nil {
		return bsoncore.NewDocumentBuilder().Build()
	}
	return d
}

// Indexable is whether an equality value can be looked up in an index.
func Indexable(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeArray, bsoncore.TypeRegex, 0:
		return false
	case bsoncore.TypeEmbeddedDocument:
		return !IsOperatorDoc(v)
	}
	return true
}

// IndexEqualities are the equalities an index can serve: none under a collation,
// since index keys are in binary order, nor over a view's documents.
func (f *Filter) IndexEqualities() []Equality {
	if f == nil || f.scanOnly {
		return nil
	}
	return f.eqs
}

// ScanOnly reports whether f is served by scans only (false for nil).
func (f *Filter) ScanOnly() bool { return f != nil && f.scanOnly }

// ForScan is a copy of f served by scans only; nil matches everything.
func (f *Filter) ForScan() *Filter {
	g := Filter{m: func(bsoncore.Document, *int) bool { return true }}
	if f != nil {
		g = *f
	}
	g.scanOnly = true
	return &g
}

// Equalities are the equality conditions of the filter's top level, from
// which an upsert seeds its document.
func (f *Filter) Equalities() []Equality { return f.eqs }
