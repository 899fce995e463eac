package seed

import (
	"math"
	"sort"
)

// idCurve makes the int strategy's _ids follow IDQuantiles while staying
// increasing: document i's _id is Q0 + i + floor(H(i/(n-1))), H(u) the
// running maximum over v <= u of Q(v) - Q0 - v(n-1), Q the piecewise
// linear quantile function. Where the quantiles rise faster than one per
// document the _ids follow them; where they rise slower (a dense run of
// numbers), the _ids go up by one. H never decreases, so the _ids grow by
// at least one per document: unique, and read back by a search.
type idCurve struct {
	q   []float64 // the quantiles
	max []float64 // running maximum of g at each quantile point
	n   int64     // documents
}

func newIDCurve(q []float64, n int64) *idCurve {
	if len(q) == 0 {
		return nil
	}
	c := &idCurve{q: q, n: n, max: make([]float64, len(q))}
	m := 0.0
	for j := range q {
		m = max(m, c.g(j, 0))
		c.max[j] = m
	}
	return c
}

// span is n-1 documents (0 for a single one).
func (c *idCurve) span() float64 { return float64(max(c.n-1, 0)) }

// g is Q(u) - Q0 - u(n-1) at u = (j + t)/(len(q)-1).
func (c *idCurve) g(j int, t float64) float64 {
	if len(c.q) == 1 {
		return 0
	}
	steps := float64(len(c.q) - 1)
	x := c.q[j]
	if t > 0 && j+1 < len(c.q) {
		x += (c.q[j+1] - c.q[j]) * t
	}
	return x - c.q[0] - (float64(j)+t)/steps*c.span()
}

// id is document i's _id.
func (c *idCurve) id(i int64) int64 {
	h := 0.0
	if len(c.q) > 1 && c.n > 1 {
		pos := float64(i) / c.span() * float64(len(c.q)-1)
		j := min(int(pos), len(c.q)-1)
		h = c.max[j]
		if j+1 < len(c.q) {
			h = max(h, c.g(j, pos-float64(j)))
		}
	}
	return int64(math.Round(c.q[0])) + i + int64(math.Floor(h+1e-9))
}

// index is the document whose _id is v.
func (c *idCurve) index(v int64) (int64, bool) {
	i := int64(sort.Search(int(c.n), func(k int) bool { return c.id(int64(k)) >= v }))
	return i, i < c.n && c.id(i) == v
}
