package seed

// A plan's Dataset and its Collections: building them from a validated plan
// (the _ids a target already holds that stored references draw from, each
// collection's keys and strata, the index checks that only a built document
// shows), and a Collection's accessors. A collection's references are bound
// to their draws in dist.go (bindRefs); its documents are built by a Worker
// (worker.go).

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/oid"
	"github.com/oidkit/oidkit/parts"
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
	for _, name := range p.StoredTargets() {
		if ids, read := stored[name]; read {
			ds.stored = append(ds.stored, storedSetOf(name, ids))
		}
	}
	for k := range p.Collections {
		cs := p.Collections[k]
		c := ds.newCollection(cs, p.Seeded, live)
		ds.cols = append(ds.cols, c)
		ds.byName[cs.Name] = c
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
		baseSec: ds.Base.Unix(),
		spanSec: int64(ds.Span / time.Second),
	}
	if cs.Kind != "" {
		c.kind, _ = kindByName(cs.Kind)
	}
	// The collection's key, and the values derived from it.
	c.key = mix64(ds.Seed ^ mix64(hashString(cs.Name)))
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

// References to the documents a target already holds (Ref.Stored).

// StoredIDs are the _ids stored in collections of the target database, by
// collection name, each list sorted by _id: what the references marked
// Stored draw from. A collection that is missing or empty has an empty
// list; one not read has no entry. Generation does not read a database:
// the caller reads them (package run does) and hands them to BuildStored.
type StoredIDs map[string][]bson.RawValue

// ErrNoStoredIDs is matched (errors.Is) by a *StoredRefError.
var ErrNoStoredIDs = errors.New("no stored _ids to refer to")

// StoredRefError is a stored reference that has nothing to draw from: its
// collection holds no documents (Read), or its _ids were not read at all.
type StoredRefError struct {
	DB         string
	Collection string // the referring collection
	Field      string // its reference field
	To         string // the collection referred to
	Read       bool   // the _ids were read, and there were none
}

func (e *StoredRefError) Error() string {
	if !e.Read {
		return fmt.Sprintf("collection %q: ref %q: refers to the documents stored in %s.%s, which were not read; expected a target database to read them from", e.Collection, e.Field, e.DB, e.To)
	}
	return fmt.Sprintf("collection %q: ref %q: %s.%s holds no documents; expected stored documents to refer to (write %s first)", e.Collection, e.Field, e.DB, e.To, e.To)
}

// Is makes errors.Is(err, ErrNoStoredIDs) true.
func (e *StoredRefError) Is(target error) bool { return target == ErrNoStoredIDs }

// StoredTargets lists the collections the plan's stored references draw
// from, sorted, each once.
func (p *Plan) StoredTargets() []string {
	var out []string
	for _, cs := range p.Collections {
		for _, r := range cs.Refs {
			if r.Stored && !slices.Contains(out, r.To) {
				out = append(out, r.To)
			}
		}
	}
	slices.Sort(out)
	return out
}

// StoredSet is what a run's stored references drew from: a collection,
// how many _ids it held and a digest of them in order, recorded in the run
// manifest so that a resume or a verify can tell whether they are the same.
type StoredSet struct {
	Collection string `bson:"collection" json:"collection"`
	Count      int64  `bson:"count" json:"count"`
	Digest     string `bson:"digest" json:"digest"`
}

// storedSetOf is the StoredSet of the _ids ids of collection coll.
func storedSetOf(coll string, ids []bson.RawValue) StoredSet {
	h := sha256.New()
	var n [5]byte
	for _, v := range ids {
		n[0] = byte(v.Type)
		binary.LittleEndian.PutUint32(n[1:], uint32(len(v.Value)))
		h.Write(n[:])
		h.Write(v.Value)
	}
	return StoredSet{Collection: coll, Count: int64(len(ids)), Digest: hex.EncodeToString(h.Sum(nil))}
}

// StoredSets is what the dataset's stored references draw from, by
// collection name in order.
func (ds *Dataset) StoredSets() []StoredSet { return append([]StoredSet(nil), ds.stored...) }

// StoredSetsOf is the StoredSet of each collection of stored, by name in
// order.
func StoredSetsOf(stored StoredIDs) []StoredSet {
	var names []string
	for name := range stored {
		names = append(names, name)
	}
	slices.Sort(names)
	var out []StoredSet
	for _, name := range names {
		out = append(out, storedSetOf(name, stored[name]))
	}
	return out
}

// The checks of a plan's indexes that only a built document shows.

// checkIndexValues checks what only a document shows, on document 0: a
// dotted key path of a kind names a field of its nested documents, and the
// field of a TTL index holds a date (the server ignores any other value, so
// the index would never expire anything).
func (c *Collection) checkIndexValues() error {
	cs := c.spec
	if len(cs.Indexes) == 0 || cs.Count == 0 {
		return nil
	}
	doc := c.Doc(0)
	for j, ix := range cs.Indexes {
		bad := func(value string, format string, args ...any) error {
			e := planErrorf(cs.Name, SettingIndexes, value, "index %q: "+format, append([]any{ix.NameOrDefault()}, args...)...)
			e.where = fmt.Sprintf("collection %q: indexes[%d]", cs.Name, j)
			return e
		}
		for _, f := range ix.Fields() {
			if vals := lookUpPath(doc, f); len(vals) == 0 {
				return bad(f, "the documents have no field %q; expected a dotted path to a field of a nested document", f)
			}
		}
		if ix.ExpireAfterSeconds != nil {
			f := ix.Fields()[0]
			for _, v := range lookUpPath(doc, f) {
				if _, ok := v.(bson.DateTime); !ok {
					return bad(f, "a TTL index expires documents by a date, and %q holds %T; expected a date field such as createdAt", f, v)
				}
			}
		}
	}
	return nil
}

// lookUpPath is the values at a dotted path of doc, through arrays.
func lookUpPath(doc bson.D, path string) []any {
	vals := []any{doc}
	for _, part := range strings.Split(path, ".") {
		var next []any
		for len(vals) > 0 {
			v := vals[0]
			vals = vals[1:]
			switch v := v.(type) {
			case bson.D:
				for _, e := range v {
					if e.Key == part {
						next = append(next, e.Value)
					}
				}
			case bson.A:
				vals = append(vals, v...)
			}
		}
		if len(next) == 0 {
			return nil
		}
		vals = next
	}
	return vals
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

// SeedNote says what repeats the dataset: "seed 42, time base
// 2024-01-01T00:00:00Z", or "unseeded, time base ..." without a seed.
func (ds *Dataset) SeedNote() string {
	if !ds.Seeded {
		return fmt.Sprintf("unseeded, time base %s", ds.Base.Format(time.RFC3339))
	}
	return fmt.Sprintf("seed %d, time base %s", ds.Seed, ds.Base.Format(time.RFC3339))
}

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

// ref is the bound reference of field, or nil.
func (c *Collection) ref(field string) *boundRef {
	for k := range c.refs {
		if c.refs[k].Field == field {
			return &c.refs[k]
		}
	}
	return nil
}

// Name is the collection name.
func (c *Collection) Name() string { return c.spec.Name }

// Spec is the collection's settings (defaults filled in).
func (c *Collection) Spec() CollectionSpec { return c.spec }

// Len is the number of documents.
func (c *Collection) Len() int64 { return c.spec.Count }

// Indexes are the indexes the plan declares for the collection
// (Spec().Indexes).
func (c *Collection) Indexes() []indexes.Index { return c.spec.Indexes }

// Raw is document i marshalled (Doc).
func (c *Collection) Raw(i int64) (bson.Raw, error) { return bson.Marshal(c.Doc(i)) }

// Batches is Stream as a writer takes it (mongowrite.Source).
func (c *Collection) Batches(ctx context.Context, opts StreamOptions) parts.Batches {
	return c.Stream(ctx, opts)
}

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
