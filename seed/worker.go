package seed

// Document i of a collection, built by a Worker: its fields, the values of
// its references, and the scratch space the stream reuses.

import (
	mrand "math/rand/v2"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

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
