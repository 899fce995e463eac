package infer

import (
	"math"
	"slices"
	"sort"
)

// Distance is how far apart one field path is in two profiles. Each
// measure is in [0, 1]; -1 means it does not apply (no such values on
// either side).
type Distance struct {
	Path string `json:"path"`
	// PresentA and PresentB are the shares of the enclosing documents
	// holding the path.
	PresentA float64 `json:"presentA"`
	PresentB float64 `json:"presentB"`
	// Types is the total variation distance of the mix of BSON types.
	Types float64 `json:"types"`
	// Values is the Kolmogorov–Smirnov distance of the numbers, dates and
	// ObjectID times of each type both sides have, each weighed by the
	// type's mean share of the values on the two sides, summed (a field
	// of one type: its distance).
	Values float64 `json:"values"`
	// Lengths is the Kolmogorov–Smirnov distance of string lengths.
	Lengths float64 `json:"lengths"`
	// Categories is the total variation distance of the values held by
	// at least MinCount documents on either side, the others as one, for
	// a field that keeps at most lowCardinality values as categories on
	// either side (-1 otherwise: its values or lengths measure it).
	Categories float64 `json:"categories"`
	// ArrayLengths is the total variation distance of array lengths.
	ArrayLengths float64 `json:"arrayLengths"`
	// Repeats is the Kolmogorov–Smirnov distance of how many documents
	// hold each distinct value (for orders.userId: orders per user, over
	// the users that have orders), of the ObjectIDs, integers and strings
	// of a field that is not a category (Categories measures those) and
	// has more than maxDistinct distinct values on either side, some of
	// them held by more than one document (-1 otherwise: a unique field, or
	// too few values for their counts to be more than sampling noise).
	// Each side counts a part of its distinct values chosen by hash, all
	// of them up to maxRefCounts. The counts are the sample's: the side
	// read at the larger share of its collection is first thinned to the
	// other's share (each count c becoming Binomial(c, ratio), the values
	// left at 0 unseen, computed exactly rather than drawn), so a
	// collection read in full and its copy ten times the size read at a
	// tenth compare like with like. A sample smaller than the collection
	// sees the skew of the values held by more than about Total/Sampled
	// documents; those held by fewer mostly appear once or not at all.
	Repeats float64 `json:"repeats"`
	// Distance is the largest of them, the presence difference included;
	// 1 for a path only one side has.
	Distance float64 `json:"distance"`
}

// Comparison is the result of Compare.
type Comparison struct {
	A, B       string     `json:"-"`
	Fields     []Distance `json:"fields"`
	Similarity float64    `json:"similarity"` // 1 - the mean distance of the paths
}

// Compare measures how far apart two profiles are, path by path.
func Compare(a, b *Profile) *Comparison {
	a.Finish()
	b.Finish()
	out := &Comparison{A: a.Collection, B: b.Collection}
	var paths []string
	for _, f := range a.Fields {
		paths = append(paths, f.Path)
	}
	for _, f := range b.Fields {
		if a.byPath[f.Path] == nil {
			paths = append(paths, f.Path)
		}
	}
	sum := 0.0
	for _, path := range paths {
		d := distance(a, b, path)
		sum += d.Distance
		out.Fields = append(out.Fields, d)
	}
	if len(paths) > 0 {
		out.Similarity = 1 - sum/float64(len(paths))
	}
	return out
}

// distance measures one path of two profiles.
func distance(a, b *Profile, path string) Distance {
	k := max(a.MinCount, b.MinCount)
	fa, fb := a.byPath[path], b.byPath[path]
	d := Distance{Path: path, Types: -1, Values: -1, Lengths: -1, Categories: -1, ArrayLengths: -1, Repeats: -1, Distance: 1}
	if fa != nil {
		d.PresentA = fa.Share()
	}
	if fb != nil {
		d.PresentB = fb.Share()
	}
	if fa == nil || fb == nil {
		return d
	}
	d.Types = tv(fa.Types, fb.Types, nil)
	// Each type's distance weighs as its share of the values: a type that
	// 0.2% of them have (too few to be kept) does not decide the field.
	for t, ra := range fa.Nums {
		if rb := fb.Nums[t]; rb != nil {
			w := (float64(fa.Types[t])/float64(max(fa.Present, 1)) + float64(fb.Types[t])/float64(max(fb.Present, 1))) / 2
			d.Values = max(d.Values, 0) + w*ks(ra.sorted(), rb.sorted())
		}
	}
	if fa.Lengths != nil && fb.Lengths != nil {
		d.Lengths = ks(fa.Lengths.sorted(), fb.Lengths.sorted())
	}
	if fa.categorical(k) || fb.categorical(k) {
		keep := func(c string) bool { return fa.Cats[c] >= int64(k) || fb.Cats[c] >= int64(k) }
		d.Categories = tv(fa.Cats, fb.Cats, keep)
	} else {
		d.Repeats = repeats(fa.repeats, fb.repeats, a.rate(), b.rate())
	}
	if len(fa.ArrLens) > 0 && len(fb.ArrLens) > 0 {
		d.ArrayLengths = tv(fa.ArrLens, fb.ArrLens, nil)
	}
	d.Distance = math.Abs(d.PresentA - d.PresentB)
	for _, x := range []float64{d.Types, d.Values, d.Lengths, d.Categories, d.ArrayLengths, d.Repeats} {
		d.Distance = max(d.Distance, x)
	}
	return d
}

// lowCardinality is the most values a field may keep for compare to
// measure its categories: over more, the total variation of two samples of
// a few thousand documents is mostly sampling noise (47 kept ages over 2,000
// documents a side: 0.066 between a collection and its faithful copy), and
// the field is measured by its values' or string lengths' distribution.
const lowCardinality = 16

// categorical reports whether every type of f that has counted values keeps
// them as categories (the rule of the plan, Field.kept), at most
// lowCardinality of them in all: a status, a tier, a country code.
func (f *Field) categorical(k int) bool {
	n, any := 0, false
	for t := range catPrefix {
		if f.Types[t] == 0 {
			continue
		}
		keys, _, _, ok := f.kept(t, k)
		if !ok {
			return false
		}
		n += len(keys)
		any = true
	}
	return any && n <= lowCardinality
}

// tv is the total variation distance of two count maps; with keep, the
// keys it refuses are counted as one.
func tv[K comparable](a, b map[K]int64, keep func(K) bool) float64 {
	var na, nb int64
	for _, n := range a {
		na += n
	}
	for _, n := range b {
		nb += n
	}
	if na == 0 || nb == 0 {
		return 1
	}
	var restA, restB float64
	sum := 0.0
	seen := map[K]bool{}
	for _, m := range []map[K]int64{a, b} {
		for key := range m {
			if seen[key] {
				continue
			}
			seen[key] = true
			pa, pb := float64(a[key])/float64(na), float64(b[key])/float64(nb)
			if keep != nil && !keep(key) {
				restA += pa
				restB += pb
				continue
			}
			sum += math.Abs(pa - pb)
		}
	}
	return (sum + math.Abs(restA-restB)) / 2
}

// ks is the two-sample Kolmogorov–Smirnov distance of sorted samples.
func ks(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 1
	}
	i, j, d := 0, 0, 0.0
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] <= x {
			i++
		}
		for j < len(b) && b[j] <= x {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}

// Worst returns the n paths farthest apart, farthest first.
func (c *Comparison) Worst(n int) []Distance {
	s := slices.Clone(c.Fields)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Distance > s[j].Distance })
	return s[:min(n, len(s))]
}

// rate is the share of its collection a profile read.
func (p *Profile) rate() float64 {
	if p.Total <= p.Sampled || p.Sampled == 0 {
		return 1
	}
	return float64(p.Sampled) / float64(p.Total)
}

// repeats is the Repeats distance of two fields' value counts, read at
// the shares rateA and rateB of their collections, or -1.
func repeats(ca, cb *sampledCounts[uint64], rateA, rateB float64) float64 {
	if ca == nil || cb == nil || len(ca.n) == 0 || len(cb.n) == 0 {
		return -1
	}
	many := func(c *sampledCounts[uint64]) bool { return c.bits > 0 || len(c.n) > maxDistinct }
	repeated := func(c *sampledCounts[uint64]) bool {
		for _, n := range c.n {
			if n > 1 {
				return true
			}
		}
		return false
	}
	if !many(ca) && !many(cb) || !repeated(ca) && !repeated(cb) {
		return -1
	}
	return ksHist(ca.histogram(min(1, rateB/rateA)), cb.histogram(min(1, rateA/rateB)))
}

// histogram is the number of values by how many documents hold them,
// each count c thinned to Binomial(c, r) and the values left at 0
// dropped: the expected histogram of a sample of a share r of the
// documents.
func (c *sampledCounts[K]) histogram(r float64) map[int64]float64 {
	byCount := map[int64]float64{}
	for _, n := range c.n {
		byCount[n]++
	}
	if r >= 1 {
		return byCount
	}
	out := map[int64]float64{}
	lr, lq := math.Log(r), math.Log1p(-r)
	for n, m := range byCount {
		ln, _ := math.Lgamma(float64(n + 1))
		for j := int64(1); j <= n; j++ {
			lj, _ := math.Lgamma(float64(j + 1))
			lnj, _ := math.Lgamma(float64(n - j + 1))
			out[j] += m * math.Exp(ln-lj-lnj+float64(j)*lr+float64(n-j)*lq)
		}
	}
	return out
}

// ksHist is the Kolmogorov–Smirnov distance of two weighted histograms.
func ksHist(a, b map[int64]float64) float64 {
	var keys []int64
	var na, nb float64
	for x, w := range a {
		keys = append(keys, x)
		na += w
	}
	for x, w := range b {
		if _, ok := a[x]; !ok {
			keys = append(keys, x)
		}
		nb += w
	}
	if na == 0 || nb == 0 {
		return 1
	}
	slices.Sort(keys)
	var fa, fb, d float64
	for _, x := range keys {
		fa += a[x] / na
		fb += b[x] / nb
		d = max(d, math.Abs(fa-fb))
	}
	return d
}
