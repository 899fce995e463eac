package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

func ext(t *testing.T, s string) bsoncore.Document {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

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
