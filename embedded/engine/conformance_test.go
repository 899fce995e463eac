package engine

import (
	"testing"

	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/internal/testbson"
)

// ext is the document the Extended JSON s spells.
var ext = testbson.Doc

// TestQueryExpr: $expr in a filter, compiled by the engine's expressions.
func TestQueryExpr(t *testing.T) {
	cases := []struct {
		doc, filter string
		want        bool
	}{
		{`{"a": 10}`, `{"$expr": {"$gt": ["$a", 9]}}`, true},
		{`{"a": 10, "b": 12}`, `{"$expr": {"$gt": ["$a", "$b"]}}`, false},
	}
	for _, c := range cases {
		f, err := compileFilter(ext(t, c.filter), nil)
		if err != nil {
			t.Errorf("%s: %v", c.filter, err)
			continue
		}
		if got := f.Match(ext(t, c.doc)); got != c.want {
			t.Errorf("%s matches %s = %v, want %v", c.filter, c.doc, got, c.want)
		}
	}
	if _, err := compileFilter(ext(t, `{"$expr": {"$bogus": 1}}`), nil); err == nil || mongoErrCode(err) != 168 {
		t.Errorf("$expr with an unknown operator: %v; want code 168", err)
	}
}

func mongoErrCode(err error) int32 { return int32(mongoerr.As(err).Code) }
