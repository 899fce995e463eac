package seed

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/brianvoe/gofakeit/v7"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// chiSquare is Pearson's statistic of observed counts against expected
// probabilities.
func chiSquare(observed []int, probs []float64) float64 {
	n := 0
	for _, o := range observed {
		n += o
	}
	x := 0.0
	for k, o := range observed {
		e := probs[k] * float64(n)
		x += (float64(o) - e) * (float64(o) - e) / e
	}
	return x
}

// chi2Crit999 is the chi-square value exceeded with probability 0.001,
// by the Wilson-Hilferty approximation (good to a few percent from 2
// degrees of freedom up).
func chi2Crit999(df int) float64 {
	const z = 3.0902 // the normal quantile of 0.999
	k := float64(df)
	a := 1 - 2/(9*k) + z*math.Sqrt(2/(9*k))
	return k * a * a * a
}

// templateValues builds n documents of a one-field template and returns
// the field's values.
func templateValues(t *testing.T, field string, n int64) []any {
	t.Helper()
	tm, err := ParseTemplate("d.json", []byte(`{"v": "`+strings.ReplaceAll(field, `"`, `\"`)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	c := buildOne(t, CollectionSpec{Name: "d", Template: tm, Count: n}, 21)
	w := c.NewWorker()
	out := make([]any, n)
	for i := range n {
		out[i] = w.Doc(i)[1].Value
	}
	return out
}

func TestWeightedFrequencies(t *testing.T) {
	vals := templateValues(t, `{weighted:[a,"b c",d],[3,1,1]}`, 30_000)
	counts := make([]int, 3)
	for _, v := range vals {
		k := slices.Index([]any{"a", "b c", "d"}, v)
		if k < 0 {
			t.Fatalf("value %v is not an option", v)
		}
		counts[k]++
	}
	want := []float64{0.6, 0.2, 0.2}
	if x := chiSquare(counts, want); x > chi2Crit999(2) {
		t.Errorf("counts %v against 3:1:1: chi-square %.1f > %.1f", counts, x, chi2Crit999(2))
	}
	// The test has the power to see a uniform draw.
	if x := chiSquare([]int{10_000, 10_000, 10_000}, want); x < 100*chi2Crit999(2) {
		t.Fatalf("a uniform draw would pass: chi-square %.1f", x)
	}
	// Bare numbers become numbers.
	for _, v := range templateValues(t, `{weighted:[1, 2, 30],[1,1,1]}`, 100) {
		if _, ok := v.(int32); !ok {
			t.Fatalf("weighted integer option gave %T %v", v, v)
		}
	}
	for _, v := range templateValues(t, `{weighted:[1, 2.5],[1,1]}`, 100) {
		if f, ok := v.(float64); !ok || (f != 1 && f != 2.5) {
			t.Fatalf("weighted float option gave %T %v", v, v)
		}
	}
	for _, v := range templateValues(t, `{weighted:[true,false],[1,9]}`, 100) {
		if _, ok := v.(bool); !ok {
			t.Fatalf("weighted bool option gave %T %v", v, v)
		}
	}
	for _, v := range templateValues(t, `x{weighted:["1",2],[1,1]}`, 100) {
		if v != "x1" && v != "x2" {
			t.Fatalf("weighted inside text gave %T %v", v, v)
		}
	}
}

func TestNormalMoments(t *testing.T) {
	const n = 40_000
	vals := templateValues(t, `{normal:100,15}`, n)
	mean, sq := 0.0, 0.0
	for _, v := range vals {
		x := v.(float64)
		mean += x
		sq += x * x
	}
	mean /= n
	sd := math.Sqrt(sq/n - mean*mean)
	// Standard errors: 15/sqrt(n) = 0.075 for the mean, about 0.053 for
	// the standard deviation; the bounds are 6 of them.
	if math.Abs(mean-100) > 0.45 || math.Abs(sd-15) > 0.35 {
		t.Errorf("mean %.3f, stddev %.3f; want 100 and 15", mean, sd)
	}
	// Within one standard deviation: 68.27%.
	in := 0
	for _, v := range vals {
		if math.Abs(v.(float64)-100) < 15 {
			in++
		}
	}
	if share := float64(in) / n; math.Abs(share-0.6827) > 0.015 {
		t.Errorf("share within one stddev %.4f; want 0.6827", share)
	}
	for _, v := range templateValues(t, `{normalint:170,10,150,190}`, 5000) {
		x, ok := v.(int32)
		if !ok || x < 150 || x > 190 {
			t.Fatalf("normalint gave %T %v; want an int32 in [150, 190]", v, v)
		}
	}
	for _, v := range templateValues(t, `{normal:0,1,-0.5,0.5}`, 5000) {
		if x := v.(float64); x < -0.5 || x > 0.5 {
			t.Fatalf("clamped normal gave %v", x)
		}
	}
}

// The Zipf placeholder against the probabilities computed here from the
// definition, P(k) proportional to (v+k)^-s.
func TestZipfPlaceholderDistribution(t *testing.T) {
	const imax = 20
	vals := templateValues(t, `{zipf:1.5,2,20}`, 50_000)
	counts := make([]int, imax+1)
	for _, v := range vals {
		k, ok := v.(int32)
		if !ok || k < 0 || k > imax {
			t.Fatalf("zipf gave %T %v", v, v)
		}
		counts[k]++
	}
	probs := make([]float64, imax+1)
	sum := 0.0
	for k := range probs {
		probs[k] = math.Pow(2+float64(k), -1.5)
		sum += probs[k]
	}
	for k := range probs {
		probs[k] /= sum
	}
	if x := chiSquare(counts, probs); x > chi2Crit999(imax) {
		t.Errorf("counts %v: chi-square %.1f > %.1f", counts, x, chi2Crit999(imax))
	}
}

// Orders' userId: a few users place many orders. At 1,000 users and 3,000
// orders a uniform draw gives the top user about 10 orders and the top 1%
// of users about 2% of the orders.
func TestOrderUsersAreZipfSkewed(t *testing.T) {
	p, _ := BuiltinPlan("shop", 1000)
	p.Seed, p.Seeded = 9, true
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	h := newCoherence(t, ds)
	h.checkAll() // counts orders per user, and checks every reference
	counts := make([]int, 0, len(h.ordersOf))
	for _, c := range h.ordersOf {
		counts = append(counts, c)
	}
	slices.Sort(counts)
	slices.Reverse(counts)
	top1 := 0
	for _, c := range counts[:10] {
		top1 += c
	}
	share := float64(top1) / 3000
	t.Logf("top user %d orders, top 1%% of users %.1f%% of orders, %d users without orders", counts[0], 100*share, 1000-len(counts))
	if counts[0] < 40 || share < 0.10 {
		t.Errorf("top user %d orders, top 1%% share %.3f; want a Zipf skew (>= 40, >= 0.10)", counts[0], share)
	}
	if without := 1000 - len(counts); without < 150 {
		t.Errorf("%d users without orders; a skew leaves many", without)
	}
	// Heavy users are spread over the collection, not its first documents.
	heavy := 0
	for u, c := range h.ordersOf {
		if c >= counts[9] && u >= 100 {
			heavy++
		}
	}
	if heavy < 5 {
		t.Errorf("only %d of the top users are past document 100", heavy)
	}
}

func TestSkewedPickIsAPermutation(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 10, 97, 100, 1000, 1 << 20} {
		p := newSkewedPick(n, 0xdeadbeefcafe)
		seen := map[int64]bool{}
		for r := range uint64(min(n, 5000)) {
			j := p.index(r)
			if j < 0 || j >= n || seen[j] {
				t.Fatalf("n %d: rank %d -> %d (seen %v)", n, r, j, seen[j])
			}
			seen[j] = true
		}
	}
	// Big collections: indexes stay in range.
	p := newSkewedPick(MaxCount, 12345)
	f := gofakeit.New(3)
	for range 10_000 {
		if j := p.pick(f.Float64); j < 0 || j >= MaxCount {
			t.Fatalf("pick %d outside [0, %d)", j, MaxCount)
		}
	}
}

// Countries come in proportion to their weights.
func TestCountryFrequencies(t *testing.T) {
	n := int64(50_000)
	c := buildOne(t, CollectionSpec{Name: "u", Kind: KindUser, Count: n}, 17)
	w := c.NewWorker()
	idx := map[string]int{}
	probs := make([]float64, len(countries))
	for k, co := range countries {
		idx[co.name] = k
		probs[k] = float64(co.weight) / float64(countryTotal)
	}
	counts := make([]int, len(countries))
	for i := range n {
		d := w.Doc(i)
		addr := d[indexOf(d, "address")].Value.(bson.D)
		counts[idx[addr[4].Value.(string)]]++
	}
	if x := chiSquare(counts, probs); x > chi2Crit999(len(countries)-1) {
		t.Errorf("country counts %v: chi-square %.1f > %.1f", counts, x, chi2Crit999(len(countries)-1))
	}
}

func TestOwnPlaceholderErrors(t *testing.T) {
	for _, tc := range []struct{ ph, want string }{
		{"{weighted}", "no parameters"},
		{"{weighted:[a,b],[1]}", "2 options but 1 weights"},
		{"{weighted:[a],[1,2]}", "1 options but 2 weights"},
		{"{weighted:[a,b],[1,0]}", `weight "0" of option "b": expected a number above 0`},
		{"{weighted:[a,b],[1,-2]}", `weight "-2" of option "b": expected a number above 0`},
		{"{weighted:[a,b],[1,x]}", `weight "x": expected a finite number`},
		{"{weighted:[a,b],[1,NaN]}", `weight "NaN": expected a finite number`},
		{"{weighted:[a,b],[1,1e999]}", `weight "1e999": expected a finite number`},
		{"{weighted:[a,b],[1e308,1e308]}", "weights add up to more than"},
		{"{weighted:a,b}", "options: expected a list in brackets"},
		{"{weighted:[a,b]}", "expected a list of options, a comma and a list of weights"},
		{"{weighted:[a,,b],[1,1,1]}", "options: empty item"},
		{"{weighted:[a,b],[1,1]x}", `unexpected "x" after the weights`},
		{`{weighted:["a,b],[1]}`, "unterminated string"},
		{"{weighted:[a,b,[1,1]}", "a quote or [ inside an item"},
		{"{normal:1}", "1 parameters: expected 2 (mean, stddev) or 4"},
		{"{normal:1,2,3}", "3 parameters"},
		{"{normal:a,2}", `mean "a": expected a finite number`},
		{"{normal:1,-2}", "stddev -2: expected a number >= 0"},
		{"{normal:1,2,5,3}", "min 5 is above max 3"},
		{"{normal:1e308,1e308}", "values could exceed"},
		{"{normalint:1e300,1}", "values could exceed"},
		{"{normalint:1,1,0.2,0.8}", "expected an integer between them"},
		{"{zipf:1,1,10}", "s 1: expected a number above 1"},
		{"{zipf:2,0.5,10}", "v 0.5: expected a number >= 1"},
		{"{zipf:2,1,-1}", "imax -1: expected an integer from 0"},
		{"{zipf:2,1,1.5}", "imax 1.5"},
		{"{zipf:2,1,1e20}", "imax 1e+20"},
		{"{zipf:2,1}", "2 parameters: expected 3 (s, v, imax)"},
		{"{zipf:NaN,1,3}", `s "NaN": expected a finite number`},
	} {
		_, err := ParseTemplate("w.json", []byte(`{"a": {"b": "`+strings.ReplaceAll(tc.ph, `"`, `\"`)+`"}}`))
		var te *TemplateError
		if !errors.As(err, &te) || te.Path != "$.a.b" || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "expected") {
			t.Errorf("%s: error %v; want a TemplateError at $.a.b containing %q", tc.ph, err, tc.want)
		}
	}
}

// The own placeholders keep their text in the template's JSON, so a run
// manifest rebuilds the same documents.
func TestOwnPlaceholdersSurviveTheManifest(t *testing.T) {
	src := `{"w":"{weighted:[\"x, y\",z],[2,1]}","n":"n={normal:5,1}","i":"{normalint:5,1,0,10}","z":"{zipf:1.2,1,99}"}`
	tm, err := ParseTemplate("m.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseTemplate("m.json", tm.JSON())
	if err != nil {
		t.Fatal(err)
	}
	a := buildOne(t, CollectionSpec{Name: "m", Template: tm, Count: 50}, 4)
	b := buildOne(t, CollectionSpec{Name: "m", Template: back, Count: 50}, 4)
	for i := range int64(50) {
		if x, y := marshal(t, a.Doc(i)), marshal(t, b.Doc(i)); string(x) != string(y) {
			t.Fatalf("document %d differs after the JSON round trip: %v vs %v", i, bson.Raw(x), bson.Raw(y))
		}
	}
}

// Any placeholder body: parseOwn returns a generator or an error naming
// what was expected, never panics, and what it generates keeps its
// promises (an option, within bounds, an integer).
func FuzzOwnPlaceholder(f *testing.F) {
	for _, s := range []string{
		"weighted:[a,b,c],[3,1,1]", `weighted:["a","b"],[0.5,0.5]`, "weighted:[1,2],[1,1]", "weighted:[true,false],[1,1e-300]",
		"normal:0,1", "normal:10,2,0,12", "normalint:5,3,0,9", "normalint:-1e15,1e14", "zipf:1.1,1,100", "zipf:3,1e9,9007199254740992",
		"weighted:[", "normal:", "zipf:,,", `weighted:["\u00e9\"",x],[1,2]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !isOwnPlaceholder(body) {
			return
		}
		g, err := parseOwn(body)
		if err != nil {
			if !strings.Contains(err.Error(), "expected") {
				t.Fatalf("%q: error %q says nothing of what was expected", body, err)
			}
			return
		}
		fk := gofakeit.New(1)
		var sb strings.Builder
		for range 50 {
			v := g.value(fk)
			sb.Reset()
			g.appendText(&sb, fk)
			switch g.kind {
			case genWeighted:
				if !slices.Contains(g.vals, v) || !slices.Contains(g.texts, sb.String()) {
					t.Fatalf("%q: %v / %q is not an option", body, v, sb.String())
				}
			case genNormal:
				x := v.(float64)
				if math.IsNaN(x) || math.IsInf(x, 0) || x < g.lo || x > g.hi {
					t.Fatalf("%q: %v outside [%v, %v]", body, x, g.lo, g.hi)
				}
			default: // normalint, zipf
				var x int64
				switch v := v.(type) {
				case int32:
					x = int64(v)
				case int64:
					x = v
				default:
					t.Fatalf("%q: %T %v is not an integer", body, v, v)
				}
				if x < -maxExact || x > maxExact || (g.kind == genNormInt && (float64(x) < g.lo || float64(x) > g.hi)) {
					t.Fatalf("%q: %d out of range", body, x)
				}
				if g.kind == genZipf && (x < 0 || float64(x) > g.zipf.imax) {
					t.Fatalf("%q: %d outside [0, %v]", body, x, g.zipf.imax)
				}
			}
		}
	})
}

// Orders whose productIds point at documents without a price (here users)
// draw their unit prices; the total is still the integer sum of cents.
func TestOrderTotalsWithoutACatalog(t *testing.T) {
	p := &Plan{Seed: 8, Seeded: true, Collections: []CollectionSpec{
		{Name: "people", Kind: KindUser, Count: 30, RefOnly: true},
		{Name: "orders", Kind: KindOrder, Count: 3000, Refs: []Ref{{Field: "userId", To: "people"}, {Field: "productIds", To: "people", Min: 1, Max: 5}}},
	}}
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Collection("orders")
	prices := map[int64]bool{}
	for i := range c.Len() {
		raw := bson.Raw(marshal(t, c.Doc(i)))
		items, _ := raw.Lookup("items").Array().Values()
		var sum int64
		for _, it := range items {
			unit := exactCents(t, "unitPrice", it.Document().Lookup("unitPrice").Double())
			if unit < 100 || unit >= 50000 {
				t.Fatalf("order %d: unitPrice %d cents", i, unit)
			}
			prices[unit] = true
			sum += unit * int64(it.Document().Lookup("quantity").Int32())
		}
		if total := exactCents(t, "total", raw.Lookup("total").Double()); total != sum {
			t.Fatalf("order %d: total %d cents; items add up to %d", i, total, sum)
		}
	}
	if len(prices) < 100 {
		t.Errorf("only %d distinct unit prices over 3,000 orders", len(prices))
	}
}
