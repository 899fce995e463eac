package engine

import (
	"runtime"
	"slices"
	"sync"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// buildMinDocs is the collection size from which an index build splits its
// work: below it, one goroutine is faster than starting others.
const buildMinDocs = 4096

// buildEntries computes ix's entries over c's documents in index order: the
// documents are split into one part per CPU, each part's keys are computed
// and sorted on a goroutine of its own, and the sorted parts are merged.
// The error is the one of the earliest part that failed; ix.multikey is set
// if any document holds an array on the key.
func buildEntries(c *collection, ix *index) ([]ientry, error) {
	var recs []*record
	c.scan(func(r *record) bool {
		recs = append(recs, r)
		return true
	})
	parts := runtime.GOMAXPROCS(0)
	if len(recs) < buildMinDocs || parts < 1 {
		parts = 1
	}
	sorted := make([][]ientry, parts)
	errs := make([]error, parts)
	multi := make([]bool, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := len(recs)*p/parts, len(recs)*(p+1)/parts
		wg.Go(func() {
			entries := make([]ientry, 0, hi-lo)
			for _, r := range recs[lo:hi] {
				ks, m, err := ix.keys(r.doc)
				if err != nil {
					errs[p] = err
					return
				}
				multi[p] = multi[p] || m
				for _, k := range ks {
					entries = append(entries, ientry{k, r.id})
				}
			}
			slices.SortFunc(entries, ix.compare)
			sorted[p] = entries
		})
	}
	wg.Wait()
	for p := range parts {
		if errs[p] != nil {
			return nil, errs[p]
		}
		if multi[p] {
			ix.multikey = true
		}
	}
	for len(sorted) > 1 {
		var next [][]ientry
		for i := 0; i < len(sorted); i += 2 {
			if i+1 == len(sorted) {
				next = append(next, sorted[i])
				continue
			}
			next = append(next, mergeEntries(sorted[i], sorted[i+1], ix.compare))
		}
		sorted = next
	}
	return sorted[0], nil
}

// mergeEntries merges two sorted runs of entries.
func mergeEntries(a, b []ientry, cmp func(x, y ientry) int) []ientry {
	out := make([]ientry, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if cmp(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// compare orders entries as the index does: by key, then by _id.
func (ix *index) compare(a, b ientry) int {
	if c := ix.cmpVals(a.vals, b.vals); c != 0 {
		return c
	}
	return bsonval.Compare(a.id, b.id)
}
