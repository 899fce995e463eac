package query

import (
	"testing"

	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/internal/testbson"
)

// ext is the document the Extended JSON s spells.
var ext = testbson.Doc

func mongoErrCode(err error) int32 { return int32(mongoerr.As(err).Code) }

// TestQueryConformance: examples of MongoDB's manual ("Query and
// Projection Operators", "Query an Array", "Query for Null or Missing
// Fields", "Comparison/Sort Order"), each a document, a filter and whether
// the filter matches.
func TestQueryConformance(t *testing.T) {
	cases := []struct {
		doc, filter string
		want        bool
	}{
		{`{"a": 1}`, `{"a": {"$numberLong": "1"}}`, true},
		{`{"a": 1}`, `{"a": 1.0}`, true},
		{`{"a": {"$numberDecimal": "1.0"}}`, `{"a": 1}`, true},
		{`{"b": 1}`, `{"a": null}`, true},
		{`{"a": null}`, `{"a": null}`, true},
		{`{"a": [1, null]}`, `{"a": null}`, true},
		{`{"a": 0}`, `{"a": null}`, false},
		{`{"a": [1, 5]}`, `{"a": 5}`, true},
		{`{"a": [1, 5]}`, `{"a": [1, 5]}`, true},
		{`{"a": [1, 5]}`, `{"a": [5, 1]}`, false},
		{`{"a": [[1, 5]]}`, `{"a": [1, 5]}`, true},
		{`{"a": [1, 15]}`, `{"a": {"$gt": 10, "$lt": 5}}`, true},
		{`{"a": [1, 15]}`, `{"a": {"$elemMatch": {"$gt": 10, "$lt": 5}}}`, false},
		{`{"a": [8, 15]}`, `{"a": {"$elemMatch": {"$gt": 5, "$lt": 10}}}`, true},
		{`{"a": "x"}`, `{"a": {"$gt": 1}}`, false},
		{`{"a": 2}`, `{"a": {"$gt": "1"}}`, false},
		{`{"a": [{"b": 1}, {"b": 2}]}`, `{"a.b": 2}`, true},
		{`{"a": [{"b": 1}, {"b": 2}]}`, `{"a.1.b": 2}`, true},
		{`{"a": [{"b": 1}, {"b": 2}]}`, `{"a.0.b": 2}`, false},
		{`{"a": [{"b": 1}, {"c": 2}]}`, `{"a.b": {"$exists": true}}`, true},
		{`{"a": [{"c": 2}]}`, `{"a.b": {"$exists": true}}`, false},
		{`{"a": [1, 2]}`, `{"a": {"$ne": 2}}`, false},
		{`{"a": [1, 2]}`, `{"a": {"$nin": [3, 4]}}`, true},
		{`{"a": [1, 2, 3]}`, `{"a": {"$all": [3, 1]}}`, true},
		{`{"a": [1, 2, 3]}`, `{"a": {"$size": 3}}`, true},
		{`{"a": [1, 2, 3]}`, `{"a": {"$size": 2}}`, false},
		{`{"a": 5.5}`, `{"a": {"$type": "number"}}`, true},
		{`{"a": [1, "x"]}`, `{"a": {"$type": "string"}}`, true},
		{`{"a": "Hello"}`, `{"a": {"$regex": "^hel", "$options": "i"}}`, true},
		{`{"a": "Hello"}`, `{"a": {"$regularExpression": {"pattern": "^hel", "options": ""}}}`, false},
		{`{"a": "Hello"}`, `{"a": {"$in": [{"$regularExpression": {"pattern": "llo$", "options": ""}}]}}`, true},
		{`{"a": 10}`, `{"a": {"$mod": [4, 2]}}`, true},
		{`{"a": 5}`, `{"$or": [{"a": 1}, {"a": {"$gte": 5}}]}`, true},
		{`{"a": 5}`, `{"$nor": [{"a": 1}, {"a": {"$gte": 5}}]}`, false},
		{`{"a": 5}`, `{"a": {"$not": {"$gt": 6}}}`, true},
		{`{"b": 1}`, `{"a": {"$not": {"$gt": 6}}}`, true},
		{`{"a": 54}`, `{"a": {"$bitsAllSet": [1, 2, 4, 5]}}`, true},
		{`{"a": {"$minKey": 1}}`, `{"a": {"$lt": null}}`, false},
		{`{"a": {"b": 1, "c": 2}}`, `{"a": {"b": 1, "c": 2}}`, true},
		{`{"a": {"b": 1, "c": 2}}`, `{"a": {"c": 2, "b": 1}}`, false},
		{`{"a": {"b": 1}}`, `{"$jsonSchema": {"required": ["a"], "properties": {"a": {"bsonType": "object"}}}}`, true},
		{`{"a": 1}`, `{"$jsonSchema": {"required": ["b"]}}`, false},
	}
	for _, c := range cases {
		f, err := Compile(ext(t, c.filter), nil)
		if err != nil {
			t.Errorf("%s: %v", c.filter, err)
			continue
		}
		if got := f.Match(ext(t, c.doc)); got != c.want {
			t.Errorf("%s matches %s = %v, want %v", c.filter, c.doc, got, c.want)
		}
	}
}

// TestQueryRefusals: operators the server does not have are refused by
// name, with MongoDB's codes.
func TestQueryRefusals(t *testing.T) {
	for filter, code := range map[string]int32{
		`{"$text": {"$search": "x"}}`: 2,
		`{"$where": "true"}`:          2,
		`{"a": {"$near": [0, 0]}}`:    2,
		`{"a": {"$foo": 1}}`:          2,
		`{"$foo": 1}`:                 2,
		`{"a": {"$regex": "("}}`:      51091,
		`{"a": {"$in": 1}}`:           2,
		`{"$and": []}`:                2,
		`{"$expr": {"$eq": [1, 1]}}`:  2, // no expression compiler in Options
	} {
		_, err := Compile(ext(t, filter), nil)
		if err == nil || int32(mongoErrCode(err)) != code {
			t.Errorf("%s: %v; want code %d", filter, err, code)
		}
	}
}
