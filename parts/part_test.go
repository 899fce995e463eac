package parts_test

import (
	"errors"
	"math"
	"slices"
	"testing"
	"testing/quick"

	"github.com/oidkit/oidkit/parts"
)

// tiles checks that the n ranges of count tile [0, count) in order.
func tiles(t *testing.T, count, n int64) {
	t.Helper()
	next := int64(0)
	for i := range n {
		r := parts.Part{I: i, N: n}.Range(count)
		if r.From != next || r.To < r.From {
			t.Fatalf("count %d, part %d/%d: %v, expected to start at %d", count, i, n, r, next)
		}
		if l := r.Len(); l < count/n || l > count/n+1 {
			t.Fatalf("count %d, part %d/%d: %d documents, expected %d or %d", count, i, n, l, count/n, count/n+1)
		}
		next = r.To
	}
	if next != count {
		t.Fatalf("count %d, %d parts end at %d", count, n, next)
	}
}

func TestPartRangesTile(t *testing.T) {
	for count := int64(0); count <= 40; count++ {
		for n := int64(1); n <= 50; n++ {
			tiles(t, count, n)
		}
	}
	err := quick.Check(func(count uint32, n uint16) bool {
		tiles(t, int64(count)*1000+int64(n), int64(n%5000)+1)
		return true
	}, &quick.Config{MaxCount: 200})
	if err != nil {
		t.Fatal(err)
	}
	// No overflow at the largest counts.
	for _, n := range []int64{1, 3, 7, parts.Max} {
		last := parts.Part{I: n - 1, N: n}.Range(math.MaxInt64)
		if last.To != math.MaxInt64 {
			t.Fatalf("last part of %d: %v", n, last)
		}
	}
}

func TestPartWhole(t *testing.T) {
	if r := (parts.Part{}).Range(10); r != (parts.Range{From: 0, To: 10}) {
		t.Fatalf("zero Part: %v", r)
	}
}

func TestParsePart(t *testing.T) {
	for _, ok := range []struct {
		in   string
		want parts.Part
	}{{"0/1", parts.Part{0, 1}}, {"3/16", parts.Part{3, 16}}, {"15/16", parts.Part{15, 16}}} {
		p, err := parts.Parse(ok.in)
		if err != nil || p != ok.want {
			t.Errorf("ParsePart(%q) = %v, %v", ok.in, p, err)
		}
		if p.String() != ok.in {
			t.Errorf("%v.String() = %q", p, p.String())
		}
	}
	for _, bad := range []string{"", "3", "16/16", "-1/4", "1/0", "a/b", "1/2/3", "0/2000000"} {
		_, err := parts.Parse(bad)
		var pe *parts.Error
		if !errors.As(err, &pe) || pe.Value != bad || !errors.Is(err, parts.ErrInvalid) {
			t.Errorf("ParsePart(%q): %v, expected a *PartError naming it", bad, err)
		}
	}
	if s := (parts.Part{I: 3, N: 16}).Suffix(); s != "part-0003-of-0016" {
		t.Errorf("Suffix: %q", s)
	}
}

func TestMergeRanges(t *testing.T) {
	got := parts.Merge([]parts.Range{{From: 5, To: 7}, {From: 0, To: 2}, {From: 2, To: 3}, {From: 6, To: 9}, {From: 4, To: 4}})
	if want := []parts.Range{{From: 0, To: 3}, {From: 5, To: 9}}; !slices.Equal(got, want) {
		t.Fatalf("MergeRanges: %v, want %v", got, want)
	}
}
