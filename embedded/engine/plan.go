package engine

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/query"
)

// plan is how a query reads a collection.
type plan struct {
	stage    string // "IDHACK", "IXSCAN" or "COLLSCAN"
	index    *index
	backward bool // the index is read from its end, for a sort against its order
	keysSeen int
	docsSeen int
}

// idIndex describes the _id index for explain: the documents themselves,
// kept in _id order, are its entries.
var idIndex = &index{name: "_id_", key: idKey, unique: true, fields: []bsonval.SortField{{Path: "_id"}}}

// selectDocs returns the documents of col that match f, in sort order,
// after skip and up to limit (0: no limit).
func selectDocs(col *collection, f *query.Filter, s *bsonval.Sort, skip, limit int, deadline func() error) ([]bsoncore.Document, plan, error) {
	p := plan{stage: "COLLSCAN"}
	if col == nil {
		return nil, p, nil
	}
	f = viewFilter(col, f)
	cands, scanned := idLookup(col, f, &p)
	if !scanned {
		if ix, prefix, rc := bestPrefix(col, f); ix != nil {
			p.stage, p.index = "IXSCAN", ix
			if k := len(prefix); rc == nil && s != nil && len(s.Keys) == 1 && k < len(ix.fields) && ix.fields[k].Path == s.Keys[0].Path && !ix.multikey {
				// equalities, then a sort on the next field: the prefix's keys are in that order
				out, err := prefixInOrder(col, f, s, ix, prefix, &p, skip, limit, deadline)
				return out, p, err
			}
			cands = prefixScan(col, ix, prefix, rc, &p)
			scanned = true
		}
	}
	if !scanned && (s == nil || len(s.Keys) != 1 || s.Keys[0].Path != "_id") { // else sortedWalk
		var exact bool
		if cands, exact, scanned = idRangeScan(col, f, &p); exact {
			f = nil // the range is the filter: every document in it matches
		}
	}
	if !scanned {
		cands, scanned = rangeScan(col, f, &p)
	}
	if !scanned && s != nil && len(s.Keys) == 1 && s.Coll == nil {
		if out, ok, err := sortedWalk(col, f, s, &p, skip, limit, deadline); ok {
			return out, p, err
		}
	}
	if !scanned {
		var err error
		if cands, err = collScan(col, &p, deadline); err != nil {
			return nil, p, err
		}
	}
	return keepPage(cands, f, s, skip, limit), p, nil
}

// viewFilter is f as it reads col: over a view's documents, which have no
// index and _ids that need not be unique, a scan.
func viewFilter(col *collection, f *query.Filter) *query.Filter {
	if !col.derived || f.ScanOnly() {
		return f
	}
	return f.ForScan()
}

// idLookup reads the document an equality on _id names (IDHACK), or
// those of the values of an $in on _id, in _id order, each once (an
// IXSCAN of _id_); ok is false when f has neither.
func idLookup(col *collection, f *query.Filter, p *plan) (cands []bsoncore.Document, ok bool) {
	for _, e := range f.IndexEqualities() {
		if e.Path == "_id" && query.Indexable(e.Value) && e.Value.Type != bsoncore.TypeNull {
			p.stage = "IDHACK"
			if d, ok := col.get(e.Value); ok {
				cands = append(cands, d)
			}
			p.keysSeen, p.docsSeen = len(cands), len(cands)
			return cands, true
		}
	}
	for _, rc := range f.IndexRanges() {
		if rc.Path != "_id" || rc.In == nil || slices.ContainsFunc(rc.In, func(v bsoncore.Value) bool { return v.Type == bsoncore.TypeNull }) {
			continue
		}
		p.stage, p.index = "IXSCAN", idIndex
		in := slices.SortedFunc(slices.Values(rc.In), bsonval.Compare)
		for i, v := range in {
			if i > 0 && bsonval.Compare(in[i-1], v) == 0 {
				continue // 1 and 1.0 are one _id
			}
			p.keysSeen++
			if d, ok := col.get(v); ok {
				p.docsSeen++
				cands = append(cands, d)
			}
		}
		return cands, true
	}
	return nil, false
}

// fetcher is a visitor of index entries that appends each entry's
// document to *cands once, counting keys and documents read in p.
func fetcher(col *collection, p *plan, cands *[]bsoncore.Document) func(ientry) {
	seen := map[string]bool{}
	return func(en ientry) {
		p.keysSeen++
		k := string(rune(en.id.Type)) + string(en.id.Data)
		if seen[k] {
			return
		}
		seen[k] = true
		if d, ok := col.get(en.id); ok {
			p.docsSeen++
			*cands = append(*cands, d)
		}
	}
}

// prefixInOrder reads, in the order of s, the documents of ix's entries
// that hold prefix, s being a sort on the field after the prefix's.
func prefixInOrder(col *collection, f *query.Filter, s *bsonval.Sort, ix *index, prefix []bsoncore.Value, p *plan, skip, limit int, deadline func() error) ([]bsoncore.Document, error) {
	k := len(prefix)
	reverse := ix.fields[k].Desc != s.Keys[0].Desc
	p.backward = reverse
	return inIndexOrder(col, f, p, skip, limit, deadline, func(visit func(ientry) bool) {
		within := func(en ientry) bool { return ix.cmpVals(en.vals[:k], prefix) == 0 && visit(en) }
		if reverse {
			last := bsoncore.Value{Type: bsoncore.TypeMaxKey}
			if ix.fields[k].Desc {
				last = bsoncore.Value{Type: bsoncore.TypeMinKey}
			}
			ix.tree.Descend(ientry{vals: append(prefix[:k:k], last), id: bsoncore.Value{Type: bsoncore.TypeMaxKey}}, within)
		} else {
			ix.tree.Ascend(ientry{vals: prefix, id: bsoncore.Value{Type: bsoncore.TypeMinKey}}, within)
		}
	})
}

// prefixScan reads the documents of ix's entries that hold prefix and,
// when rc is given, whose next value is within rc (or one of its $in).
func prefixScan(col *collection, ix *index, prefix []bsoncore.Value, rc *query.Range, p *plan) []bsoncore.Document {
	var cands []bsoncore.Document
	take := fetcher(col, p, &cands)
	switch {
	case rc != nil && rc.In != nil:
		for _, v := range rc.In {
			scanRange(ix, append(prefix[:len(prefix):len(prefix)], v), nil, take)
		}
	default:
		scanRange(ix, prefix, rc, take)
	}
	return cands
}

// rangeScan reads the documents within the first of f's ranges (or $in)
// that an index starts with; ok is false when none does.
func rangeScan(col *collection, f *query.Filter, p *plan) (cands []bsoncore.Document, ok bool) {
	for _, rc := range f.IndexRanges() {
		for _, ix := range col.indexes {
			if ix.partial != nil || ix.sparse || ix.fields[0].Path != rc.Path || (ix.multikey && rc.In == nil) {
				continue
			}
			p.stage, p.index = "IXSCAN", ix
			take := fetcher(col, p, &cands)
			if rc.In != nil {
				for _, v := range rc.In {
					ix.tree.Ascend(ientry{vals: []bsoncore.Value{v}, id: bsoncore.Value{Type: bsoncore.TypeMinKey}}, func(en ientry) bool {
						if bsonval.Compare(en.vals[0], v) != 0 {
							return false
						}
						take(en)
						return true
					})
				}
			} else {
				scanRange(ix, nil, &rc, take)
			}
			return cands, true
		}
	}
	return nil, false
}

// idRangeScan reads the documents whose _id lies in a range of f (the
// documents are kept in _id order: their tree is the _id index); exact
// when that range is the whole filter, ok false when f has none on _id.
func idRangeScan(col *collection, f *query.Filter, p *plan) (cands []bsoncore.Document, exact, ok bool) {
	for _, rc := range f.IndexRanges() {
		if rc.Path != "_id" || rc.In != nil {
			continue
		}
		p.stage, p.index = "IXSCAN", idIndex
		w := newRangeWalk(&rc, false)
		if w.whole {
			cands = make([]bsoncore.Document, 0, col.docs.Len())
		}
		col.docs.Ascend(&record{id: w.start()}, func(r *record) bool {
			p.keysSeen++
			in, more := w.step(r.id)
			if in {
				p.docsSeen++
				cands = append(cands, r.doc)
			}
			return more
		})
		return cands, rc.Exact, true
	}
	return nil, false, false
}

// sortedWalk reads the documents in the order of s, a sort on one field
// without a collation, when the documents themselves (_id) or an index
// are kept in that order; ok is false when none is.
func sortedWalk(col *collection, f *query.Filter, s *bsonval.Sort, p *plan, skip, limit int, deadline func() error) (out []bsoncore.Document, ok bool, err error) {
	if !f.ScanOnly() && s.Keys[0].Path == "_id" {
		// the documents are kept in _id order: walk them
		p.stage, p.index, p.backward = "IXSCAN", idIndex, s.Keys[0].Desc
		out, err := inOrder(f, p, skip, limit, deadline, func(visit func(bsoncore.Document) bool) {
			walk := func(r *record) bool {
				p.keysSeen++
				return visit(r.doc)
			}
			if s.Keys[0].Desc {
				col.docs.Reverse(walk)
			} else {
				col.docs.Scan(walk)
			}
		})
		return out, true, err
	}
	for _, ix := range col.indexes {
		if ix.multikey || ix.sparse || ix.partial != nil || ix.fields[0].Path != s.Keys[0].Path {
			continue
		}
		p.stage, p.index = "IXSCAN", ix
		reverse := ix.fields[0].Desc != s.Keys[0].Desc
		p.backward = reverse
		out, err := inIndexOrder(col, f, p, skip, limit, deadline, func(visit func(ientry) bool) {
			if reverse {
				ix.tree.Reverse(visit)
			} else {
				ix.tree.Scan(visit)
			}
		})
		return out, true, err
	}
	return nil, false, nil
}

// collScan reads every document of col (COLLSCAN).
func collScan(col *collection, p *plan, deadline func() error) ([]bsoncore.Document, error) {
	var err error
	cands := make([]bsoncore.Document, 0, col.docs.Len())
	col.scan(func(r *record) bool {
		p.docsSeen++
		if p.docsSeen%4096 == 0 {
			if err = deadline(); err != nil {
				return false
			}
		}
		cands = append(cands, r.doc)
		return true
	})
	if err != nil {
		return nil, err
	}
	return cands, nil
}

// keepPage keeps the candidates f matches, sorts them by s and takes the
// page skip and limit ask for.
func keepPage(cands []bsoncore.Document, f *query.Filter, s *bsonval.Sort, skip, limit int) []bsoncore.Document {
	out := cands[:0] // filtered in place: cands is this call's own
	for _, d := range cands {
		if f.Match(d) {
			out = append(out, d)
		}
	}
	if s != nil && len(s.Keys) > 0 {
		sort.SliceStable(out, func(i, j int) bool { return s.Compare(out[i], out[j]) < 0 })
	}
	if skip > 0 {
		out = out[min(skip, len(out)):]
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// scanRange visits the entries of ix whose first values equal prefix
// and, when rc is given, whose next value lies within rc's bounds,
// within the bounds' type class as MongoDB's comparisons are.
func scanRange(ix *index, prefix []bsoncore.Value, rc *query.Range, take func(ientry)) {
	k := len(prefix)
	samePrefix := func(en ientry) bool { return k == 0 || ix.cmpVals(en.vals[:k], prefix) == 0 }
	if rc == nil {
		ix.tree.Ascend(ientry{vals: prefix, id: bsoncore.Value{Type: bsoncore.TypeMinKey}}, func(en ientry) bool {
			if !samePrefix(en) {
				return false
			}
			take(en)
			return true
		})
		return
	}
	w := newRangeWalk(rc, ix.fields[k].Desc)
	pivot := append(prefix[:k:k], w.start())
	ix.tree.Ascend(ientry{vals: pivot, id: bsoncore.Value{Type: bsoncore.TypeMinKey}}, func(en ientry) bool {
		if !samePrefix(en) {
			return false
		}
		in, more := w.step(en.vals[k])
		if in {
			take(en)
		}
		return more
	})
}

// rangeWalk is the walk of an index's values, in its order (desc: from
// the greatest), over a range: where it starts and, value by value,
// whether the value is in the range and whether the walk goes on. The
// range holds the values of its bounds' type class, as MongoDB's
// comparisons do.
type rangeWalk struct {
	rc    *query.Range
	class bsoncore.Value
	desc  bool
	whole bool // the range is every ObjectID ($type: objectId): no bound to compare
}

func newRangeWalk(rc *query.Range, desc bool) rangeWalk {
	class := rc.Lo
	if class.Type == 0 {
		class = rc.Hi
	}
	whole := rc.Lo.Type == bsoncore.TypeObjectID && rc.Hi.Type == bsoncore.TypeObjectID && rc.LoIncl && rc.HiIncl &&
		bytes.Equal(rc.Lo.Data, make([]byte, 12)) && bytes.Equal(rc.Hi.Data, bytes.Repeat([]byte{0xff}, 12))
	return rangeWalk{rc: rc, class: class, desc: desc, whole: whole}
}

// start is where the walk begins: the end of the class nearest it.
func (w rangeWalk) start() bsoncore.Value {
	switch {
	case !w.desc && w.rc.Lo.Type != 0:
		return w.rc.Lo
	case w.desc && w.rc.Hi.Type != 0:
		return w.rc.Hi
	}
	return classStart(w.class, w.desc)
}

// step reports whether v is in the range and whether the walk goes on
// past it.
func (w rangeWalk) step(v bsoncore.Value) (in, more bool) {
	rc := w.rc
	if bsonval.TypeOrder(v.Type) != bsonval.TypeOrder(w.class.Type) {
		// before the class (an exclusive bound's equal values are skipped
		// below) or after it
		c := cmp.Compare(bsonval.TypeOrder(v.Type), bsonval.TypeOrder(w.class.Type))
		if w.desc {
			c = -c
		}
		return false, c < 0
	}
	if w.whole {
		return true, true
	}
	lo, hi := 1, -1
	if rc.Lo.Type != 0 {
		lo = bsonval.Compare(v, rc.Lo)
	}
	if rc.Hi.Type != 0 {
		hi = bsonval.Compare(v, rc.Hi)
	}
	in = (lo > 0 || lo == 0 && rc.LoIncl) && (hi < 0 || hi == 0 && rc.HiIncl)
	// past the far bound?
	past := !w.desc && hi > 0 || w.desc && lo < 0
	return in, !past
}

// inIndexOrder reads documents in the order scan visits index entries,
// keeping those f matches after skip, up to limit: no sort after.
func inIndexOrder(col *collection, f *query.Filter, p *plan, skip, limit int, deadline func() error, scan func(func(ientry) bool)) ([]bsoncore.Document, error) {
	return inOrder(f, p, skip, limit, deadline, func(visit func(bsoncore.Document) bool) {
		scan(func(en ientry) bool {
			p.keysSeen++
			d, ok := col.get(en.id)
			return !ok || visit(d)
		})
	})
}

// inOrder keeps the documents scan gives (counting the keys it reads in
// p.keysSeen) that match f, past skip, up to limit, in scan's order.
func inOrder(f *query.Filter, p *plan, skip, limit int, deadline func() error, scan func(func(bsoncore.Document) bool)) ([]bsoncore.Document, error) {
	var out []bsoncore.Document
	skipped := 0
	var err error
	scan(func(d bsoncore.Document) bool {
		p.docsSeen++
		if p.docsSeen%1024 == 0 {
			if err = deadline(); err != nil {
				return false
			}
		}
		if !f.Match(d) {
			return true
		}
		if skipped < skip {
			skipped++
			return true
		}
		out = append(out, d)
		return limit <= 0 || len(out) < limit
	})
	return out, err
}

// bestPrefix is the index that serves f's equalities best: the one with
// the most leading fields held equal by f, then a range (or $in) on the
// field after them; nil when no index starts with an equality of f.
func bestPrefix(col *collection, f *query.Filter) (*index, []bsoncore.Value, *query.Range) {
	eqs := f.IndexEqualities()
	if len(eqs) == 0 {
		return nil, nil, nil
	}
	eqOf := func(path string) (bsoncore.Value, bool) {
		for _, e := range eqs {
			if e.Path == path && query.Indexable(e.Value) {
				return e.Value, true
			}
		}
		return bsoncore.Value{}, false
	}
	var best *index
	var bestPrefix []bsoncore.Value
	var bestRange *query.Range
	score := 0
	for _, ix := range col.indexes {
		if ix.partial != nil {
			continue
		}
		var prefix []bsoncore.Value
		for _, fl := range ix.fields {
			v, ok := eqOf(fl.Path)
			if !ok || ix.sparse && v.Type == bsoncore.TypeNull {
				break
			}
			prefix = append(prefix, v)
		}
		if len(prefix) == 0 {
			continue
		}
		var rc *query.Range
		if len(prefix) < len(ix.fields) {
			ranges := f.IndexRanges()
			for i, r := range ranges {
				if r.Path == ix.fields[len(prefix)].Path && !(ix.multikey && r.In == nil) && !ix.sparse {
					rc = &ranges[i]
					break
				}
			}
		}
		sc := 2 * len(prefix)
		if rc != nil {
			sc++
		}
		if sc > score {
			best, bestPrefix, bestRange, score = ix, prefix, rc, sc
		}
	}
	return best, bestPrefix, bestRange
}

// classStart is the least (or, descending, the greatest) value of v's type
// class that an index scan starts from.
func classStart(v bsoncore.Value, desc bool) bsoncore.Value {
	if bsonval.IsNumber(v) {
		if desc {
			return bsonval.Double(math.Inf(1))
		}
		return bsonval.Double(math.NaN())
	}
	if desc {
		// the greatest values of a class are unknown: start at the class after
		return bsoncore.Value{Type: bsoncore.TypeMaxKey}
	}
	switch v.Type {
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		return bsonval.String("")
	case bsoncore.TypeDateTime:
		return bsonval.DateTime(math.MinInt64)
	}
	return bsoncore.Value{Type: bsoncore.TypeMinKey}
}
