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

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/seed"
)

// quantilePoints is how many intervals a plan's distributions have.
const quantilePoints = 100

// Note says what a plan made of one field path, and why, when it is worth
// telling: literal values kept, a substitute for what the template
// language cannot express, a setting that could not be kept.
type Note struct {
	Collection string
	Path       string
	// Literal: the plan holds values of the source (each in at least
	// MinCount sampled documents).
	Literal bool
	// Inexpressible: the path could not be expressed; Text says what was
	// done instead.
	Inexpressible bool
	Text          string
}

func (n Note) String() string { return n.Collection + "." + n.Path + ": " + n.Text }

// Inferred is a plan made from profiles: its JSON text (what seed.ParsePlan
// reads), the parsed plan, and the notes.
type Inferred struct {
	JSON  []byte
	Plan  *seed.Plan
	Notes []Note
	// Rows are one line per field path of each collection, for a table.
	Rows []Row
}

// Row describes what was inferred for one path.
type Row struct {
	Collection, Path string
	Present          float64 // share of the enclosing documents
	Types            string  // "int 95%, string 5%"
	Inferred         string  // "quantiles 18..90", "3 values", "email, unique", "ref users"
}

// obj is a JSON object that keeps its keys in order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type builder struct {
	p     *Profile
	k     int
	notes []Note
	rows  []Row
	// skip holds top-level fields the plan places otherwise (references).
	skip   map[string]bool
	unique map[string]bool
}

func (b *builder) note(path string, literal, inexpressible bool, format string, args ...any) {
	b.notes = append(b.notes, Note{Collection: b.p.Collection, Path: path, Literal: literal, Inexpressible: inexpressible, Text: fmt.Sprintf(format, args...)})
}

// Plan turns profiles into a plan for database db with each collection's
// source count: seed.ParsePlan reads its JSON unchanged. References found
// between the profiled collections become plan references.
func Plan(db string, profiles []*Profile) (*Inferred, error) {
	out := &Inferred{}
	var cols []any
	var at time.Time
	var span time.Duration
	for _, p := range profiles {
		p.Finish()
		b := &builder{p: p, k: p.MinCount, skip: map[string]bool{}, unique: map[string]bool{}}
		col := obj{{"name", p.Collection}, {"count", p.Total}}
		id, idNote := b.idStrategy()
		col = append(col, kv{"id", id})
		if idNote != "" {
			b.note("_id", false, false, "%s", idNote)
		}
		if t, s, ok := b.idWindow(); ok && (at.IsZero() || t.After(at)) {
			at = t
			span = max(span, s)
		}
		var refs []any
		for _, r := range p.Refs {
			b.skip[r.Field] = true
			ref := obj{{"field", r.Field}, {"to", r.To}}
			desc := "ref " + r.To
			if r.Array {
				f := p.byPath[r.Field]
				lo, hi := b.lengthRange(f)
				ref = append(ref, kv{"min", lo}, kv{"max", hi})
				desc += fmt.Sprintf(", %d..%d per document", lo, hi)
			}
			if r.Resolved < 0.995 {
				b.note(r.Field, false, false, "%.1f%% of its values resolve in %s; a plan reference always resolves", 100*r.Resolved, r.To)
			}
			if f := p.byPath[r.Field]; f != nil && f.Share() < 0.995 {
				b.note(r.Field, false, false, "present in %.1f%% of the documents; a plan reference is in every one", 100*f.Share())
			}
			refs = append(refs, ref)
			b.rows = append(b.rows, Row{Collection: p.Collection, Path: r.Field, Present: shareOf(p.byPath[r.Field]), Types: typesText(p.byPath[r.Field]), Inferred: desc})
		}
		var ixs []any
		for _, d := range p.Indexes {
			ix, err := indexes.FromDocument(d)
			if err != nil || ix.NameOrDefault() == "_id_" {
				continue
			}
			if ix.Unique {
				for _, f := range ix.Fields() {
					b.unique[f] = true
				}
			}
			ixs = append(ixs, ix)
		}
		tmpl := b.object("")
		for k, ix := range ixs {
			ix := ix.(indexes.Index)
			if ix.Unique {
				for _, f := range ix.Fields() {
					if f != "_id" && !b.made(tmpl, f) && !(strings.HasPrefix(id, "field:") && id[6:] == f) {
						b.note(f, false, true, "unique index %s: the field cannot be generated unique; the index is kept without unique", ix.NameOrDefault())
						ix.Unique = false
					}
				}
			}
			ixs[k] = ix
		}
		col = append(col, kv{"template", tmpl})
		if len(refs) > 0 {
			col = append(col, kv{"refs", refs})
		}
		if len(ixs) > 0 {
			col = append(col, kv{"indexes", ixs})
		}
		cols = append(cols, col)
		out.Notes = append(out.Notes, b.notes...)
		out.Rows = append(out.Rows, b.rows...)
	}
	plan := obj{{"db", db}}
	if !at.IsZero() {
		plan = append(plan, kv{"at", at.Format(time.RFC3339)}, kv{"span", span.String()})
	}
	plan = append(plan, kv{"collections", cols})
	data, err := json.MarshalIndent(plan, "", "  ")
	if err != nil {
		return nil, err
	}
	out.JSON = append(compactLists(data), '\n')
	if out.Plan, err = seed.ParsePlan("inferred plan", out.JSON, "."); err != nil {
		return nil, err
	}
	return out, nil
}

// made reports whether the template was built with field f unique.
func (b *builder) made(tmpl obj, f string) bool {
	for _, e := range tmpl {
		if e.k == f {
			if o, ok := e.v.(obj); ok {
				for _, x := range o {
					if x.k == "$unique" {
						return true
					}
				}
			}
		}
	}
	return false
}

func (b *builder) idStrategy() (string, string) {
	p := b.p
	best, n := "", int64(0)
	for t, c := range p.idTypes {
		if c > n || (c == n && t < best) {
			best, n = t, c
		}
	}
	var note string
	if n < p.Sampled {
		note = fmt.Sprintf("_id has several types; all generated as %s", best)
	}
	switch best {
	case TypeObjectID, "":
		return "objectid", note
	case TypeUUID:
		return "uuid", note
	case TypeInt, TypeLong:
		return "int", note
	case TypeString:
		for _, f := range p.Fields {
			if p.sameID[f.Path] == p.Sampled && f.Path != "_id" {
				b.unique[f.Path] = true
				return "field:" + f.Path, note
			}
		}
		return "objectid", "_id is a string that no other field holds: generated as ObjectIDs"
	}
	return "objectid", fmt.Sprintf("_id of type %s: generated as ObjectIDs", best)
}

// idWindow is the time base and span of ObjectID _ids: the K-th latest
// time, and its distance to the K-th earliest.
func (b *builder) idWindow() (time.Time, time.Duration, bool) {
	r := b.p.idTimes
	if r.n < int64(b.k) || len(r.lo) < b.k {
		return time.Time{}, 0, false
	}
	lo, hi := r.lo[b.k-1], r.hi[b.k-1]
	return time.Unix(int64(hi), 0).UTC(), time.Duration(hi-lo) * time.Second, true
}

// object is the template object of the fields directly under prefix.
func (b *builder) object(prefix string) obj {
	parent := strings.TrimSuffix(prefix, ".")
	o := obj{}
	hasCreated := false
	for _, f := range b.p.Fields {
		if f.parentPath() != parent || strings.HasSuffix(f.Path, "[]") {
			continue
		}
		key := f.Path[len(prefix):]
		if prefix == "" && key == "_id" {
			continue
		}
		if prefix == "" && b.skip[key] {
			o = append(o, kv{key, nil}) // the reference takes this place
			continue
		}
		if key == "" || strings.HasPrefix(key, "$") || strings.ContainsAny(key, ".\x00") {
			b.note(f.Path, false, true, "field name %q cannot be a template key (empty, a dot, or a leading $): left out of the plan", key)
			continue
		}
		if prefix == "" && key == "createdAt" {
			hasCreated = true
			if b.p.sameTime[key] == b.p.Sampled && b.p.Sampled > 0 {
				b.rows = append(b.rows, Row{Collection: b.p.Collection, Path: f.Path, Present: 1, Types: typesText(f), Inferred: "the _id time"})
				continue // seed writes the _id time there
			}
		} else if prefix == "" && b.p.sameTime[key] == b.p.Sampled && b.p.Sampled > 0 {
			b.note(f.Path, false, false, "equals the _id time in the source; only createdAt can be generated so: generated from its distribution")
		}
		o = append(o, kv{key, b.value(f)})
	}
	if prefix == "" && !hasCreated {
		o = append(o, kv{"createdAt", obj{{"$mix", []any{obj{{"$missing", true}}}}, {"$weights", []int{1}}}})
	}
	return o
}

func shareOf(f *Field) float64 {
	if f == nil {
		return 0
	}
	return f.Share()
}

// typeOrder lists f's types, most frequent first.
func typeOrder(f *Field) []string {
	var ts []string
	for t := range f.Types {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, c string) int {
		if f.Types[a] != f.Types[c] {
			return int(f.Types[c] - f.Types[a])
		}
		return strings.Compare(a, c)
	})
	return ts
}

func typesText(f *Field) string {
	if f == nil {
		return ""
	}
	var parts []string
	for _, t := range typeOrder(f) {
		parts = append(parts, fmt.Sprintf("%s %s", t, pct(float64(f.Types[t])/float64(max(f.Present, 1)))))
	}
	return strings.Join(parts, ", ")
}

func pct(x float64) string {
	s := strconv.FormatFloat(100*x, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + "%"
}

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
	prefix := map[string]string{TypeString: "s:", TypeInt: "i:", TypeLong: "l:", TypeDouble: "d:", TypeBool: "b:"}[t]
	var keys []string
	var rest int64
	for c, n := range f.Cats {
		if !strings.HasPrefix(c, prefix) {
			continue
		}
		if n >= int64(b.k) && !(t == TypeString && strings.Contains(c, "{")) {
			keys = append(keys, c)
		} else {
			rest += n
		}
	}
	total := rest
	for _, c := range keys {
		total += f.Cats[c]
	}
	if t != TypeBool && (len(keys) == 0 || float64(rest) > 0.5*float64(total)) {
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

// array is an $array of f's element path, with f's length distribution:
// lengths held by fewer than K arrays are drawn as their nearest kept
// length.
func (b *builder) array(f *Field) (any, string) {
	var lens []int
	for l := range f.ArrLens {
		lens = append(lens, l)
	}
	slices.Sort(lens)
	weights := map[int]int64{}
	var kept []int
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
	var ws []int64
	for _, l := range kept {
		ws = append(ws, weights[l])
	}
	var elem any
	desc := fmt.Sprintf("array, length %d..%d", kept[0], kept[len(kept)-1])
	if ef := b.p.byPath[f.Path+"[]"]; ef != nil {
		elem = b.value(ef)
	}
	return obj{{"$array", elem}, {"$lengths", kept}, {"$weights", ws}}, desc
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
