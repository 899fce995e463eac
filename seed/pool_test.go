package seed

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// A $pool: the documents share Size values of its element, each value held
// by its weight's share of them (to within a document, the draws being
// stratified), the values following the element's quantiles.
func TestPool(t *testing.T) {
	tmpl, err := ParseTemplate("pool.json", []byte(`{
	 "bookId": {"$pool": {"$number": [1000, 2000], "$type": "int"}, "$size": 100},
	 "shelf": {"$pool": {"$string": "letters", "$lengths": [6, 6]}, "$size": 10, "$weights": [1, 1, 1, 1, 6]}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Seeded: true, Seed: 3, Collections: []CollectionSpec{{Name: "ratings", Template: tmpl, Count: 5000}}}
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Collection("ratings")
	books, shelves := map[int32]int{}, map[string]int{}
	for i := range c.Len() {
		m := docMap(c.Doc(i))
		books[m["bookId"].(int32)]++
		shelves[m["shelf"].(string)]++
	}
	if len(books) < 95 || len(books) > 100 {
		t.Fatalf("%d distinct bookIds; want the pool's 100 (a few may coincide)", len(books))
	}
	var vals []float64
	for v, n := range books {
		if n < 49 {
			t.Errorf("bookId %d in %d documents; want about 50", v, n)
		}
		vals = append(vals, float64(v))
	}
	slices.Sort(vals)
	for k, v := range vals {
		if u := (v - 1000) / 1000; math.Abs(u-float64(k)/float64(len(vals))) > 0.03 {
			t.Fatalf("the pool's values stray from the quantiles: value %d of %d is %v", k, len(vals), v)
		}
	}
	var counts []int
	for _, n := range shelves {
		counts = append(counts, n)
	}
	slices.Sort(counts)
	// Ranked, the two busiest shelves (the last part, weight 6 each) hold
	// 6/10 of the documents, the other eight 1/20 each.
	if len(counts) != 10 || counts[9]+counts[8] < 2990 || counts[9]+counts[8] > 3010 || counts[0] < 245 {
		t.Errorf("documents per shelf %v; want two of 1,500 and eight of 250", counts)
	}
	for _, bad := range []string{`{"x": {"$pool": 1, "$size": 0}}`, `{"x": {"$pool": 1, "$size": 10, "$weights": [-1]}}`, `{"x": {"$pool": 1}}`} {
		if _, err := ParseTemplate("bad.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "$pool") {
			t.Errorf("%s: %v; want an error naming $pool", bad, err)
		}
	}
}
