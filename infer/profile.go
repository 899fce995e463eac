// Package infer profiles a sample of a collection's documents and turns the
// profile into a seed plan that generates documents shaped like them, or
// compares two profiles.
//
// A Profile holds aggregates only: per field path (nested documents as
// a.b, array elements as a[]) how often it is present, its mix of BSON
// types, samples of its numbers, dates and string lengths, array lengths,
// the counts of its values while there are few distinct ones, and how many
// documents hold each value, by its hash (for Distance.Repeats). A plan
// made from it keeps a value of the source only when at least MinCount
// sampled documents hold it, and the extremes of a distribution are the
// MinCount-th smallest and largest values, so no rare value leaves the
// source.
package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// DefaultMinCount is the least number of sampled documents a value must
// occur in to appear in a plan.
const DefaultMinCount = 5

// Limits of what a profile keeps per field path and type, so that memory
// does not grow with the sample.
const (
	reservoirSize = 8192    // values kept for a distribution
	maxDistinct   = 64      // distinct values counted for a category
	maxHashes     = 1 << 16 // value hashes kept per field to find duplicates
)

// Types, as a profile names them.
const (
	TypeInt      = "int"
	TypeLong     = "long"
	TypeDouble   = "double"
	TypeString   = "string"
	TypeDate     = "date"
	TypeBool     = "bool"
	TypeNull     = "null"
	TypeObjectID = "objectId"
	TypeObject   = "object"
	TypeArray    = "array"
	TypeBinary   = "binary"
	TypeUUID     = "uuid"
	TypeDecimal  = "decimal"
	TypeOther    = "other"
)

// ErrMalformed is returned for a document that is not valid BSON.
var ErrMalformed = errors.New("malformed BSON document")

// Options tune a profile.
type Options struct {
	// MinCount is the least number of sampled documents a value must
	// occur in to appear in a plan (default DefaultMinCount).
	MinCount int
}

func (o Options) minCount() int {
	if o.MinCount <= 0 {
		return DefaultMinCount
	}
	return o.MinCount
}

// Profile is what a sample of one collection looks like.
type Profile struct {
	Collection string
	Sampled    int64 // documents profiled
	Total      int64 // documents in the collection when it was read
	MinCount   int
	Fields     []*Field // in the order of first appearance
	byPath     map[string]*Field
	// IDTimes are the ObjectID _id times, in seconds.
	idTimes *reservoir
	// createdAt: top-level date fields and how many documents hold the
	// _id's own time in them.
	sameTime map[string]int64
	// sameID: top-level fields and how many documents hold the _id's own
	// value in them (a natural key).
	sameID  map[string]int64
	idTypes map[string]int64
	// Refs are the references found to other collections (Collect).
	Refs []Ref
	// Indexes of the source, as index documents (Collect).
	Indexes   []bson.D
	rng       *rand.Rand
	refCounts map[string]*refCounts
	// probed is how many documents refCounts counted; probedAll says they
	// were the whole collection (ReadWhole).
	probed    int64
	probedAll bool
}

// Ref is a field whose values are _ids of another collection.
type Ref struct {
	Field    string
	To       string
	Resolved float64 // share of its sampled values found there
	Array    bool
	// perTarget is the number of references each target document
	// receives, as Collect's perTarget describes (nil: not counted).
	perTarget []float64
}

// Field is the profile of one field path.
type Field struct {
	Path     string
	Present  int64 // occurrences
	Parent   int64 // occurrences of the enclosing document or array element slot
	Types    map[string]int64
	Nums     map[string]*reservoir // per numeric type, and dates (ms) and objectIds (s)
	Lengths  *reservoir            // string lengths in characters
	Kinds    map[string]int64      // semantic string kinds
	Cats     map[string]int64      // value counts, while few ("s:active", "i:3")
	ManyCat  map[string]bool       // types with too many distinct values to count
	ArrLens  map[int]int64
	Elems    int64 // array elements, for the element path
	Cents    bool  // every double has at most two decimals
	dups     bool
	hashes   []uint64 // hashes of the values whose hash has hashBits low zero bits
	hashBits uint
	uniq     bool // top level: tracked for uniqueness
	// repeats counts the documents holding each ObjectID, integer or
	// string value (each array element counted), by the value's hash,
	// for a part of the values chosen by hash (sampledCounts).
	repeats *sampledCounts[uint64]
	Equal   string
}

// reservoir keeps a uniform sample of at most reservoirSize values, and
// the k smallest and largest exactly.
type reservoir struct {
	n      int64
	vals   []float64
	lo, hi []float64 // ascending k smallest; descending k largest
	k      int
}

func newReservoir(k int) *reservoir { return &reservoir{k: k} }

func (r *reservoir) add(x float64, rng *rand.Rand) {
	r.n++
	if len(r.vals) < reservoirSize {
		r.vals = append(r.vals, x)
	} else if j := rng.Int64N(r.n); j < reservoirSize {
		r.vals[j] = x
	}
	r.lo = keepK(r.lo, x, r.k, func(a, b float64) bool { return a < b })
	r.hi = keepK(r.hi, x, r.k, func(a, b float64) bool { return a > b })
}

func keepK(s []float64, x float64, k int, before func(a, b float64) bool) []float64 {
	if len(s) == k && !before(x, s[k-1]) {
		return s
	}
	at := len(s)
	for at > 0 && before(x, s[at-1]) {
		at--
	}
	s = slices.Insert(s, at, x)
	if len(s) > k {
		s = s[:k]
	}
	return s
}

// sorted is the reservoir's values in order.
func (r *reservoir) sorted() []float64 {
	s := slices.Clone(r.vals)
	slices.Sort(s)
	return s
}

// Quantiles are q+1 points of the distribution that no value held by
// fewer than k documents decides alone: the ends are the k-th smallest and
// largest values, each point between is the mean of the k sampled values
// around its rank. ok is false with fewer than k values.
func (r *reservoir) Quantiles(q int) ([]float64, bool) {
	if r == nil || r.n < int64(r.k) || len(r.lo) < r.k {
		return nil, false
	}
	s := r.sorted()
	lo, hi := r.lo[r.k-1], r.hi[r.k-1]
	out := make([]float64, q+1)
	for j := 0; j <= q; j++ {
		pos := float64(j) * float64(len(s)-1) / float64(q)
		a := int(math.Round(pos)) - r.k/2
		a = min(max(a, 0), len(s)-r.k)
		sum := 0.0
		for _, v := range s[a : a+r.k] {
			sum += v
		}
		out[j] = min(max(sum/float64(r.k), lo), hi)
	}
	out[0], out[q] = lo, hi
	for j := 1; j <= q; j++ {
		out[j] = max(out[j], out[j-1])
	}
	return out, true
}

// NewProfile starts an empty profile of collection name.
func NewProfile(name string, opts Options) *Profile {
	return &Profile{
		Collection: name, MinCount: opts.minCount(), byPath: map[string]*Field{},
		idTimes: newReservoir(opts.minCount()), sameTime: map[string]int64{}, sameID: map[string]int64{}, idTypes: map[string]int64{},
		rng: rand.New(rand.NewPCG(1, 2)),
	}
}

// Field returns the profile of path, or nil.
func (p *Profile) Field(path string) *Field { return p.byPath[path] }

// Add profiles one document.
func (p *Profile) Add(doc bson.Raw) error {
	if err := doc.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	p.Sampled++
	var idTime int64 = -1
	if v, err := doc.LookupErr("_id"); err == nil && v.Type == bson.TypeObjectID {
		id := v.ObjectID()
		idTime = id.Timestamp().Unix()
		p.idTimes.add(float64(idTime), p.rng)
	}
	idv, _ := doc.LookupErr("_id")
	p.idTypes[typeOf(idv)]++
	elems, _ := doc.Elements()
	for _, e := range elems {
		if e.Key() != "_id" && idv.Type == e.Value().Type && idv.Type != bson.TypeObjectID && idv.Equal(e.Value()) {
			p.sameID[e.Key()]++
		}
		if idTime >= 0 && e.Value().Type == bson.TypeDateTime {
			if e.Value().DateTime()/1000 == idTime && e.Value().DateTime()%1000 == 0 {
				p.sameTime[e.Key()]++
			}
		}
	}
	p.addDoc("", doc, true)
	return nil
}

func (p *Profile) field(path string) *Field {
	f := p.byPath[path]
	if f == nil {
		f = &Field{Path: path, Types: map[string]int64{}, Nums: map[string]*reservoir{}, Kinds: map[string]int64{},
			Cats: map[string]int64{}, ManyCat: map[string]bool{}, ArrLens: map[int]int64{}, Cents: true,
			uniq: !strings.ContainsAny(path, ".[")}
		p.byPath[path] = f
		p.Fields = append(p.Fields, f)
	}
	return f
}

// addDoc profiles the fields of an embedded document at prefix.
func (p *Profile) addDoc(prefix string, doc bson.Raw, top bool) {
	elems, _ := doc.Elements()
	for _, e := range elems {
		p.addValue(prefix+e.Key(), e.Value())
	}
}

// Finish sets every field's Parent: the documents sampled for a top-level
// field, the times the enclosing field was a document for a nested one,
// the elements of the enclosing arrays for an element path. Profile users
// call it; it may be called again after more documents.
func (p *Profile) Finish() {
	for _, f := range p.Fields {
		f.Parent = p.Sampled
		if pf := p.byPath[strings.TrimSuffix(f.Path, "[]")]; pf != nil && pf != f {
			f.Parent = pf.Elems
		} else if at := strings.LastIndexByte(f.Path, '.'); at > 0 {
			if pf := p.byPath[f.Path[:at]]; pf != nil {
				f.Parent = pf.Types[TypeObject]
			}
		}
	}
}

// parentPath is the path of the field that holds f, "" for a top-level one.
func (f *Field) parentPath() string {
	if strings.HasSuffix(f.Path, "[]") {
		return strings.TrimSuffix(f.Path, "[]")
	}
	if at := strings.LastIndexByte(f.Path, '.'); at > 0 {
		return f.Path[:at]
	}
	return ""
}

func (p *Profile) addValue(path string, v bson.RawValue) {
	f := p.field(path)
	f.Present++
	t := typeOf(v)
	f.Types[t]++
	k := p.MinCount
	num := func(x float64) {
		r := f.Nums[t]
		if r == nil {
			r = newReservoir(k)
			f.Nums[t] = r
		}
		r.add(x, p.rng)
	}
	cat := ""
	switch t {
	case TypeInt:
		num(float64(v.Int32()))
		cat = "i:" + strconv.FormatInt(int64(v.Int32()), 10)
	case TypeLong:
		num(float64(v.Int64()))
		cat = "l:" + strconv.FormatInt(v.Int64(), 10)
	case TypeDouble:
		x := v.Double()
		num(x)
		if math.Abs(x*100-math.Round(x*100)) > 1e-6*math.Max(1, math.Abs(x*100)) {
			f.Cents = false
		}
		cat = "d:" + strconv.FormatFloat(x, 'g', -1, 64)
	case TypeDate:
		num(float64(v.DateTime()))
	case TypeObjectID:
		num(float64(v.ObjectID().Timestamp().Unix()))
		cat = "o:" + v.ObjectID().Hex()
	case TypeBool:
		cat = "b:" + strconv.FormatBool(v.Boolean())
	case TypeString:
		s := v.StringValue()
		if f.Lengths == nil {
			f.Lengths = newReservoir(k)
		}
		f.Lengths.add(float64(utf8.RuneCountInString(s)), p.rng)
		f.Kinds[stringKind(s)]++
		cat = "s:" + s
	case TypeObject:
		p.addDoc(path+".", v.Document(), false)
	case TypeArray:
		vals, _ := v.Array().Values()
		f.ArrLens[len(vals)]++
		f.Elems += int64(len(vals))
		for _, ev := range vals {
			p.addValue(path+"[]", ev)
		}
	}
	if cat != "" {
		p.count(f, t, cat)
	}
}

// count tallies a value while the field has few distinct values of type t,
// and keeps a hash of each top-level value to find duplicates.
func (p *Profile) count(f *Field, t, cat string) {
	var h uint64
	rep := repeatsApply(f.Path, t)
	if f.uniq && !f.dups || rep {
		h = hash64(cat)
	}
	if f.uniq && !f.dups {
		f.keepHash(h)
	}
	if rep {
		if f.repeats == nil {
			f.repeats = newSampledCounts(func(h uint64) uint64 { return h })
		}
		f.repeats.add(h)
	}
	if f.ManyCat[t] {
		return
	}
	if _, ok := f.Cats[cat]; !ok && len(f.Cats) >= maxDistinct {
		f.ManyCat[t] = true
		prefix := cat[:2]
		for c := range f.Cats {
			if strings.HasPrefix(c, prefix) {
				delete(f.Cats, c)
			}
		}
		return
	}
	f.Cats[cat]++
	if f.Cats[cat] > 1 {
		f.dups = true
		f.hashes = nil
	}
}

// keepHash keeps h when its hashBits low bits are zero, and, past
// maxHashes kept, keeps one bit more of them: memory stays bounded, and two
// equal values, having one hash, are both kept or both dropped, so a
// duplicate among the kept is still found (any value at all while fewer
// than maxHashes are kept; past that, each with probability
// 2^-hashBits).
func (f *Field) keepHash(h uint64) {
	if h&(1<<f.hashBits-1) != 0 {
		return
	}
	f.hashes = append(f.hashes, h)
	for len(f.hashes) > maxHashes {
		f.hashBits++
		f.hashes = slices.DeleteFunc(f.hashes, func(x uint64) bool { return x&(1<<f.hashBits-1) != 0 })
	}
}

// Unique reports whether no two sampled documents share the field's value
// (a top-level field present in every sampled document): exactly up to
// maxHashes values, and on a part of them chosen by their hash beyond.
func (f *Field) Unique() bool {
	if !f.uniq || f.dups || f.Present < 2 || f.Present != f.Parent {
		return false
	}
	s := slices.Clone(f.hashes)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			f.dups = true
			return false
		}
	}
	return true
}

// Share is the share of the enclosing documents in which the field is
// present.
func (f *Field) Share() float64 {
	if f.Parent == 0 {
		return 0
	}
	return float64(f.Present) / float64(f.Parent)
}

func typeOf(v bson.RawValue) string {
	switch v.Type {
	case bson.TypeInt32:
		return TypeInt
	case bson.TypeInt64:
		return TypeLong
	case bson.TypeDouble:
		return TypeDouble
	case bson.TypeString:
		return TypeString
	case bson.TypeDateTime:
		return TypeDate
	case bson.TypeBoolean:
		return TypeBool
	case bson.TypeNull:
		return TypeNull
	case bson.TypeObjectID:
		return TypeObjectID
	case bson.TypeEmbeddedDocument:
		return TypeObject
	case bson.TypeArray:
		return TypeArray
	case bson.TypeBinary:
		if st, _ := v.Binary(); st == bson.TypeBinaryUUID {
			return TypeUUID
		}
		return TypeBinary
	case bson.TypeDecimal128:
		return TypeDecimal
	}
	return TypeOther
}

// stringKind guesses the semantic type of a string (seed.StringKinds).
func stringKind(s string) string {
	isAll := func(set string) bool {
		if s == "" {
			return false
		}
		for _, c := range s {
			if !strings.ContainsRune(set, c) {
				return false
			}
		}
		return true
	}
	switch {
	case len(s) == 36 && strings.Count(s, "-") == 4 && isAll("0123456789abcdefABCDEF-"):
		return "uuid"
	case strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://"):
		return "url"
	case strings.Count(s, "@") == 1 && strings.Contains(s[strings.IndexByte(s, '@'):], ".") && !strings.Contains(s, " "):
		return "email"
	case isAll("0123456789"):
		return "digits"
	case isAll("0123456789+-() ."):
		return "phone"
	case len(s) >= 8 && isAll("0123456789abcdef"):
		return "hex"
	case strings.Contains(s, " ") && isName(s):
		return "name"
	case strings.Contains(s, " "):
		return "text"
	}
	return "letters"
}

// isName: two or three capitalised words.
func isName(s string) bool {
	w := strings.Fields(s)
	if len(w) < 2 || len(w) > 3 {
		return false
	}
	for _, x := range w {
		if x[0] < 'A' || x[0] > 'Z' {
			return false
		}
	}
	return true
}

// ReadWhole reports whether Collect read every document of the collection
// to draw its sample (a server without $sample), counting the references
// over all of them.
func (p *Profile) ReadWhole() bool { return p.probedAll }
