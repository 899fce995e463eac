package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/seed"
)

// ExpectCollection expects what collection c of a seeded dataset generates.
// An unseeded dataset cannot be rebuilt and is an error.
func ExpectCollection(ctx context.Context, ds *seed.Dataset, c *seed.Collection) (*Expected, error) {
	return ExpectPart(ctx, ds, c, parts.Part{})
}

// ExpectPart expects the documents part p of collection c of a seeded
// dataset generates: the collection may hold the other parts' documents
// too, which are left out of every check (counted in a note); references
// to any document of another part hold (that part's check finds it or not). Document numbers in the report
// are the collection's. The zero Part is the whole collection.
func ExpectPart(ctx context.Context, ds *seed.Dataset, c *seed.Collection, p parts.Part) (*Expected, error) {
	if !ds.Seeded {
		return nil, errors.New("the plan has no seed: its documents cannot be rebuilt; expected the seed the data was written with")
	}
	r := p.Range(c.Len())
	s := &seedSource{c: c, part: r, n: r.Len()}
	spec := c.Spec()
	e := &Expected{DB: ds.DB, Collection: c.Name(), src: s}
	if !p.Whole() {
		e.outside = s.outside
		e.outsideDesc = fmt.Sprintf("part %s: documents %v of %d", p, r, c.Len())
	}
	base := ds.Base.Unix()
	e.winLo, e.winHi = base-int64(ds.Span/time.Second), base
	e.winDesc = "the plan's window"
	switch spec.ID.Kind {
	case seed.IDObjectID:
		e.typeDesc = "ObjectID (_id strategy objectid)"
		e.typeOK = func(v bson.RawValue) bool { return v.Type == bson.TypeObjectID }
		e.oids, e.createdAt = true, true
		e.ordered = true
		if k, broken := c.IDOrderBreak(); broken {
			e.ordered = false
			e.orderReason = fmt.Sprintf("the ObjectID random value and counter wrap past 2^64 at document %d, within one second: sorted order is not generation order", k)
		}
	case seed.IDInt:
		e.typeDesc = "int32 or int64 (_id strategy int)"
		e.typeOK = func(v bson.RawValue) bool { return v.Type == bson.TypeInt32 || v.Type == bson.TypeInt64 }
		e.ordered = true
	case seed.IDUUID:
		e.typeDesc = "binary subtype 4, 16 bytes (_id strategy uuid)"
		e.typeOK = func(v bson.RawValue) bool {
			st, data, ok := v.BinaryOK()
			return ok && st == bson.TypeBinaryUUID && len(data) == 16
		}
		e.orderReason = "uuid _ids are random: sorted order is not generation order"
		s.table = true
	case seed.IDField:
		s.table = true
		e.typeDesc = "the type of field " + spec.ID.Field + " (_id strategy " + spec.ID.String() + ")"
		if s.n > 0 {
			t := rawValueOf(c.ID(0)).Type
			e.typeDesc = typeName(t) + ", the type of field " + spec.ID.Field + " (_id strategy " + spec.ID.String() + ")"
			e.typeOK = func(v bson.RawValue) bool { return v.Type == t }
		} else {
			e.typeOK = func(bson.RawValue) bool { return true }
		}
	}
	expectIDMix(e, s, spec)
	if e.createdAt && !c.CreatedAtIsTime() {
		e.createdAt = false
		e.createdAtReason = "the template writes its own createdAt (or leaves it out), not the _id timestamp"
	}
	if s.table {
		bad, err := s.index(ctx)
		if err != nil {
			return nil, err
		}
		if spec.ID.Kind == seed.IDField {
			e.ordered = bad < 0
			if bad >= 0 {
				e.orderReason = fmt.Sprintf("natural key %s does not increase with the document number (document %d does not sort after document %d): sorted order is not generation order",
					spec.ID.Field, bad, bad-1)
			}
		}
	}
	if spec.ID.Kind != seed.IDObjectID && !e.oids {
		e.oidsReason = "the _ids are not ObjectIDs (_id strategy " + spec.ID.String() + ")"
	}
	for _, r := range spec.Refs {
		e.refs = append(e.refs, refSpec{Field: r.Field, To: r.To})
	}
	e.Indexes = spec.Indexes
	return e, nil
}

// expectIDMix widens what the _ids of a collection with an IDMix may be:
// the types of its strategies, in no order (they sort by type first), their
// ObjectIDs' timestamps checked; a uuid among them needs the table.
func expectIDMix(e *Expected, s *seedSource, spec seed.CollectionSpec) {
	if len(spec.IDMix) == 0 {
		return
	}
	kinds := []seed.IDStrategy{spec.ID}
	for _, m := range spec.IDMix {
		kinds = append(kinds, m.ID)
	}
	var names, types []string
	uses := map[seed.IDKind]bool{}
	for _, k := range kinds {
		names = append(names, k.String())
		uses[k.Kind] = true
		switch k.Kind {
		case seed.IDObjectID:
			e.oids, e.createdAt = true, true
			types = append(types, "ObjectID")
		case seed.IDInt:
			types = append(types, "int32 or int64")
		case seed.IDUUID:
			s.table = true
			types = append(types, "binary subtype 4")
		}
	}
	e.typeDesc = strings.Join(types, ", ") + " (_id strategies " + strings.Join(names, ", ") + ")"
	e.typeOK = func(v bson.RawValue) bool {
		st, data, isBin := v.BinaryOK()
		return (uses[seed.IDObjectID] && v.Type == bson.TypeObjectID) ||
			(uses[seed.IDInt] && (v.Type == bson.TypeInt32 || v.Type == bson.TypeInt64)) ||
			(uses[seed.IDUUID] && isBin && st == bson.TypeBinaryUUID && len(data) == 16)
	}
	e.ordered = false
	e.orderReason = "the _ids mix strategies (" + strings.Join(names, ", ") + "), which sort by type first: sorted order is not generation order"
}

// seedSource is the documents of a seeded collection. objectid and int _ids
// are inverted by seed (Collection.Index); uuid and field:NAME _ids by a
// sorted table built from one pass over the collection's stream.
type seedSource struct {
	c *seed.Collection
	// part is the expected documents, by the collection's numbers; the
	// source's numbers start at part.From.
	part parts.Range
	n    int64

	table   bool
	entries []keyEntry

	gens sync.Pool // of *seed.Generator, one per comparing goroutine at a time
}

func (s *seedSource) count() int64 { return s.n }

// index builds the _id table of a uuid or field:NAME collection. It returns
// the first document whose _id does not sort after the previous one's, or -1
// when the _ids increase with the document number.
func (s *seedSource) index(ctx context.Context) (bad int64, err error) {
	entries := make([]keyEntry, 0, s.n)
	bad = -1
	var prev bson.RawValue
	// The table covers the whole collection, so that the other parts' _ids
	// are known as theirs (outside).
	err = s.each(ctx, seed.StreamOptions{}, func(i int64, doc bson.Raw) {
		v := doc.Lookup("_id")
		entries = append(entries, keyEntry{key: keyOf(v), i: i})
		if i > 0 && bad < 0 {
			if c, ok := compareIDs(prev, v); !ok || c >= 0 {
				bad = i
			}
		}
		prev = v
	})
	slices.SortFunc(entries, func(a, b keyEntry) int { return bytes.Compare(a.key[:], b.key[:]) })
	s.entries = entries
	return bad, err
}

// number is the collection's number of the document with this _id.
func (s *seedSource) number(id bson.RawValue) (int64, bool) {
	if !s.table {
		return s.c.Index(id)
	}
	return findEntry(s.entries, keyOf(id))
}

func (s *seedSource) lookup(id bson.RawValue) (int64, bool) {
	i, ok := s.number(id)
	if !ok || i < s.part.From || i >= s.part.To {
		return 0, false
	}
	return i - s.part.From, true
}

// outside finds the _ids of the collection outside the part: their
// collection's number.
func (s *seedSource) outside(id bson.RawValue) (int64, bool) {
	i, ok := s.number(id)
	return i, ok && (i < s.part.From || i >= s.part.To)
}

func (s *seedSource) label(i int64) string { return fmt.Sprintf("document %d", i+s.part.From) }

func (s *seedSource) id(i int64) (bson.RawValue, bool) {
	return rawValueOf(s.c.ID(i + s.part.From)), true
}

// match regenerates the expected documents of items from the collection's
// stream over their numbers (a read sorted by _id asks for runs of
// consecutive documents) and compares the bytes.
func (s *seedSource) match(ctx context.Context, items []item) error {
	var ranges []parts.Range
	for _, it := range items {
		if it.i < 0 {
			continue
		}
		i := it.i + s.part.From
		if n := len(ranges); n > 0 && ranges[n-1].To == i {
			ranges[n-1].To++
		} else {
			ranges = append(ranges, parts.Range{From: i, To: i + 1})
		}
	}
	if len(ranges) == 0 {
		return nil
	}
	// Generated here: the callers run in parallel already.
	g, _ := s.gens.Get().(*seed.Generator)
	if g == nil {
		g = s.c.NewGenerator()
	}
	defer s.gens.Put(g)
	k := 0
	for _, r := range ranges {
		if err := ctx.Err(); err != nil {
			return err
		}
		docs, err := g.Encode(r)
		if err != nil {
			return err
		}
		for _, doc := range docs {
			for items[k].i < 0 {
				k++
			}
			it := &items[k]
			k++
			if it.equal = bytes.Equal(it.stored, doc); !it.equal {
				it.expected = slices.Clone(doc) // the generator's buffer is reused
			}
		}
	}
	return nil
}

// scan visits the part's documents in order, from its stream.
func (s *seedSource) scan(ctx context.Context, fn func(i int64, doc bson.Raw)) error {
	return s.each(ctx, seed.StreamOptions{Ranges: []parts.Range{s.part}}, func(i int64, doc bson.Raw) { fn(i-s.part.From, doc) })
}

// each visits the documents the stream opts selects, in order.
func (s *seedSource) each(ctx context.Context, opts seed.StreamOptions, fn func(i int64, doc bson.Raw)) error {
	st := s.c.Stream(ctx, opts)
	defer st.Close()
	for {
		b, err := st.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		for k, doc := range b.Docs {
			fn(b.From+int64(k), doc)
		}
	}
}
