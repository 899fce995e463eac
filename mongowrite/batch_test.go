package mongowrite_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/mongowrite"
)

// A batch ends at its count or before the document that would take it past
// BatchBytes, whichever comes first; a first document always fits.
func TestCut(t *testing.T) {
	doc := func(n int) bson.Raw { return make(bson.Raw, n) }
	big := mongowrite.BatchBytes / 3
	for _, c := range []struct {
		name string
		docs []bson.Raw
		max  int
		want int
	}{
		{"empty", nil, 10, 0},
		{"by count", []bson.Raw{doc(10), doc(10), doc(10)}, 2, 2},
		{"default count", make([]bson.Raw, mongowrite.DefaultBatch+5), 0, mongowrite.DefaultBatch},
		{"by bytes", []bson.Raw{doc(big), doc(big), doc(big), doc(big)}, 10, 3},
		{"up to the bound", []bson.Raw{doc(mongowrite.BatchBytes - 10), doc(10), doc(1)}, 10, 2},
		{"one over the bound alone", []bson.Raw{doc(mongowrite.BatchBytes + 1), doc(1)}, 10, 1},
	} {
		if got := mongowrite.Cut(c.docs, c.max); got != c.want {
			t.Errorf("%s: Cut = %d, want %d", c.name, got, c.want)
		}
	}
	if !mongowrite.Fits(0, 0, mongowrite.BatchBytes+1, 1) || mongowrite.Fits(1, 0, 1, 1) || mongowrite.Fits(1, mongowrite.BatchBytes, 1, 5) {
		t.Error("Fits: a first document always fits; a full count or the bytes bound does not")
	}
}

// TestCheckLimits: the limits a caller's batch size and inserters are held
// to, at and past each edge, and what the error says.
func TestCheckLimits(t *testing.T) {
	for _, c := range []struct {
		check func(int) error
		n     int
		want  string
	}{
		{mongowrite.CheckBatch, 1, ""}, {mongowrite.CheckBatch, mongowrite.MaxBatch, ""},
		{mongowrite.CheckBatch, 0, "0: expected 1 to 100000"}, {mongowrite.CheckBatch, mongowrite.MaxBatch + 1, "100001: expected 1 to 100000"}, {mongowrite.CheckBatch, -3, "-3: expected 1 to 100000"},
		{mongowrite.CheckWorkers, 1, ""}, {mongowrite.CheckWorkers, mongowrite.MaxWorkers, ""},
		{mongowrite.CheckWorkers, 0, "0: expected 1 to 64"}, {mongowrite.CheckWorkers, mongowrite.MaxWorkers + 1, "65: expected 1 to 64"},
	} {
		err := c.check(c.n)
		if got := fmt.Sprint(err); (c.want == "" && err != nil) || (c.want != "" && got != c.want) {
			t.Errorf("check(%d) = %v, want %q", c.n, err, c.want)
		}
	}
}
