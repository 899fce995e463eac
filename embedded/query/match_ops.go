package query

import (
	"math"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// compileFieldOp compiles one query operator on a field: comparison
// ($eq … $nin), element ($exists, $type), evaluation ($regex, $mod),
// array ($size, $all, $elemMatch), logical ($not) and bitwise ones; the
// geospatial ones, $text and $where are refused. nil, nil for the
// operators that match nothing themselves ($options, $comment).
func compileFieldOp(path, op string, arg bsoncore.Value, opts string, cfg *Options) (matcher, error) {
	switch op {
	case "$eq", "$ne", "$gt", "$gte", "$lt", "$lte":
		return queryComparison(path, op, arg, cfg), nil
	case "$in", "$nin":
		return queryIn(path, op, arg, cfg)
	case "$exists":
		return queryExists(path, arg), nil
	case "$type":
		return queryType(path, arg)
	case "$regex":
		return queryRegex(path, arg, opts)
	case "$options":
		return nil, nil
	case "$size":
		return querySize(path, arg)
	case "$all":
		return queryAll(path, arg, cfg)
	case "$elemMatch":
		return queryElemMatch(path, arg, cfg)
	case "$not":
		return queryNot(path, arg, cfg)
	case "$mod":
		return queryMod(path, arg)
	case "$bitsAllSet", "$bitsAnySet", "$bitsAllClear", "$bitsAnyClear":
		return queryBits(path, op, arg)
	case "$comment":
		return nil, nil
	case "$near", "$nearSphere", "$geoWithin", "$geoIntersects", "$within":
		return nil, mongoerr.New(mongoerr.BadValue, "%s is not supported by oidkit's server: it has no geospatial indexes", op)
	case "$text", "$where":
		return nil, mongoerr.New(mongoerr.BadValue, "%s is not supported by oidkit's server", op)
	}
	return nil, mongoerr.New(mongoerr.BadValue, "unknown operator: %s", op)
}

// queryComparison is $eq, $ne, $gt, $gte, $lt and $lte.
func queryComparison(path, op string, arg bsoncore.Value, cfg *Options) matcher {
	switch op {
	case "$eq":
		return fieldMatcher(path, eqPred(arg, cfg.collator()), true)
	case "$ne":
		m := fieldMatcher(path, eqPred(arg, cfg.collator()), true)
		return func(doc bsoncore.Document, pos *int) bool { p := -1; return !m(doc, &p) }
	}
	return fieldMatcher(path, cmpPred(op, arg, cfg.collator()), true)
}

// queryIn is $in and $nin.
func queryIn(path, op string, arg bsoncore.Value, cfg *Options) (matcher, error) {
	if arg.Type != bsoncore.TypeArray {
		return nil, mongoerr.New(mongoerr.BadValue, "%s needs an array", op)
	}
	var preds []ValuePred
	var set []bsoncore.Value // values looked up by binary search
	for _, x := range bsonval.ArrayValues(arg) {
		if cfg.collator() == nil && inSet(x) {
			set = append(set, x)
			continue
		}
		if x.Type == bsoncore.TypeRegex {
			p, err := RegexPred(x)
			if err != nil {
				return nil, err
			}
			preds = append(preds, p)
			continue
		}
		if IsOperatorDoc(x) {
			return nil, mongoerr.New(mongoerr.BadValue, "cannot nest $ under $in")
		}
		preds = append(preds, eqPred(x, cfg.collator()))
	}
	slices.SortFunc(set, bsonval.Compare)
	any := func(v bsoncore.Value) bool {
		if _, ok := slices.BinarySearchFunc(set, v, bsonval.Compare); ok {
			return true
		}
		for _, p := range preds {
			if p(v) {
				return true
			}
		}
		return false
	}
	m := fieldMatcher(path, any, true)
	if op == "$nin" {
		return func(doc bsoncore.Document, pos *int) bool { p := -1; return !m(doc, &p) }, nil
	}
	return m, nil
}

// inSet is whether an $in value is matched by a binary search of the
// sorted values: a type whose BSON order is a plain total order, where
// equality is a comparison of 0 (no null, regex, NaN or collation).
func inSet(x bsoncore.Value) bool {
	switch x.Type {
	case bsoncore.TypeObjectID, bsoncore.TypeString, bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDateTime, bsoncore.TypeBoolean:
		return true
	}
	return false
}

func queryExists(path string, arg bsoncore.Value) matcher {
	want := bsonval.Truthy(arg)
	return func(doc bsoncore.Document, _ *int) bool {
		has := false
		for _, c := range bsonval.Candidates(doc, path) {
			if c.Value.Type != 0 {
				has = true
				break
			}
		}
		return has == want
	}
}

func queryType(path string, arg bsoncore.Value) (matcher, error) {
	var types []string
	if arg.Type == bsoncore.TypeArray {
		for _, t := range bsonval.ArrayValues(arg) {
			types = append(types, typeArg(t))
		}
	} else {
		types = []string{typeArg(arg)}
	}
	for _, t := range types {
		if t == "" {
			return nil, mongoerr.New(mongoerr.BadValue, "unknown type name alias: %s", bsonval.Shell(arg))
		}
	}
	p := func(v bsoncore.Value) bool {
		for _, t := range types {
			if v.Type != 0 && (t == bsonval.TypeName(v.Type) || t == "number" && bsonval.IsNumber(v)) {
				return true
			}
		}
		return false
	}
	return fieldMatcher(path, p, true), nil
}

// queryRegex is $regex, a pattern string or regex, with the field's
// $options (which, when given, replace a regex's own).
func queryRegex(path string, arg bsoncore.Value, opts string) (matcher, error) {
	pat := ""
	o := opts
	switch arg.Type {
	case bsoncore.TypeString:
		pat = arg.StringValue()
	case bsoncore.TypeRegex:
		var ro string
		pat, ro = arg.Regex()
		if o == "" {
			o = ro
		}
	default:
		return nil, mongoerr.New(mongoerr.BadValue, "$regex has to be a string")
	}
	p, err := RegexPred(bsoncore.Value{Type: bsoncore.TypeRegex, Data: bsoncore.AppendRegex(nil, pat, sortedOpts(o))})
	if err != nil {
		return nil, err
	}
	return fieldMatcher(path, p, true), nil
}

func querySize(path string, arg bsoncore.Value) (matcher, error) {
	n, ok := bsonval.IntOf(arg)
	if !ok {
		if arg.Type == bsoncore.TypeDouble && arg.Double() == math.Trunc(arg.Double()) {
			n, ok = int64(arg.Double()), true
		}
	}
	if !ok || n < 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "$size needs a non-negative integer")
	}
	return fieldMatcher(path, func(v bsoncore.Value) bool {
		return v.Type == bsoncore.TypeArray && int64(len(bsonval.ArrayValues(v))) == n
	}, false), nil
}

func queryAll(path string, arg bsoncore.Value, cfg *Options) (matcher, error) {
	if arg.Type != bsoncore.TypeArray {
		return nil, mongoerr.New(mongoerr.BadValue, "$all needs an array")
	}
	var ms []matcher
	for _, x := range bsonval.ArrayValues(arg) {
		if x.Type == bsoncore.TypeEmbeddedDocument {
			if em, err := bsoncore.Document(x.Data).LookupErr("$elemMatch"); err == nil {
				m, err := compileFieldOp(path, "$elemMatch", em, "", cfg)
				if err != nil {
					return nil, err
				}
				ms = append(ms, m)
				continue
			}
		}
		if x.Type == bsoncore.TypeRegex {
			p, err := RegexPred(x)
			if err != nil {
				return nil, err
			}
			ms = append(ms, fieldMatcher(path, p, true))
			continue
		}
		ms = append(ms, fieldMatcher(path, eqPred(x, cfg.collator()), true))
	}
	if len(ms) == 0 {
		return func(bsoncore.Document, *int) bool { return false }, nil
	}
	return allOf(ms), nil
}

func queryElemMatch(path string, arg bsoncore.Value, cfg *Options) (matcher, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.BadValue, "$elemMatch needs an Object")
	}
	elemOK, err := elemMatchPred(arg, cfg)
	if err != nil {
		return nil, err
	}
	return func(doc bsoncore.Document, pos *int) bool {
		for _, c := range bsonval.Candidates(doc, path) {
			if c.Value.Type != bsoncore.TypeArray {
				continue
			}
			for i, e := range bsonval.ArrayValues(c.Value) {
				if elemOK(e) {
					if *pos < 0 {
						*pos = i
						if c.Pos >= 0 {
							*pos = c.Pos
						}
					}
					return true
				}
			}
		}
		return false
	}, nil
}

// elemMatchPred tests one array element against $elemMatch's argument,
// a document arg holds.
func elemMatchPred(arg bsoncore.Value, cfg *Options) (ValuePred, error) {
	sub := bsoncore.Document(arg.Data)
	if IsOperatorDoc(arg) && !strings.HasPrefix(bsonval.Elements(sub)[0].Key(), "$and") && !strings.HasPrefix(bsonval.Elements(sub)[0].Key(), "$or") && !strings.HasPrefix(bsonval.Elements(sub)[0].Key(), "$nor") && bsonval.Elements(sub)[0].Key() != "$expr" {
		// value form: operators apply to the element itself
		wrapped := bsoncore.NewDocumentBuilder().AppendDocument("v", sub).Build()
		m, err := compileAnd(wrapped, cfg, nil, false)
		if err != nil {
			return nil, err
		}
		return func(e bsoncore.Value) bool {
			p := -1
			return m(bsoncore.BuildDocument(nil, bsoncore.AppendValueElement(nil, "v", e)), &p)
		}, nil
	}
	m, err := compileAnd(sub, cfg, nil, false)
	if err != nil {
		return nil, err
	}
	return func(e bsoncore.Value) bool {
		p := -1
		return e.Type == bsoncore.TypeEmbeddedDocument && m(bsoncore.Document(e.Data), &p)
	}, nil
}

func queryNot(path string, arg bsoncore.Value, cfg *Options) (matcher, error) {
	var m matcher
	var err error
	switch {
	case arg.Type == bsoncore.TypeRegex:
		m, err = compileField(path, arg, cfg)
	case arg.Type == bsoncore.TypeEmbeddedDocument && IsOperatorDoc(arg):
		m, err = compileField(path, arg, cfg)
	default:
		return nil, mongoerr.New(mongoerr.BadValue, "$not needs a regex or a document")
	}
	if err != nil {
		return nil, err
	}
	return func(doc bsoncore.Document, _ *int) bool { p := -1; return !m(doc, &p) }, nil
}

func queryMod(path string, arg bsoncore.Value) (matcher, error) {
	vals := bsonval.ArrayValues(arg)
	if arg.Type != bsoncore.TypeArray || len(vals) != 2 {
		return nil, mongoerr.New(mongoerr.BadValue, "malformed mod, not enough elements")
	}
	if !bsonval.IsNumber(vals[0]) || !bsonval.IsNumber(vals[1]) {
		return nil, mongoerr.New(mongoerr.BadValue, "malformed mod, divisor and remainder must be numbers")
	}
	d, r := int64(bsonval.NumberFloat(vals[0])), int64(bsonval.NumberFloat(vals[1]))
	if d == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "divisor cannot be 0")
	}
	return fieldMatcher(path, func(v bsoncore.Value) bool {
		if !bsonval.IsNumber(v) {
			return false
		}
		f := bsonval.NumberFloat(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
		return int64(f)%d == r
	}, true), nil
}

// queryBits is $bitsAllSet, $bitsAnySet, $bitsAllClear and $bitsAnyClear.
func queryBits(path, op string, arg bsoncore.Value) (matcher, error) {
	mask, err := bitMask(arg)
	if err != nil {
		return nil, err
	}
	return fieldMatcher(path, func(v bsoncore.Value) bool {
		var x uint64
		switch {
		case bsonval.IsNumber(v):
			f := bsonval.NumberFloat(v)
			if f != math.Trunc(f) {
				return false
			}
			x = uint64(int64(f))
		case v.Type == bsoncore.TypeBinary:
			_, b, _ := v.BinaryOK()
			for i := 0; i < len(b) && i < 8; i++ {
				x |= uint64(b[i]) << (8 * i)
			}
		default:
			return false
		}
		switch op {
		case "$bitsAllSet":
			return x&mask == mask
		case "$bitsAnySet":
			return x&mask != 0
		case "$bitsAllClear":
			return x&mask == 0
		}
		return x&mask != mask
	}, false), nil
}

func sortedOpts(o string) string {
	b := []byte(o)
	for i := 1; i < len(b); i++ {
		for j := i; j > 0 && b[j] < b[j-1]; j-- {
			b[j], b[j-1] = b[j-1], b[j]
		}
	}
	return string(b)
}

func bitMask(arg bsoncore.Value) (uint64, error) {
	switch {
	case bsonval.IsNumber(arg):
		f := bsonval.NumberFloat(arg)
		if f < 0 || f != math.Trunc(f) {
			return 0, mongoerr.New(mongoerr.BadValue, "bit mask must be a non-negative integer: %s", bsonval.Shell(arg))
		}
		return uint64(f), nil
	case arg.Type == bsoncore.TypeArray:
		var m uint64
		for _, p := range bsonval.ArrayValues(arg) {
			n, ok := bsonval.IntOf(p)
			if !ok || n < 0 || n > 63 {
				return 0, mongoerr.New(mongoerr.BadValue, "bit positions must be integers between 0 and 63: %s", bsonval.Shell(p))
			}
			m |= 1 << uint(n)
		}
		return m, nil
	case arg.Type == bsoncore.TypeBinary:
		_, b, _ := arg.BinaryOK()
		var m uint64
		for i := 0; i < len(b) && i < 8; i++ {
			m |= uint64(b[i]) << (8 * i)
		}
		return m, nil
	}
	return 0, mongoerr.New(mongoerr.BadValue, "bit mask must be a number, an array of bit positions or BinData: %s", bsonval.Shell(arg))
}
