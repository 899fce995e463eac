package infer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The template value of one field (see plan.go): its type mix, numeric and
// date distributions, categories, string lengths and arrays.

// value is the template value of field f: its types and absence mixed by
// their weights.
func (b *builder) value(f *Field) any {
	var opts []any
	var weights []int64
	var descs []string
	for _, t := range typeOrder(f) {
		v, d := b.typed(f, t)
		opts = append(opts, v)
		weights = append(weights, f.Types[t])
		descs = append(descs, d)
	}
	if miss := f.Parent - f.Present; miss > 0 {
		opts = append(opts, obj{{"$missing", true}})
		weights = append(weights, miss)
	}
	b.rows = append(b.rows, Row{Collection: b.p.Collection, Path: f.Path, Present: f.Share(), Types: typesText(f), Inferred: strings.Join(descs, "; ")})
	if len(opts) == 1 {
		return opts[0]
	}
	return obj{{"$mix", opts}, {"$weights", weights}}
}

// typed is the template value of f's values of type t, and what it is.
func (b *builder) typed(f *Field, t string) (any, string) {
	switch t {
	case TypeNull:
		return nil, "null"
	case TypeObject:
		return b.object(f.Path + "."), "document"
	case TypeArray:
		return b.array(f)
	case TypeBool:
		return b.categories(f, t, nil, "")
	case TypeString, TypeInt, TypeLong, TypeDouble:
		gen, desc := b.distribution(f, t)
		if !f.ManyCat[t] && !b.unique[f.Path] {
			return b.categories(f, t, gen, desc)
		}
		return gen, desc
	case TypeDate:
		return b.dates(f, "$date", f.Nums[t], func(x float64) string {
			return time.UnixMilli(int64(math.Round(x))).UTC().Format("2006-01-02T15:04:05.000Z07:00")
		})
	case TypeObjectID:
		return b.dates(f, "$objectid", f.Nums[t], func(x float64) string {
			return time.Unix(int64(x), 0).UTC().Format(time.RFC3339)
		})
	case TypeUUID:
		b.note(f.Path, false, false, "binary UUIDs: generated as UUID strings (the template language has no binary)")
		return obj{{"$string", "uuid"}}, "uuid text"
	case TypeBinary:
		b.note(f.Path, false, false, "binary values: generated as hex strings (the template language has no binary)")
		return obj{{"$string", "hex"}, {"$lengths", []int{32}}}, "hex text"
	case TypeDecimal:
		b.note(f.Path, false, false, "Decimal128 values: generated as null (no distribution is kept for them)")
		return nil, "null"
	}
	b.note(f.Path, false, false, "values of a BSON type the template language lacks: generated as null")
	return nil, "null"
}

// distribution is a generator of f's values of type t from their
// distribution, with no value of the source in it.
func (b *builder) distribution(f *Field, t string) (any, string) {
	if t == TypeString {
		kind, n := "letters", int64(-1)
		for k, c := range f.Kinds {
			if c > n || (c == n && k < kind) {
				kind, n = k, c
			}
		}
		g := obj{{"$string", kind}}
		desc := kind
		if q, ok := f.Lengths.Quantiles(quantilePoints); ok {
			g = append(g, kv{"$lengths", roundAll(q, 2)})
			desc += fmt.Sprintf(", length %g..%g", q[0], q[len(q)-1])
		}
		if b.unique[f.Path] || (f.Unique() && f.Present >= int64(2*b.k)) {
			b.unique[f.Path] = true
			g = append(g, kv{"$unique", true})
			desc += ", unique"
		}
		return g, desc
	}
	typ := map[string]string{TypeInt: "int", TypeLong: "long", TypeDouble: "double"}[t]
	if t == TypeDouble && f.Cents {
		typ = "cents"
	}
	q, ok := f.Nums[t].Quantiles(quantilePoints)
	if !ok {
		b.note(f.Path, false, false, "fewer than %d %s values: generated as 0", b.k, t)
		return obj{{"$number", []float64{0}}, {"$type", typ}}, "0"
	}
	digits := 6
	if typ == "int" || typ == "long" {
		digits = 2
	}
	return obj{{"$number", roundAll(q, digits)}, {"$type", typ}}, fmt.Sprintf("%s quantiles %s..%s", typ, num(q[0]), num(q[len(q)-1]))
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }

func roundAll(q []float64, digits int) []float64 {
	out := make([]float64, len(q))
	m := math.Pow(10, float64(digits))
	for i, x := range q {
		out[i] = math.Round(x*m) / m
	}
	return out
}

// categories keeps the values of type t that at least K sampled documents
// hold, with their counts as weights; the other values of that type come
// from gen (nil: there is none, as for booleans).
func (b *builder) categories(f *Field, t string, gen any, genDesc string) (any, string) {
	keys, rest, total, ok := f.kept(t, b.k)
	if !ok {
		return gen, genDesc // mostly rare values: a distribution, not categories
	}
	slices.SortFunc(keys, func(a, c string) int {
		if f.Cats[a] != f.Cats[c] {
			return int(f.Cats[c] - f.Cats[a])
		}
		return strings.Compare(a, c)
	})
	var opts []any
	var weights []int64
	var shown []string
	for _, c := range keys {
		opts = append(opts, literal(t, c[2:]))
		weights = append(weights, f.Cats[c])
		if len(shown) < 8 {
			shown = append(shown, c[2:])
		} else if len(shown) == 8 {
			shown = append(shown, "...")
		}
	}
	if rest > 0 {
		if gen == nil { // a rare boolean: the other one is as good a stand-in
			gen = literal(t, "false")
		}
		opts = append(opts, gen)
		weights = append(weights, rest)
	}
	if t != TypeBool {
		b.note(f.Path, true, false, "kept %d literal %s values (%s), each in at least %d sampled documents, covering %s of them", len(keys), t, strings.Join(shown, ", "), b.k, pct(float64(total-rest)/float64(max(total, 1))))
	}
	desc := fmt.Sprintf("%d values", len(keys))
	if len(opts) == 1 {
		return opts[0], desc
	}
	return obj{{"$mix", opts}, {"$weights", weights}}, desc
}

// kept are the counted values of type t that at least k sampled documents
// hold (a template cannot hold a string with a brace), the count of the
// others and of all; ok says whether a plan keeps them as categories: a
// boolean always, another type when they are most of its values. The one
// rule of what a plan keeps, which compare measures as categories too.
func (f *Field) kept(t string, k int) (keys []string, rest, total int64, ok bool) {
	if f.ManyCat[t] {
		return nil, 0, 0, false
	}
	prefix := catPrefix[t]
	for c, n := range f.Cats {
		if !strings.HasPrefix(c, prefix) {
			continue
		}
		if n >= int64(k) && !(t == TypeString && strings.Contains(c, "{")) {
			keys = append(keys, c)
		} else {
			rest += n
		}
	}
	total = rest
	for _, c := range keys {
		total += f.Cats[c]
	}
	ok = t == TypeBool || (len(keys) > 0 && float64(rest) <= 0.5*float64(total))
	return keys, rest, total, ok
}

// catPrefix is how a profile's counted values of each type begin.
var catPrefix = map[string]string{TypeString: "s:", TypeInt: "i:", TypeLong: "l:", TypeDouble: "d:", TypeBool: "b:"}

// literal is a kept value as a template value of type t.
func literal(t, s string) any {
	switch t {
	case TypeString:
		return s
	case TypeBool:
		return s == "true"
	}
	x, _ := strconv.ParseFloat(s, 64)
	if t == TypeInt {
		return int32(x) // a JSON integer is an int32 in a template
	}
	typ := map[string]string{TypeInt: "int", TypeLong: "long", TypeDouble: "double"}[t]
	return obj{{"$number", []float64{x}}, {"$type", typ}}
}

func (b *builder) dates(f *Field, op string, r *reservoir, format func(float64) string) (any, string) {
	q, ok := r.Quantiles(quantilePoints)
	if !ok {
		b.note(f.Path, false, false, "fewer than %d values: generated at the Unix epoch", b.k)
		return obj{{op, []string{format(0)}}}, "epoch"
	}
	texts := make([]string, len(q))
	for i, x := range q {
		texts[i] = format(x)
	}
	return obj{{op, texts}}, fmt.Sprintf("quantiles %s..%s", texts[0], texts[len(texts)-1])
}

// lengthRange is the K-th shortest and longest array length of f.
func (b *builder) lengthRange(f *Field) (int, int) {
	if f == nil {
		return 0, 1
	}
	var ls []int
	for l, n := range f.ArrLens {
		for range min(n, int64(b.k)) {
			ls = append(ls, l)
		}
	}
	slices.Sort(ls)
	lo, hi := ls[min(b.k-1, len(ls)-1)], ls[max(len(ls)-b.k, 0)]
	return max(lo, 1), max(hi, lo, 1)
}

// array is an $array of f's element path, with f's length distribution
// (arrayLengths).
func (b *builder) array(f *Field) (any, string) {
	kept, ws := b.arrayLengths(f)
	var elem any
	desc := fmt.Sprintf("array, length %d..%d", kept[0], kept[len(kept)-1])
	if ef := b.p.byPath[f.Path+"[]"]; ef != nil {
		elem = b.value(ef)
	}
	return obj{{"$array", elem}, {"$lengths", kept}, {"$weights", ws}}, desc
}

// arrayLengths is f's length distribution, ascending: lengths held by fewer
// than K arrays count as their nearest kept length.
func (b *builder) arrayLengths(f *Field) (kept []int, ws []int64) {
	var lens []int
	for l := range f.ArrLens {
		lens = append(lens, l)
	}
	slices.Sort(lens)
	weights := map[int]int64{}
	for _, l := range lens {
		if f.ArrLens[l] >= int64(b.k) {
			kept = append(kept, l)
		}
	}
	if len(kept) == 0 {
		kept = []int{lens[len(lens)/2]}
	}
	for _, l := range lens {
		near := kept[0]
		for _, k := range kept {
			if abs(k-l) < abs(near-l) {
				near = k
			}
		}
		weights[near] += f.ArrLens[l]
	}
	for _, l := range kept {
		ws = append(ws, weights[l])
	}
	return kept, ws
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// scalarList is a JSON array of numbers, strings, booleans and nulls.
var scalarList = regexp.MustCompile(`\[[^\[\]{}]*\]`)

// compactLists writes each list of scalars on one line: quantiles and
// weights read better so, and the plan stays short.
func compactLists(data []byte) []byte {
	return scalarList.ReplaceAllFunc(data, func(m []byte) []byte {
		var b bytes.Buffer
		_ = json.Compact(&b, m)
		return bytes.ReplaceAll(b.Bytes(), []byte(","), []byte(", "))
	})
}
