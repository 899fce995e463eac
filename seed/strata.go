package seed

import (
	"math"
	"math/bits"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
)

// tagStrata keys the stratified draws of template shapes.
const tagStrata = 0x7374726174615f5f

// strata makes the first draw of a top-level template shape stratified over
// the collection: document i draws its uniform from the stratum s(i) of
// [0, 1) cut into Len equal parts, s a pseudo-random permutation of the
// document numbers (one per field, so fields stay independent of each
// other). The Len documents then hold one draw from each stratum, and the
// collection follows a shape's distribution (its weights, quantiles,
// lengths, presence and type mix) to within one document, not only on
// average: at a few hundred documents, independent draws alone stray from
// it by several percent.
//
// The elements of an array are stratified by position (strata.el).
type strata struct {
	n    uint64
	key  uint64
	perm shuffle
}

// newStrata is the strata of each top-level key of t for a collection of
// n documents (nil where the key is not a shape).
func newStrata(t *Template, n int64, key uint64) []*strata {
	if t == nil || n <= 1 {
		return nil
	}
	out := make([]*strata, len(t.root.keys))
	for k, name := range t.root.keys {
		if t.root.children[k].kind == tShape {
			out[k] = newFieldStrata(n, key, name)
		}
	}
	return out
}

// newFieldStrata is the strata of field of a collection of n documents
// (n >= 1) and key.
func newFieldStrata(n int64, key uint64, field string) *strata {
	fk := derive(key^hashString(field), tagStrata, 0)
	return &strata{n: uint64(n), key: fk, perm: newShuffle(uint64(n), fk)}
}

// draw is document i's draw: a point of its stratum.
func (st *strata) draw(i int64, f *gofakeit.Faker) float64 {
	return (float64(st.perm.index(uint64(i)%st.n)) + f.Float64()) / float64(st.n)
}

// build is the value of shape s for document i, its first draw from i's
// stratum.
func (st *strata) build(s *tshape, f *gofakeit.Faker, i int64, sb *strings.Builder) any {
	el := func(j int, r reach) float64 { return st.el(i, j, r, f) }
	return s.buildWith(f, i, sb, firstThen(st.draw(i, f), f), el)
}

// el is the draw of element j of document i's array, r where the array's
// length draw fell among the arrays that reach j. With the lengths
// ascending (r.ok) those arrays are the top part of the length draws, which
// are stratified: the rank of r.t among them, permuted, is the stratum, so
// the elements at position j follow the element's distribution over the
// documents that hold one, independently of the array's length. Otherwise
// the stratum is a permutation of the document number.
func (st *strata) el(i int64, j int, r reach, f *gofakeit.Faker) float64 {
	m, slot := st.n, uint64(i)%st.n
	if r.ok {
		m = max(uint64(math.Round(float64(st.n)*r.share)), 1)
		slot = min(uint64(r.t*float64(m)), m-1)
	}
	p := newShuffle(m, derive(st.key, tagStrata, int64(j)+1))
	return (float64(p.index(slot)) + f.Float64()) / float64(m)
}

// firstThen gives u, then f's draws.
func firstThen(u float64, f *gofakeit.Faker) func() float64 {
	first := true
	return func() float64 {
		if !first {
			return f.Float64()
		}
		first = false
		return u
	}
}

// shuffle is a pseudo-random permutation of 0..n-1: a four-round Feistel
// network over the smallest even number of bits that holds n, walking the
// cycle until the value falls below n (fewer than four steps on average).
type shuffle struct {
	n    uint64
	half uint
	keys [4]uint64
}

func newShuffle(n, key uint64) shuffle {
	b := uint(bits.Len64(max(n-1, 1)))
	b += b & 1
	s := shuffle{n: n, half: b / 2}
	for r := range s.keys {
		s.keys[r] = mix64(key + uint64(r+1)*golden)
	}
	return s
}

func (s shuffle) index(i uint64) uint64 {
	mask := uint64(1)<<s.half - 1
	x := i
	for {
		l, r := x>>s.half, x&mask
		for _, k := range s.keys {
			l, r = r, l^(mix64(r^k)&mask)
		}
		x = l<<s.half | r
		if x < s.n {
			return x
		}
	}
}
