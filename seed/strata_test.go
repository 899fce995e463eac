package seed

import (
	"math"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestShuffleIsAPermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 64, 280, 431, 1000, 4097} {
		s := newShuffle(n, 42)
		seen := make([]bool, n)
		for i := range n {
			j := s.index(i)
			if j >= n || seen[j] {
				t.Fatalf("n=%d: index(%d) = %d: out of range or repeated", n, i, j)
			}
			seen[j] = true
		}
	}
}

// A collection of a few hundred documents follows its top-level shapes to
// within a document or two (weights, presence, quantiles, array lengths),
// where independent draws stray by several percent; and two fields drawn
// from the same document numbers stay uncorrelated.
func TestStrataFollowTheShapes(t *testing.T) {
	tmpl, err := ParseTemplate("strata.json", []byte(`{
	 "tier": {"$mix": ["free", "pro", "team", {"$missing": true}], "$weights": [60, 25, 10, 5]},
	 "a": {"$number": [0, 10, 100], "$type": "double"},
	 "b": {"$number": [0, 1], "$type": "double"},
	 "cats": {"$array": {"$mix": ["a", "b", "c", "d"], "$weights": [50, 30, 15, 5]}, "$lengths": [0, 1, 2, 3], "$weights": [30, 40, 20, 10]},
	 "opt": {"$mix": [{"$number": [0, 1], "$type": "double"}, {"$missing": true}], "$weights": [40, 60]},
	 "tags": {"$array": "x", "$lengths": [1, 2, 3, 4, 5, 6, 7, 8], "$weights": [1, 2, 3, 4, 4, 3, 2, 1]}}`))
	if err != nil {
		t.Fatal(err)
	}
	const n = 280
	p := &Plan{Seeded: true, Seed: 9, Collections: []CollectionSpec{{Name: "s", Template: tmpl, Count: n}}}
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Collection("s")
	tiers := map[any]int{}
	lens := map[int]int{}
	var as, bs, opts []float64
	cats := map[any]float64{}
	var elems float64
	for i := range c.Len() {
		m := docMap(c.Doc(i))
		for _, v := range m["cats"].(bson.A) {
			cats[v]++
			elems++
		}
		if v, ok := m["opt"]; ok {
			opts = append(opts, v.(float64))
		}
		tiers[m["tier"]]++
		as, bs = append(as, m["a"].(float64)), append(bs, m["b"].(float64))
		lens[len(m["tags"].(bson.A))]++
	}
	for v, w := range map[any]float64{"free": 60, "pro": 25, "team": 10, nil: 5} {
		if want := w / 100 * n; math.Abs(float64(tiers[v])-want) > 1.5 {
			t.Errorf("tier %v: %d documents; want %.1f within 1.5", v, tiers[v], want)
		}
	}
	for l, w := range []float64{1, 2, 3, 4, 4, 3, 2, 1} {
		if want := w / 20 * n; math.Abs(float64(lens[l+1])-want) > 1.5 {
			t.Errorf("tags of length %d: %d documents; want %.1f within 1.5", l+1, lens[l+1], want)
		}
	}
	// The empirical distribution of a against its quantile function.
	slices.Sort(as)
	worst := 0.0
	for k, x := range as {
		u := x / 10 / 2
		if x > 10 {
			u = 0.5 + (x-10)/90/2
		}
		worst = max(worst, math.Abs(u-float64(k)/n), math.Abs(u-float64(k+1)/n))
	}
	if worst > 2.0/n {
		t.Errorf("a: KS distance %.4f from its quantile function; want at most %.4f", worst, 2.0/n)
	}
	// The elements of arrays, stratified by position among the arrays
	// that reach it.
	tv := 0.0
	for v, w := range map[any]float64{"a": 0.5, "b": 0.3, "c": 0.15, "d": 0.05} {
		tv += math.Abs(cats[v]/elems-w) / 2
	}
	if tv > 0.015 {
		t.Errorf("cats elements: total variation %.4f from the weights over %.0f elements; want at most 0.015", tv, elems)
	}
	// A shape inside a mix is stratified over the documents that hold it.
	slices.Sort(opts)
	worst = 0
	for k, x := range opts {
		worst = max(worst, math.Abs(x-float64(k)/float64(len(opts))), math.Abs(x-float64(k+1)/float64(len(opts))))
	}
	if math.Abs(float64(len(opts))-0.4*n) > 1.5 || worst > 3.0/float64(len(opts)) {
		t.Errorf("opt: %d documents hold it (want %.0f), KS %.4f from uniform (want at most %.4f)", len(opts), 0.4*n, worst, 3.0/float64(len(opts)))
	}
	// a and b in document order (a's own sort above is of a copy's values).
	as = as[:0]
	for i := range c.Len() {
		as = append(as, docMap(c.Doc(i))["a"].(float64))
	}
	if r := spearman(as, bs); math.Abs(r) > 0.15 {
		t.Errorf("a and b: rank correlation %.3f; want them independent (|r| <= 0.15)", r)
	}
}

// spearman is the rank correlation of x and y.
func spearman(x, y []float64) float64 {
	rank := func(v []float64) []float64 {
		idx := make([]int, len(v))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int {
			switch {
			case v[a] < v[b]:
				return -1
			case v[a] > v[b]:
				return 1
			}
			return 0
		})
		r := make([]float64, len(v))
		for k, i := range idx {
			r[i] = float64(k)
		}
		return r
	}
	rx, ry := rank(x), rank(y)
	n := float64(len(x))
	var d2 float64
	for i := range rx {
		d := rx[i] - ry[i]
		d2 += d * d
	}
	return 1 - 6*d2/(n*(n*n-1))
}

func docMap(d bson.D) map[string]any {
	m := map[string]any{}
	for _, e := range d {
		m[e.Key] = e.Value
	}
	return m
}
