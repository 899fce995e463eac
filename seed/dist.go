package seed

import (
	"math"
	"math/bits"
)

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
