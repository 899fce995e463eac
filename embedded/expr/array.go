package expr

import (
	"math"
	"slices"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// The array expression operators: $reduce, $range, $zip, $indexOfArray,
// $reverseArray, $sortArray, $slice, the array forms of $firstN, $lastN,
// $maxN and $minN, $allElementsTrue and $anyElementTrue.

// maxExprElements bounds the arrays $range builds, as MongoDB's memory
// limit for an expression does (100 MB at 16 bytes a value).
const maxExprElements = 100 * 1024 * 1024 / 16

// ranged is simple for an operator taking from lo to hi arguments.
func ranged(op string, v bsoncore.Value, vars *Vars, lo, hi int, f func([]bsoncore.Value) (bsoncore.Value, error)) (*Expr, error) {
	if n := len(bsonval.ArrayValues(v)); v.Type != bsoncore.TypeArray && lo > 1 || v.Type == bsoncore.TypeArray && (n < lo || n > hi) {
		if v.Type != bsoncore.TypeArray {
			n = 1
		}
		return nil, mongoerr.New(mongoerr.Location(28667), "Expression %s takes at least %d arguments, and at most %d, but %d were passed in.", op, lo, hi, n)
	}
	return simple(op, v, vars, -1, f)
}

// namedArgs compiles an operator's object of named arguments, each with
// vars or, for the names in scoped, the variables given there. objErr is
// the error for an argument that is not an object, unknownErr the one for
// a name outside known.
func namedArgs(v bsoncore.Value, vars *Vars, scoped map[string]*Vars, objErr func() error, unknownErr func(string) error, known ...string) (map[string]*Expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, objErr()
	}
	out := map[string]*Expr{}
	for _, el := range bsonval.Elements(bsoncore.Document(v.Data)) {
		if !slices.Contains(known, el.Key()) {
			return nil, unknownErr(el.Key())
		}
		vs := vars
		if sv := scoped[el.Key()]; sv != nil {
			vs = sv
		}
		e, err := Compile(el.Value(), vs)
		if err != nil {
			return nil, err
		}
		out[el.Key()] = e
	}
	return out, nil
}

// unknownArg is the error for an unknown named argument of op.
func unknownArg(op string, code int32, msg string) func(string) error {
	return func(k string) error { return mongoerr.New(mongoerr.Location(code), "%s %s: %s", op, msg, k) }
}

// evalArray evaluates an operator's array argument: ok is false when it
// is null or missing, badType makes the error for any other non-array.
func evalArray(e *Expr, root bsoncore.Document, local map[string]bsoncore.Value, badType func(bsoncore.Value) error) (vals []bsoncore.Value, ok bool, err error) {
	v, err := e.Eval(root, local)
	if err != nil || Nullish(v) {
		return nil, false, err
	}
	if v.Type != bsoncore.TypeArray {
		return nil, false, badType(v)
	}
	return bsonval.ArrayValues(v), true, nil
}

// int32Arg is v as an int32 when it is a number with that exact value.
func int32Arg(v bsoncore.Value) (int32, bool) {
	if !bsonval.IsNumber(v) {
		return 0, false
	}
	if i, ok := bsonval.IntOf(v); ok {
		return int32(i), i >= math.MinInt32 && i <= math.MaxInt32
	}
	f := bsonval.NumberFloat(v)
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, false
	}
	return int32(f), true
}

func compileRange(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return ranged(op, v, vars, 2, 3, func(x []bsoncore.Value) (bsoncore.Value, error) {
		names := []string{"starting", "ending", "step"}
		codes := [][2]int32{{34443, 34444}, {34445, 34446}, {34447, 34448}}
		n := []int64{0, 0, 1}
		for i, a := range x {
			if !bsonval.IsNumber(a) {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(codes[i][0]), "$range requires a numeric %s value, found value of type: %s", names[i], bsonval.TypeName(a.Type))
			}
			k, ok := int32Arg(a)
			if !ok {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(codes[i][1]), "$range requires %s value that can be represented as a 32-bit integer, found value: %s", []string{"a starting", "an ending", "a step"}[i], bsonval.Shell(a))
			}
			n[i] = int64(k)
		}
		start, end, step := n[0], n[1], n[2]
		if step == 0 {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(34449), "$range requires a non-zero step value")
		}
		count := int64(0)
		if step > 0 && end > start {
			count = (end - start + step - 1) / step
		} else if step < 0 && end < start {
			count = (start - end - step - 1) / -step
		}
		if count > maxExprElements {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5029400), "$range would use too much memory (%d bytes) and cannot spill to disk. Memory limit: %d bytes", count*16, maxExprElements*16)
		}
		out := make([]bsoncore.Value, 0, count)
		for i := int64(0); i < count; i++ {
			out = append(out, bsonval.Int32(int32(start+i*step)))
		}
		return bsonval.Array(out), nil
	})
}

// compileZip is $zip: for each index, the array of the input arrays'
// elements there.
func compileZip(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	inputs, defaults, longest, hasDefaults, err := zipArgs(v, vars)
	if err != nil {
		return nil, err
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		arrays := make([][]bsoncore.Value, len(inputs))
		minLen, maxLen := math.MaxInt, 0
		for i, e := range inputs {
			a, err := e.Eval(root, local)
			if err != nil {
				return bsonval.Missing, err
			}
			if Nullish(a) {
				return bsonval.Null(), nil
			}
			if a.Type != bsoncore.TypeArray {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(34468), "$zip found a non-array expression in input: %s", bsonval.Shell(a))
			}
			arrays[i] = bsonval.ArrayValues(a)
			minLen, maxLen = min(minLen, len(arrays[i])), max(maxLen, len(arrays[i]))
		}
		fill := make([]bsoncore.Value, len(inputs))
		for i := range fill {
			fill[i] = bsonval.Null()
			if hasDefaults {
				d, err := defaults[i].Eval(root, local)
				if err != nil {
					return bsonval.Missing, err
				}
				if d.Type != 0 {
					fill[i] = d
				}
			}
		}
		n := minLen
		if longest {
			n = maxLen
		}
		out := make([]bsoncore.Value, n)
		row := make([]bsoncore.Value, len(inputs))
		for r := 0; r < n; r++ {
			for i, a := range arrays {
				if r < len(a) {
					row[i] = a[r]
				} else {
					row[i] = fill[i]
				}
			}
			out[r] = bsonval.Array(row)
		}
		return bsonval.Array(out), nil
	}}, nil
}

// zipArgs compiles and checks $zip's {inputs, useLongestLength,
// defaults}.
func zipArgs(v bsoncore.Value, vars *Vars) (inputs, defaults []*Expr, longest, hasDefaults bool, err error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, nil, false, false, mongoerr.New(mongoerr.Location(34460), "$zip only supports an object as an argument, found %s", bsonval.TypeName(v.Type))
	}
	for _, el := range bsonval.Elements(bsoncore.Document(v.Data)) {
		a := el.Value()
		switch el.Key() {
		case "inputs", "defaults":
			if a.Type != bsoncore.TypeArray {
				return nil, nil, false, false, mongoerr.New(mongoerr.Location(map[string]int32{"inputs": 34461, "defaults": 34462}[el.Key()]), "%s must be an array of expressions, found %s", el.Key(), bsonval.TypeName(a.Type))
			}
			es, err := args(a, vars)
			if err != nil {
				return nil, nil, false, false, err
			}
			if el.Key() == "inputs" {
				inputs = es
			} else {
				defaults, hasDefaults = es, true
			}
		case "useLongestLength":
			if a.Type != bsoncore.TypeBoolean {
				return nil, nil, false, false, mongoerr.New(mongoerr.Location(34463), "useLongestLength must be a bool, found %s", bsonval.TypeName(a.Type))
			}
			longest = a.Boolean()
		default:
			return nil, nil, false, false, mongoerr.New(mongoerr.Location(34464), "$zip found an unknown argument: %s", el.Key())
		}
	}
	if len(inputs) == 0 {
		return nil, nil, false, false, mongoerr.New(mongoerr.Location(34465), "$zip requires at least one input array")
	}
	if hasDefaults && !longest {
		return nil, nil, false, false, mongoerr.New(mongoerr.Location(34466), "cannot specify defaults unless useLongestLength is true")
	}
	if hasDefaults && len(defaults) != len(inputs) {
		return nil, nil, false, false, mongoerr.New(mongoerr.Location(34467), "defaults and inputs must have the same length")
	}
	return inputs, defaults, longest, hasDefaults, nil
}

// indexBound reads an optional start or end index of $indexOfArray,
// $indexOfBytes and $indexOfCP: a nonnegative integral number. The
// message of 40096 is MongoDB's, without a space after the operator.
func indexBound(op, which string, v bsoncore.Value) (int, error) {
	i, ok := int32Arg(v)
	if !ok {
		return 0, mongoerr.New(mongoerr.Location(40096), "%srequires an integral %s index, found a value of type: %s, with value: %s", op, which, bsonval.TypeName(v.Type), bsonval.Shell(v))
	}
	if i < 0 {
		return 0, mongoerr.New(mongoerr.Location(40097), "%s requires a nonnegative %s index, found: %d", op, which, i)
	}
	return int(i), nil
}

// indexBounds reads the start and end of an index search over n items
// from x[2:]: start defaults to 0, end to n, and end is capped at n.
func indexBounds(op string, x []bsoncore.Value, n int) (start, end int, err error) {
	end = n
	if len(x) > 2 {
		if start, err = indexBound(op, "starting", x[2]); err != nil {
			return 0, 0, err
		}
	}
	if len(x) > 3 {
		if end, err = indexBound(op, "ending", x[3]); err != nil {
			return 0, 0, err
		}
		end = min(end, n)
	}
	return start, end, nil
}

func compileIndexOfArray(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	k := vars.Collator()
	return ranged(op, v, vars, 2, 4, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) {
			return bsonval.Null(), nil
		}
		if x[0].Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(40090), "$indexOfArray requires an array as a first argument, found: %s", bsonval.TypeName(x[0].Type))
		}
		vals := bsonval.ArrayValues(x[0])
		start, end, err := indexBounds(op, x, len(vals))
		if err != nil {
			return bsonval.Missing, err
		}
		search := x[1]
		if search.Type == 0 {
			search = bsonval.Null()
		}
		for i := start; i < end; i++ {
			if k.Equal(vals[i], search) {
				return bsonval.Int32(int32(i)), nil
			}
		}
		return bsonval.Int32(-1), nil
	})
}

func compileReverseArray(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if Nullish(x[0]) {
			return bsonval.Null(), nil
		}
		if x[0].Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(34435), "The argument to $reverseArray must be an array, but was of type: %s", bsonval.TypeName(x[0].Type))
		}
		vals := bsonval.ArrayValues(x[0])
		slices.Reverse(vals)
		return bsonval.Array(vals), nil
	})
}

func compileSortArray(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(2942500), "$sortArray requires an object as an argument, found: %s", bsonval.TypeName(v.Type))
	}
	var in *Expr
	var sortBy bsoncore.Value
	for _, el := range bsonval.Elements(bsoncore.Document(v.Data)) {
		switch el.Key() {
		case "input":
			var err error
			if in, err = Compile(el.Value(), vars); err != nil {
				return nil, err
			}
		case "sortBy":
			sortBy = el.Value()
		default:
			return nil, mongoerr.New(mongoerr.Location(2942501), "$sortArray found an unknown argument: %s", el.Key())
		}
	}
	if in == nil {
		return nil, mongoerr.New(mongoerr.Location(2942502), "$sortArray requires 'input' to be specified")
	}
	if sortBy.Type == 0 {
		return nil, mongoerr.New(mongoerr.Location(2942503), "$sortArray requires 'sortBy' to be specified")
	}
	var cmp func(a, b bsoncore.Value) int
	switch {
	case bsonval.IsNumber(sortBy) && (bsonval.NumberFloat(sortBy) == 1 || bsonval.NumberFloat(sortBy) == -1):
		dir := int(bsonval.NumberFloat(sortBy))
		cmp = func(a, b bsoncore.Value) int { return dir * vars.Collator().Compare(a, b) }
	case sortBy.Type == bsoncore.TypeEmbeddedDocument:
		if len(bsonval.Elements(bsoncore.Document(sortBy.Data))) == 0 {
			return nil, mongoerr.New(mongoerr.Location(15976), "$sortArray sortBy must not be empty")
		}
		spec, err := bsonval.CompileSort(bsoncore.Document(sortBy.Data))
		if err != nil {
			return nil, err
		}
		spec.Coll = vars.Collator()
		empty := bsoncore.NewDocumentBuilder().Build()
		asDoc := func(v bsoncore.Value) bsoncore.Document {
			if v.Type == bsoncore.TypeEmbeddedDocument {
				return bsoncore.Document(v.Data)
			}
			return empty
		}
		cmp = func(a, b bsoncore.Value) int { return spec.Compare(asDoc(a), asDoc(b)) }
	default:
		return nil, mongoerr.New(mongoerr.Location(2942506), "The $sort element value must be either 1 or -1")
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		vals, ok, err := evalArray(in, root, local, func(iv bsoncore.Value) error {
			return mongoerr.New(mongoerr.Location(2942504), "The input argument to $sortArray must be an array, but was of type: %s", bsonval.TypeName(iv.Type))
		})
		if !ok {
			return bsonval.Null(), err
		}
		slices.SortStableFunc(vals, cmp)
		return bsonval.Array(vals), nil
	}}, nil
}

// compileSliceExpr is the expression $slice: [array, n] or
// [array, position, n].
func compileSliceExpr(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return ranged(op, v, vars, 2, 3, func(x []bsoncore.Value) (bsoncore.Value, error) {
		for _, a := range x {
			if Nullish(a) {
				return bsonval.Null(), nil
			}
		}
		if x[0].Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28724), "First argument to $slice must be an array, but is of type: %s", bsonval.TypeName(x[0].Type))
		}
		vals := bsonval.ArrayValues(x[0])
		size := len(vals)
		nv := x[len(x)-1]
		if len(x) == 2 {
			n, ok := int32Arg(nv)
			if !ok {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(28725), "Second argument to $slice must be a numeric value, but is of type: %s", bsonval.TypeName(nv.Type))
			}
			if n >= 0 {
				return bsonval.Array(vals[:min(int(n), size)]), nil
			}
			return bsonval.Array(vals[max(0, size+int(n)):]), nil
		}
		p, ok := int32Arg(x[1])
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28725), "Second argument to $slice must be a numeric value, but is of type: %s", bsonval.TypeName(x[1].Type))
		}
		n, ok := int32Arg(nv)
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28727), "Third argument to $slice must be numeric, but is of type: %s", bsonval.TypeName(nv.Type))
		}
		if n <= 0 {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(28729), "Third argument to $slice must be positive: %s", bsonval.Shell(nv))
		}
		start := int(p)
		if start < 0 {
			start = max(0, size+start)
		}
		start = min(start, size)
		return bsonval.Array(vals[start:min(size, start+int(n))]), nil
	})
}

// compileArrayN is the array form of $firstN, $lastN, $maxN and $minN:
// {n, input}, input an array (null is an error, as in MongoDB). $maxN
// and $minN leave out null values.
func compileArrayN(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.Location(5787801), "specification must be an object; found %s for %s", bsonval.TypeName(v.Type), op)
	}
	es, err := namedArgs(v, vars, nil, nil, func(k string) error {
		return mongoerr.New(mongoerr.Location(5787901), "Unknown argument for 'n' operator: %s", k)
	}, "n", "input")
	if err != nil {
		return nil, err
	}
	n, in, coll := es["n"], es["input"], vars.Collator()
	if n == nil {
		return nil, mongoerr.New(mongoerr.Location(5787906), "Missing value for 'n'")
	}
	if in == nil {
		return nil, mongoerr.New(mongoerr.Location(5787907), "Missing value for 'input'")
	}
	return &Expr{Eval: func(root bsoncore.Document, local map[string]bsoncore.Value) (bsoncore.Value, error) {
		nv, err := n.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		if !bsonval.IsNumber(nv) {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5787902), "Value for 'n' must be of integral type, but found %s", bsonval.Shell(nv))
		}
		k, ok := bsonval.IntOf(nv)
		if f := bsonval.NumberFloat(nv); !ok {
			k = int64(f)
			if float64(k) != f || math.IsNaN(f) {
				return bsonval.Missing, mongoerr.New(mongoerr.Location(5787903), "Value for 'n' must be of integral type, but found %s", bsonval.Shell(nv))
			}
		}
		if k <= 0 {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5787908), "'n' must be greater than 0, found %d", k)
		}
		iv, err := in.Eval(root, local)
		if err != nil {
			return bsonval.Missing, err
		}
		if iv.Type != bsoncore.TypeArray {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5788200), "Input must be an array")
		}
		vals := bsonval.ArrayValues(iv)
		cut := int(min(k, int64(len(vals))))
		switch op {
		case "$firstN":
			return bsonval.Array(vals[:cut]), nil
		case "$lastN":
			return bsonval.Array(vals[len(vals)-cut:]), nil
		}
		vals = slices.DeleteFunc(vals, Nullish)
		if op == "$maxN" {
			slices.SortStableFunc(vals, func(a, b bsoncore.Value) int { return coll.Compare(b, a) })
		} else {
			slices.SortStableFunc(vals, coll.Compare)
		}
		return bsonval.Array(vals[:min(k, int64(len(vals)))]), nil
	}}, nil
}

func compileElementsTrue(op string, v bsoncore.Value, vars *Vars) (*Expr, error) {
	return simple(op, v, vars, 1, func(x []bsoncore.Value) (bsoncore.Value, error) {
		if x[0].Type != bsoncore.TypeArray {
			code := int32(17040)
			if op == "$anyElementTrue" {
				code = 17041
			}
			return bsonval.Missing, mongoerr.New(mongoerr.Location(code), "%s's argument must be an array, but is %s", op, bsonval.TypeName(x[0].Type))
		}
		all := op == "$allElementsTrue"
		for _, e := range bsonval.ArrayValues(x[0]) {
			if bsonval.Truthy(e) != all {
				return bsonval.Bool(!all), nil
			}
		}
		return bsonval.Bool(all), nil
	})
}
