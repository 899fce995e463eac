package infer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
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
	var cols []seed.CollectionPlan
	from, to, windowed := planWindow(profiles)
	at, span := time.Unix(to, 0).UTC(), time.Duration(to-from)*time.Second
	for _, p := range profiles {
		p.Finish()
		b := &builder{p: p, k: p.MinCount, skip: map[string]bool{}, unique: map[string]bool{}}
		col, err := b.collection(from, to)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
		out.Notes = append(out.Notes, b.notes...)
		out.Rows = append(out.Rows, b.rows...)
	}
	plan := seed.PlanFile{DB: db, Collections: cols}
	if windowed {
		plan.At, plan.Span = at.Format(time.RFC3339), span.String()
	}
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

// planWindow is the plan's window, which holds every collection's: from
// the earliest K-th earliest _id time to the latest K-th latest (Unix
// seconds); windowed is false when no collection has one.
func planWindow(profiles []*Profile) (from, to int64, windowed bool) {
	for _, p := range profiles {
		if lo, hi, ok := idWindow(p); ok {
			if !windowed || lo < from {
				from = lo
			}
			if !windowed || hi > to {
				to = hi
			}
			windowed = true
		}
	}
	return from, to, windowed
}

// collection is the plan of b's collection, from..to the plan's window.
func (b *builder) collection(from, to int64) (seed.CollectionPlan, error) {
	p := b.p
	total := p.Total
	col := seed.CollectionPlan{CollectionSpec: seed.CollectionSpec{Name: p.Collection}, Count: &total}
	id, idMix, idNote := b.idStrategy()
	col.ID, col.IDMix = id, idMix
	if _, mixed := idMix["int"]; id == "int" || mixed {
		col.IDQuantiles = b.intIDs()
	}
	if idNote != "" {
		b.note("_id", false, false, "%s", idNote)
	}
	_, mixedOID := idMix["objectid"]
	if q, ok := p.idTimes.Quantiles(quantilePoints); ok && (id == "objectid" || mixedOID) && to > from {
		col.Times = windowShares(q, from, to)
	}
	col.Refs = b.refs()
	ixs := b.planIndexes()
	tmpl := b.object("")
	b.keepUnique(ixs, tmpl, id)
	var err error
	if col.Template, err = json.Marshal(tmpl); err != nil {
		return col, err
	}
	for _, ix := range ixs {
		j, err := json.Marshal(ix)
		if err != nil {
			return col, err
		}
		col.Indexes = append(col.Indexes, j)
	}
	return col, nil
}

// windowShares places the _id time quantiles q within the window
// from..to, as shares of it from 0 to 1, never decreasing.
func windowShares(q []float64, from, to int64) []float64 {
	times := make([]float64, len(q))
	for j, x := range q {
		times[j] = min(max(math.Round((x-float64(from))/float64(to-from)*1e6)/1e6, 0), 1)
		if j > 0 {
			times[j] = max(times[j], times[j-1])
		}
	}
	return times
}

// refs is the plan references of the collection's references, and their
// rows; their fields are placed by the references, not the template.
func (b *builder) refs() []seed.Ref {
	p := b.p
	var refs []seed.Ref
	for _, r := range p.Refs {
		b.skip[r.Field] = true
		ref := seed.Ref{Field: r.Field, To: r.To}
		desc := "ref " + r.To
		if r.Array {
			f := p.byPath[r.Field]
			ref.Min, ref.Max = b.lengthRange(f)
			if f != nil && len(f.ArrLens) > 0 {
				kept, ws := b.arrayLengths(f)
				ref.Min, ref.Max, ref.Lengths = kept[0], kept[len(kept)-1], kept
				for _, w := range ws {
					ref.Weights = append(ref.Weights, float64(w))
				}
			}
			desc += fmt.Sprintf(", %d..%d per document", ref.Min, ref.Max)
		}
		if r.Resolved < 0.995 {
			ref.Unresolved = math.Round((1-r.Resolved)*1e4) / 1e4
			desc += fmt.Sprintf(", %s resolve", pct(r.Resolved))
		}
		if q := r.perTarget; len(q) > 0 && slices.Max(q) > 0 {
			ref.PerTarget = q
			desc += fmt.Sprintf(", %s..%s per %s document", num(q[0]), num(slices.Max(q)), r.To)
		}
		if f := p.byPath[r.Field]; f != nil && f.Share() < 0.995 {
			b.note(r.Field, false, false, "present in %.1f%% of the documents; a plan reference is in every one", 100*f.Share())
		}
		refs = append(refs, ref)
		b.rows = append(b.rows, Row{Collection: p.Collection, Path: r.Field, Present: shareOf(p.byPath[r.Field]), Types: typesText(p.byPath[r.Field]), Inferred: desc})
	}
	return refs
}

// planIndexes is the collection's indexes but _id's; the fields of its unique
// ones are marked for the template to make unique.
func (b *builder) planIndexes() []any {
	var ixs []any
	for _, d := range b.p.Indexes {
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
	return ixs
}

// keepUnique drops unique from the indexes of ixs over a field that tmpl
// (or the _id strategy id) cannot make unique, with a note.
func (b *builder) keepUnique(ixs []any, tmpl obj, id string) {
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

// idStrategy is the plan's _id strategy for the profiled collection, the
// idMix of the other strategies its _ids have (nil for none), and a note
// when the types of the _ids are not all kept.
func (b *builder) idStrategy() (string, seed.IDMixMap, string) {
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
	case TypeObjectID, "", TypeUUID, TypeInt, TypeLong:
		id := idStrategyOf(best)
		mix, mixNote := b.idMix(id)
		if mix != nil {
			note = mixNote
		}
		return id, mix, note
	case TypeString:
		for _, f := range p.Fields {
			if p.sameID[f.Path] == p.Sampled && f.Path != "_id" {
				b.unique[f.Path] = true
				return "field:" + f.Path, nil, note
			}
		}
		return "objectid", nil, "_id is a string that no other field holds: generated as ObjectIDs"
	}
	return "objectid", nil, fmt.Sprintf("_id of type %s: generated as ObjectIDs", best)
}

// idStrategyOf is the strategy that makes _ids of type t, "" for a type
// no strategy but field:NAME makes; no _id (t "") is objectid.
func idStrategyOf(t string) string {
	switch t {
	case TypeObjectID, "":
		return "objectid"
	case TypeUUID:
		return "uuid"
	case TypeInt, TypeLong:
		return "int"
	}
	return ""
}

// idMix is the idMix of a collection whose most common _id strategy is id:
// the share of the sampled documents of each other strategy whose _ids are
// in at least MinCount of them (shares only, no value), in the order seed
// reads them; nil when there is none. The note says what was kept.
func (b *builder) idMix(id string) (seed.IDMixMap, string) {
	p := b.p
	counts := map[string]int64{}
	for t, c := range p.idTypes {
		if s := idStrategyOf(t); s != "" {
			counts[s] += c
		}
	}
	var mix seed.IDMixMap
	kept := []string{fmt.Sprintf("%s %s", id, pct(float64(counts[id])/float64(p.Sampled)))}
	for _, s := range []string{"objectid", "int", "uuid"} {
		if s == id || counts[s] < int64(b.k) {
			continue
		}
		share := math.Round(float64(counts[s])/float64(p.Sampled)*1e4) / 1e4
		if mix == nil {
			mix = seed.IDMixMap{}
		}
		mix[s] = share
		kept = append(kept, fmt.Sprintf("%s %s", s, pct(float64(counts[s])/float64(p.Sampled))))
	}
	if mix == nil || counts[id] < int64(b.k) {
		return nil, ""
	}
	note := fmt.Sprintf("_id has several types; kept as %s of the documents (idMix)", strings.Join(kept, ", "))
	var rest int64
	for t, c := range p.idTypes {
		if s := idStrategyOf(t); s == "" || (s != id && counts[s] < int64(b.k)) {
			rest += c
		}
	}
	if rest > 0 {
		note += fmt.Sprintf("; the other %s generated as %s", pct(float64(rest)/float64(p.Sampled)), id)
	}
	return mix, note
}

// idWindow is the window of p's ObjectID _id times, in Unix seconds: the
// K-th earliest and the K-th latest.
func idWindow(p *Profile) (lo, hi int64, ok bool) {
	r, k := p.idTimes, p.MinCount
	if r.n < int64(k) || len(r.lo) < k {
		return 0, 0, false
	}
	return int64(r.lo[k-1]), int64(r.hi[k-1]), true
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
		v := b.value(f)
		if prefix == "" {
			v = b.pooled(f, v)
		}
		o = append(o, kv{key, v})
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

// intIDs makes the int strategy's _ids follow the source's integer _ids:
// their quantiles (idQuantiles, each point the mean of K sampled values,
// the ends the K-th smallest and largest), which seed turns into increasing
// _ids. Nothing when there are too few, or the source's are 1, 2, 3, ...
func (b *builder) intIDs() []float64 {
	f := b.p.byPath["_id"]
	if f == nil {
		return nil
	}
	var r *reservoir
	for _, t := range []string{TypeInt, TypeLong} {
		if x := f.Nums[t]; x != nil && (r == nil || x.n > r.n) {
			r = x
		}
	}
	if r == nil {
		return nil
	}
	q, ok := r.Quantiles(quantilePoints)
	if !ok || (q[0] == 1 && q[len(q)-1] == float64(b.p.Total)) {
		return nil
	}
	return roundAll(q, 1)
}

// pooled is v as a $pool when f is a top-level field whose name says it
// holds ids (idName), which the plan makes no reference, whose values
// repeat (at most half as many distinct values as documents holding it),
// and which v draws from a distribution (not kept categories): the copy's
// documents then share as many generated values as the sample has, each
// held by as many documents as the source's ranked alike (ratings of a few
// books, a foreign key into a collection that was not inferred).
func (b *builder) pooled(f *Field, v any) any {
	o, ok := v.(obj)
	if !ok || len(o) == 0 || (o[0].k != "$number" && o[0].k != "$string") || !idName(f.Path) || f.repeats == nil {
		return v
	}
	counts := make([]float64, 0, len(f.repeats.n))
	for _, n := range f.repeats.n {
		counts = append(counts, float64(n))
	}
	d := len(counts) << f.repeats.bits
	if d < 2 || int64(d)*2 > f.Present || d > 1<<16 {
		return v
	}
	slices.Sort(counts)
	parts := min(quantilePoints, max(len(counts)/b.k, 1))
	ws := make([]float64, parts)
	for j := range parts {
		lo, hi := j*len(counts)/parts, (j+1)*len(counts)/parts
		for _, c := range counts[lo:hi] {
			ws[j] += c
		}
		ws[j] = math.Round(ws[j]/float64(max(hi-lo, 1))*1e3) / 1e3
	}
	b.note(f.Path, false, false, "its values repeat (%d distinct in %d sampled documents): a pool of %d generated values, shared as the source's are", d, f.Present, d)
	return obj{{"$pool", v}, {"$size", d}, {"$weights", ws}}
}
