package seed

// The draws of a dataset: the values it derives from its seed (mix64,
// derive), pseudo-random permutations (shuffle, permutation), stratified
// draws (strata), the distributions that references and templates draw
// from (Zipf, skewed and by-mass picks, normal, weighted choices), and a
// collection's references bound to their targets and draws (bindRefs).

import (
	"math"
	"math/bits"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// mix64 is the SplitMix64 finalizer: a cheap bijective scrambler, so that
// nearby inputs (consecutive document numbers) give unrelated outputs.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hashString is FNV-1a, 64 bits.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Stream tags keep the values derived for different purposes apart.
const (
	tagDoc    = 0x646f63756d656e74
	tagUUID   = 0x7575696475756964
	tagOID    = 0x6f626a6563746964
	tagCount  = 0x636f756e74657273
	tagPrice  = 0x7072696365735f5f
	tagSkew   = 0x736b65775f5f5f5f
	tagIDMix  = 0x69646d69785f5f5f
	golden    = 0x9e3779b97f4a7c15
	tagSecond = 0x5365636f6e645f5f
)

// derive returns a value that depends on key, tag and i only.
func derive(key, tag uint64, i int64) uint64 {
	return mix64(key ^ mix64(tag+uint64(i)*golden))
}

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

// zipfDist draws integers k in [0, imax] with probability proportional to
// (v+k)^-s, for s > 1 and v >= 1: the distribution of math/rand's Zipf,
// by the same rejection-inversion method (W. Hörmann, G. Derflinger:
// "Rejection-Inversion to Generate Variates from Monotone Discrete
// Distributions"), drawing its uniforms from a document's random stream.
type zipfDist struct {
	imax, v, q, s         float64
	oneMinusQ, oneMinusQ1 float64 // 1-q and 1/(1-q)
	hxm, hx0MinusHxm      float64
}

// newZipf is the Zipf distribution of s, v and imax; the caller checks
// s > 1 and v >= 1.
func newZipf(s, v float64, imax uint64) *zipfDist {
	z := &zipfDist{imax: float64(imax), v: v, q: s}
	z.oneMinusQ = 1 - z.q
	z.oneMinusQ1 = 1 / z.oneMinusQ
	z.hxm = z.h(z.imax + 0.5)
	z.hx0MinusHxm = z.h(0.5) - math.Exp(math.Log(z.v)*(-z.q)) - z.hxm
	z.s = 1 - z.hinv(z.h(1.5)-math.Exp(-z.q*math.Log(z.v+1)))
	return z
}

func (z *zipfDist) h(x float64) float64 {
	return math.Exp(z.oneMinusQ*math.Log(z.v+x)) * z.oneMinusQ1
}

func (z *zipfDist) hinv(x float64) float64 {
	return math.Exp(z.oneMinusQ1*math.Log(z.oneMinusQ*x)) - z.v
}

// draw returns one value, taking uniforms in [0, 1) from u.
func (z *zipfDist) draw(u func() float64) uint64 {
	k := 0.0
	// Rejection accepts more than half of the candidates for any
	// parameters; the bound only keeps a pathological source finite.
	for try := 0; try < 64; try++ {
		ur := z.hxm + u()*z.hx0MinusHxm
		x := z.hinv(ur)
		k = math.Floor(x + 0.5)
		if k-x <= z.s {
			break
		}
		if ur >= z.h(k+0.5)-math.Exp(-math.Log(k+z.v)*z.q) {
			break
		}
	}
	switch {
	case !(k >= 0): // NaN too
		return 0
	case k > z.imax:
		return uint64(z.imax)
	}
	return uint64(k)
}

// Skewed references: the order kind's userId.
const (
	skewS = 1.1 // the Zipf exponent
	// skewShare sets v = count/skewShare: the first ranks are flattened in
	// proportion to the count, so the shape (which share of users places
	// which share of orders) does not depend on the number of users.
	skewShare = 100
)

// skewedPick draws document numbers of a collection of n documents by a
// Zipf distribution over ranks, rank r being document (r*mul + add) mod n:
// a few documents are drawn very often, most rarely, and which ones they
// are is spread over the collection rather than its first documents.
type skewedPick struct {
	z        *zipfDist
	n        uint64
	mul, add uint64
}

func newSkewedPick(n int64, key uint64) *skewedPick {
	if n <= 0 {
		return nil
	}
	p := &skewedPick{z: newZipf(skewS, max(1, float64(n)/skewShare), uint64(n-1)), n: uint64(n)}
	p.add = key % p.n
	// A multiplier coprime with n makes rank -> document a permutation.
	p.mul = (key>>20)%p.n | 1
	for gcd(p.mul, p.n) != 1 {
		p.mul++
	}
	return p
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// pick draws one document number, taking uniforms from u.
func (p *skewedPick) pick(u func() float64) int64 {
	return p.index(p.z.draw(u))
}

// index is the document of rank r.
func (p *skewedPick) index(r uint64) int64 {
	hi, lo := bits.Mul64(r%p.n, p.mul)
	_, m := bits.Div64(hi%p.n, lo, p.n)
	return int64((m + p.add) % p.n)
}

// massPick draws document numbers of a collection of n documents so that
// each of the equal parts of a Ref's PerTarget (by rank) receives its share
// of the draws, evenly within the part; rank r is document
// (r*mul + add) mod n, as for skewedPick. Draw k of the draws of the
// referring collection is not random: it is the point (k'+1/2)/draws of
// [0, 1), k' being k permuted the same way, so that each document receives
// its share to within one draw, rather than a Poisson count around it, and
// which draws go to one document is spread over the referring collection.
type massPick struct {
	targets, draws permutation
	cum            []float64 // cumulative weight of the parts
}

func newMassPick(w []float64, n, draws int64, key uint64) *massPick {
	if n <= 0 {
		return nil
	}
	m := &massPick{targets: newPermutation(uint64(n), key), draws: newPermutation(uint64(max(draws, 1)), mix64(key))}
	sum := 0.0
	for _, x := range w {
		sum += x
		m.cum = append(m.cum, sum)
	}
	return m
}

// draw is the point of draw k, in [0, 1).
func (m *massPick) draw(k uint64) float64 {
	return (float64(m.draws.index(k%m.draws.n)) + 0.5) / float64(m.draws.n)
}

// pick is the document of point u in [0, 1).
func (m *massPick) pick(u float64) int64 {
	x := u * m.cum[len(m.cum)-1]
	s := firstAbove(m.cum, x)
	before := 0.0
	if s > 0 {
		before = m.cum[s-1]
	}
	t := min(max((x-before)/(m.cum[s]-before), 0), 1)
	rank := (float64(s) + t) / float64(len(m.cum))
	return int64(m.targets.index(min(uint64(rank*float64(m.targets.n)), m.targets.n-1)))
}

// permutation maps 0..n-1 onto itself: i -> (i*mul + add) mod n, mul
// coprime with n and taken from a key.
type permutation struct{ n, mul, add uint64 }

func newPermutation(n, key uint64) permutation {
	p := permutation{n: n, add: key % n, mul: (key>>20)%n | 1}
	for gcd(p.mul, p.n) != 1 {
		p.mul++
	}
	return p
}

func (p permutation) index(i uint64) uint64 {
	hi, lo := bits.Mul64(i%p.n, p.mul)
	_, m := bits.Div64(hi%p.n, lo, p.n)
	return (m + p.add) % p.n
}

// normal draws from the normal distribution of mean and stddev by the
// Box-Muller transform, taking two uniforms from u.
func normal(mean, stddev float64, u func() float64) float64 {
	u1 := 1 - u() // (0, 1]: the logarithm stays finite
	u2 := u()
	return mean + stddev*math.Sqrt(-2*math.Log(u1))*math.Cos(2*math.Pi*u2)
}

// weightedIndex returns the first index whose cumulative weight exceeds
// r*total for r = u(): index k with probability weight k / total.
func weightedIndex(cum []float64, u func() float64) int {
	return firstAbove(cum, u()*cum[len(cum)-1])
}

// firstAbove is the first index of the cumulative weights cum whose weight
// exceeds x (the last for an x beyond them): the one search of every
// weighted choice.
func firstAbove[T int | float64](cum []T, x T) int {
	lo, hi := 0, len(cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if cum[mid] > x {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// boundRef is a reference of a collection bound to what it draws from
// (bindRefs).
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

// count is the number of documents r can point at.
func (r *boundRef) count() int64 {
	if r.Stored {
		return int64(len(r.stored))
	}
	return r.to.spec.Count
}

// id is the _id of target j.
func (r *boundRef) id(j int64) any {
	if r.Stored {
		return r.stored[j]
	}
	return r.to.ID(j)
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
