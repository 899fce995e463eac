package seed

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/oid"
)

// Dataset is a validated plan ready to generate: one Collection per
// collection of the plan.
type Dataset struct {
	DB     string
	Seed   uint64 // the seed in use (drawn at random when the plan had none)
	Seeded bool
	Base   time.Time // the time base in use
	Span   time.Duration

	cols   []*Collection
	byName map[string]*Collection
	stored []StoredSet // what the stored references draw from
}

// Build validates the plan and returns its generators. Nothing is generated
// yet. A plan with stored references needs BuildStored.
func (p *Plan) Build() (*Dataset, error) { return p.BuildStored(nil) }

// BuildStored is Build with the stored _ids that the plan's stored
// references (Ref.Stored) draw from: target j of such a reference is
// stored[To][j], so the documents are a function of the plan, the seed and
// those _ids. A stored reference with none to draw from is a
// *StoredRefError.
func (p *Plan) BuildStored(stored StoredIDs) (*Dataset, error) {
	base := TimeBase(p.At, p.Seeded)
	if err := p.validate(base); err != nil {
		return nil, err
	}
	ds := &Dataset{DB: p.DB, Seed: p.Seed, Seeded: p.Seeded, Base: base, Span: p.window(base), byName: map[string]*Collection{}}
	var live [5]byte
	if !p.Seeded {
		var b [8]byte
		_, _ = rand.Read(b[:])
		ds.Seed = binary.LittleEndian.Uint64(b[:])
		// Unseeded IDs carry the process-unique value of a live generator.
		live = oid.NewGenerator(oid.Config{}).Random()
	}
	for k := range p.Collections {
		cs := p.Collections[k]
		c := ds.newCollection(cs, p.Seeded, live)
		ds.cols = append(ds.cols, c)
		ds.byName[cs.Name] = c
	}
	for _, name := range p.StoredTargets() {
		if ids, read := stored[name]; read {
			ds.stored = append(ds.stored, storedSetOf(name, ids))
		}
	}
	for _, c := range ds.cols {
		if err := c.bindRefs(stored); err != nil {
			return nil, err
		}
	}
	for _, c := range ds.cols {
		if err := c.checkIndexValues(); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// newCollection is the generator of cs in ds; live is the process-unique
// value of an unseeded dataset's IDs.
func (ds *Dataset) newCollection(cs CollectionSpec, seeded bool, live [5]byte) *Collection {
	c := &Collection{
		ds:      ds,
		spec:    cs,
		key:     mix64(ds.Seed ^ mix64(hashString(cs.Name))),
		baseSec: ds.Base.Unix(),
		spanSec: int64(ds.Span / time.Second),
	}
	if cs.Kind != "" {
		c.kind, _ = kindByName(cs.Kind)
	}
	r := derive(c.key, tagOID, 0)
	if !seeded {
		r = uint64(live[0])<<32 | uint64(live[1])<<24 | uint64(live[2])<<16 | uint64(live[3])<<8 | uint64(live[4])
		r += derive(c.key, tagOID, 0) // collections still differ from each other
	}
	c.oidRandom = r & (1<<40 - 1)
	c.counterStart = uint32(derive(c.key, tagCount, 0)) & 0xFFFFFF
	c.bindIDs()
	c.strata = newStrata(cs.Template, cs.Count, c.key)
	c.pool.New = func() any { return c.NewWorker() }
	return c
}

// bindRefs binds the references of c to what they draw from: a collection
// of the dataset, or stored _ids.
func (c *Collection) bindRefs(stored StoredIDs) error {
	ds := c.ds
	for _, r := range c.spec.Refs {
		br := boundRef{Ref: r}
		if r.Stored {
			ids, read := stored[r.To]
			if len(ids) == 0 && c.spec.Count > 0 {
				return &StoredRefError{DB: ds.DB, Collection: c.spec.Name, Field: r.Field, To: r.To, Read: read}
			}
			br.stored = ids
		} else {
			br.to = ds.byName[r.To]
		}
		if len(r.PerTarget) > 0 {
			draws := c.spec.Count * int64(max(r.Max, 1))
			br.mass = newMassPick(r.PerTarget, br.count(), draws, derive(c.key^hashString(r.Field), tagSkew, 1))
		} else if _, order := c.kind.(orderKind); order && r.Field == "userId" && r.Max == 0 {
			br.skew = newSkewedPick(br.count(), derive(c.key, tagSkew, 0))
		}
		if len(r.Lengths) > 0 && c.spec.Count > 0 {
			br.lens = newFieldStrata(c.spec.Count, c.key, r.Field)
			total := 0.0
			for _, w := range r.Weights {
				total += w
				br.cum = append(br.cum, total)
			}
		}
		c.refs = append(c.refs, br)
	}
	c.rawKind = c.kind != nil && c.spec.ID.Kind != IDField
	for _, r := range c.refs {
		if c.kind == nil || findRef(c.kind.refs(), r.Field) < 0 {
			c.rawKind = false
		}
	}
	return nil
}

// Collections lists every collection of the plan in order, RefOnly ones
// included.
func (ds *Dataset) Collections() []*Collection { return append([]*Collection(nil), ds.cols...) }

// Written lists the collections that are written (not RefOnly), in order.
func (ds *Dataset) Written() []*Collection {
	var out []*Collection
	for _, c := range ds.cols {
		if !c.spec.RefOnly {
			out = append(out, c)
		}
	}
	return out
}

// Collection returns the named collection, or nil.
func (ds *Dataset) Collection(name string) *Collection { return ds.byName[name] }

// Collection generates the documents of one collection, by number. It is
// safe for concurrent use.
type Collection struct {
	ds           *Dataset
	spec         CollectionSpec
	key          uint64
	baseSec      int64
	spanSec      int64
	oidRandom    uint64 // 40 bits
	counterStart uint32
	id64         bool
	// idMix is the collection's IDMix as cumulative thresholds of idPhase +
	// i*golden (see idKind); empty without one.
	idMix   []idCut
	idPhase uint64
	kind    kind
	refs    []boundRef
	strata  []*strata // of the template's top-level keys (dist.go)
	idq     *idCurve  // the int strategy's _ids by IDQuantiles, or nil
	pool    sync.Pool
	// rawKind: documents are a built-in kind's fields after an _id that
	// does not come from them, with no reference the kind does not place,
	// so the kind can write them as BSON directly (Worker.appendRaw).
	rawKind bool
}

type boundRef struct {
	Ref
	to *Collection // nil for a stored reference
	// stored is what a stored reference draws from, in _id order.
	stored []bson.RawValue
	// skew, when set, draws targets by a Zipf distribution over a
	// permutation of the target's documents instead of uniformly.
	skew *skewedPick
	// mass, when set, draws them by the Ref's PerTarget.
	mass *massPick
	// lens, when set, draws the Ref's Lengths (cum their cumulative
	// Weights) stratified over the referring documents.
	lens *strata
	cum  []float64
}

// Name is the collection name.
func (c *Collection) Name() string { return c.spec.Name }

// Spec is the collection's settings (defaults filled in).
func (c *Collection) Spec() CollectionSpec { return c.spec }

// Len is the number of documents.
func (c *Collection) Len() int64 { return c.spec.Count }

// RefOnly reports whether the collection exists only to be referenced.
func (c *Collection) RefOnly() bool { return c.spec.RefOnly }

// Time is the timestamp of document i, in whole seconds: documents are spread
// evenly over [base-span, base], the first at base-span, the last at base,
// or by the collection's Times.
func (c *Collection) Time(i int64) time.Time {
	return time.Unix(c.unix(i), 0).UTC()
}

func (c *Collection) unix(i int64) int64 {
	n := c.spec.Count
	if q := c.spec.Times; len(q) > 0 && n > 1 && c.spanSec > 0 {
		// The point i/(n-1) of the quantile function, between its points.
		i = min(max(i, 0), n-1)
		pos := float64(i) / float64(n-1) * float64(len(q)-1)
		k := min(int(pos), len(q)-2)
		f := q[k] + (q[k+1]-q[k])*(pos-float64(k))
		return c.baseSec - c.spanSec + min(int64(math.Floor(f*float64(c.spanSec))), c.spanSec)
	}
	if n <= 1 || c.spanSec == 0 || i >= n-1 {
		return c.baseSec
	}
	if i < 0 {
		i = 0
	}
	// span*(n-1-i)/(n-1) without overflow: the product needs 128 bits.
	hi, lo := bits.Mul64(uint64(c.spanSec), uint64(n-1-i))
	q, _ := bits.Div64(hi, lo, uint64(n-1))
	return c.baseSec - int64(q)
}

// createdAt is the createdAt value of document i: its timestamp as a BSON
// datetime.
func (c *Collection) createdAt(i int64) bson.DateTime {
	return bson.DateTime(c.unix(i) * 1000)
}

// CreatedAtIsTime reports whether every document's createdAt is its
// timestamp (Time): a built-in kind's, and a template's that has no
// createdAt of its own, which seed adds; not a template's own createdAt
// (one it leaves out included) nor a reference of that name.
func (c *Collection) CreatedAtIsTime() bool {
	if c.ref("createdAt") != nil {
		return false
	}
	return c.kind != nil || !c.spec.Template.owns("createdAt")
}

// Doc builds document i. It takes a Worker from a pool; loops that generate
// many documents in one goroutine can hold their own Worker instead.
func (c *Collection) Doc(i int64) bson.D {
	w := c.pool.Get().(*Worker)
	d := w.Doc(i)
	c.pool.Put(w)
	return d
}

// Worker builds documents of one collection in one goroutine: it owns a
// gofakeit Faker that is reseeded for every document, so that document i
// does not depend on which documents the worker built before.
type Worker struct {
	c      *Collection
	src    *mrand.PCG
	f      *gofakeit.Faker
	sb     strings.Builder
	noRefs bool
	doc    int64 // the number of the document being built

	// Scratch space, reused from document to document (see appendDoc).
	reuse    bool
	scratchD bson.D
	scratchA bson.A
	picked   []int64
	buf      []byte
	strs     []string
	out      docOut
}

// NewWorker returns a Worker for c. A Worker is not safe for concurrent use.
func (c *Collection) NewWorker() *Worker {
	src := mrand.NewPCG(0, 0)
	return &Worker{c: c, src: src, f: gofakeit.NewFaker(src, false)}
}

// Doc builds document i: _id first, then the kind's or template's fields,
// then references the kind does not fill itself, then createdAt for
// templates that do not have one. The document is the caller's to keep.
func (w *Worker) Doc(i int64) bson.D { return w.appendDoc(nil, i) }

// appendDoc builds document i into d[:0], growing it when needed. With
// w.reuse set, nested documents and arrays come from the worker's scratch
// space too: the result is valid only until the next call, which is all the
// stream needs (it marshals each document at once).
func (w *Worker) appendDoc(d bson.D, i int64) bson.D {
	c := w.c
	w.doc = i
	w.src.Seed(derive(c.key, tagDoc, i), derive(c.key, tagDoc^tagSecond, i))
	w.scratchD, w.scratchA = w.scratchD[:0], w.scratchA[:0]
	if c.kind != nil {
		if d == nil {
			d = make(bson.D, 0, 1+len(c.kind.fields())+len(c.refs))
		}
		o := &w.out
		o.w, o.raw, o.d, o.stack = w, false, append(d[:0], bson.E{}), o.stack[:0]
		c.kind.build(w, i, o)
		d, o.d = o.d, nil
	} else {
		t := c.spec.Template
		if d == nil {
			d = make(bson.D, 0, 2+len(t.root.keys)+len(c.refs))
		}
		d = append(d[:0], bson.E{})
		for k, key := range t.root.keys {
			var v any
			if k < len(c.strata) && c.strata[k] != nil {
				v = c.strata[k].build(t.root.children[k].shape, w.f, i, &w.sb)
			} else {
				v = t.root.children[k].build(w.f, i, &w.sb)
			}
			if v != (missingValue{}) {
				d = append(d, bson.E{Key: key, Value: v})
			}
		}
	}
	for k := range c.refs {
		r := &c.refs[k]
		if c.kind != nil && findRef(c.kind.refs(), r.Field) >= 0 {
			continue // the kind placed it
		}
		v := w.refValue(r.Field)
		if at := indexOf(d, r.Field); at > 0 {
			d[at].Value = v
		} else {
			d = append(d, bson.E{Key: r.Field, Value: v})
		}
	}
	if c.kind == nil && indexOf(d, "createdAt") < 0 && !c.spec.Template.owns("createdAt") {
		d = append(d, bson.E{Key: "createdAt", Value: c.createdAt(i)})
	}
	if c.spec.ID.Kind == IDField {
		if at := indexOf(d, c.spec.ID.Field); at > 0 {
			d[0] = bson.E{Key: "_id", Value: d[at].Value}
		}
	} else {
		d[0] = bson.E{Key: "_id", Value: c.ID(i)}
	}
	return d
}

// appendRaw appends document i as BSON to dst, for a kind's documents
// whose every field the kind writes (see Collection.rawKind); it reports
// false, with dst to be discarded, for any other document.
func (w *Worker) appendRaw(dst []byte, i int64) ([]byte, bool) {
	c := w.c
	if !c.rawKind {
		return dst, false
	}
	w.src.Seed(derive(c.key, tagDoc, i), derive(c.key, tagDoc^tagSecond, i))
	w.scratchD, w.scratchA = w.scratchD[:0], w.scratchA[:0]
	o := &w.out
	var at int32
	o.w, o.raw, o.ok, o.stack = w, true, true, o.stack[:0]
	at, o.b = bsoncore.AppendDocumentStart(dst)
	if o.b, o.ok = c.appendID(o.b, "_id", i); !o.ok {
		return o.b, false
	}
	c.kind.build(w, i, o)
	dst, err := bsoncore.AppendDocumentEnd(o.b, at)
	o.b = nil
	return dst, o.ok && err == nil
}

// newD is an empty nested document with room for n fields: from the
// worker's scratch space when documents are reused, else its own.
func (w *Worker) newD(n int) bson.D {
	if !w.reuse || n == 0 { // a nil slice would marshal as null
		return make(bson.D, 0, n)
	}
	if len(w.scratchD)+n > cap(w.scratchD) {
		w.scratchD = make(bson.D, 0, max(2*cap(w.scratchD), n, 16))
	}
	at := len(w.scratchD)
	w.scratchD = w.scratchD[:at+n]
	return w.scratchD[at : at : at+n]
}

// newA is an array of n elements, from the scratch space like newD.
func (w *Worker) newA(n int) bson.A {
	if !w.reuse || n == 0 { // a nil slice would marshal as null
		return make(bson.A, n)
	}
	if len(w.scratchA)+n > cap(w.scratchA) {
		w.scratchA = make(bson.A, 0, max(2*cap(w.scratchA), n, 16))
	}
	at := len(w.scratchA)
	w.scratchA = w.scratchA[:at+n]
	a := w.scratchA[at : at+n : at+n]
	clear(a)
	return a
}

func indexOf(d bson.D, key string) int {
	for k := 1; k < len(d); k++ {
		if d[k].Key == key {
			return k
		}
	}
	return -1
}

// ref is the bound reference of field, or nil.
func (c *Collection) ref(field string) *boundRef {
	for k := range c.refs {
		if c.refs[k].Field == field {
			return &c.refs[k]
		}
	}
	return nil
}

// refValue picks the target(s) of reference field from the document's random
// stream: one _id, or an array of Min..Max of them.
func (w *Worker) refValue(field string) any {
	r := w.c.ref(field)
	if r == nil || r.count() <= 0 {
		return nil // Validate and Build make this unreachable
	}
	count := uint64(r.count())
	// A target: by the Ref's PerTarget, its k-th point of draw number k
	// deciding also whether it resolves (the first Unresolved of [0, 1)
	// does not), so that both shares hold to within a draw; else drawn.
	const dangling = -1
	target := func(k uint64) int64 {
		if r.mass == nil {
			if r.Unresolved > 0 && w.f.Float64() < r.Unresolved {
				return dangling
			}
			if r.skew != nil {
				return r.skew.pick(w.f.Float64)
			}
			return int64(w.f.Uint64() % count)
		}
		u := r.mass.draw(k)
		if u < r.Unresolved {
			return dangling
		}
		return r.mass.pick((u - r.Unresolved) / (1 - r.Unresolved))
	}
	resolve := func(j int64) any {
		if w.noRefs {
			return nil
		}
		if j == dangling { // never for a stored reference (checkStoredRef)
			return r.to.danglingID(int64(w.f.Uint64() % count))
		}
		return r.id(j)
	}
	if r.Max == 0 {
		return resolve(target(uint64(w.doc)))
	}
	n := r.Min + w.f.IntN(r.Max-r.Min+1)
	if r.lens != nil {
		n = r.Lengths[firstAbove(r.cum, r.lens.draw(w.doc, w.f)*r.cum[len(r.cum)-1])]
	}
	draw := func(k int) int64 { return target(uint64(w.doc)*uint64(r.Max) + uint64(k)) }
	// Distinct targets when there are enough of them; a few redraws at most.
	picked := w.picked[:0]
	for len(picked) < n {
		j := draw(len(picked))
		for try := 0; try < 8 && j != dangling && uint64(n) <= count && containsIndex(picked, j); try++ {
			j = int64(w.f.Uint64() % count)
		}
		picked = append(picked, j)
	}
	w.picked = picked
	a := w.newA(n)
	for k, j := range picked {
		a[k] = resolve(j)
	}
	return a
}

func containsIndex(list []int64, j int64) bool {
	for _, v := range list {
		if v == j {
			return true
		}
	}
	return false
}

// SeedNote says what repeats the dataset: "seed 42, time base
// 2024-01-01T00:00:00Z", or "unseeded, time base ..." without a seed.
func (ds *Dataset) SeedNote() string {
	if !ds.Seeded {
		return fmt.Sprintf("unseeded, time base %s", ds.Base.Format(time.RFC3339))
	}
	return fmt.Sprintf("seed %d, time base %s", ds.Seed, ds.Base.Format(time.RFC3339))
}
