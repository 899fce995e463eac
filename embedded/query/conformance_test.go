package query

import (
	"strings"
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

// TestInIsAnOrOfEqualities: the manual's $in matches a field equal to any
// of its values (an array field: any element, or the whole array; a regex:
// a string it matches), which is the $or of the equalities; its values
// looked up in sorted order must match exactly those documents, across
// types, numbers of every kind equal by value, arrays and missing fields.
func TestInIsAnOrOfEqualities(t *testing.T) {
	values := []string{`1`, `{"$numberLong": "7"}`, `2.5`, `{"$numberDouble": "NaN"}`, `{"$numberDecimal": "9"}`, `"b"`, `"a"`,
		`{"$oid": "507f1f77bcf86cd799439011"}`, `{"$date": {"$numberLong": "1000"}}`, `true`, `null`, `{"$regularExpression": {"pattern": "^z", "options": ""}}`,
		`{"x": 1}`, `[1, 2]`, `{"$numberLong": "-3"}`, `"c"`, `false`}
	docs := []string{`{}`, `{"a": 1.0}`, `{"a": {"$numberLong": "1"}}`, `{"a": 7}`, `{"a": 7.5}`, `{"a": {"$numberDecimal": "2.5"}}`, `{"a": 9}`,
		`{"a": {"$numberDouble": "NaN"}}`, `{"a": "a"}`, `{"a": "zed"}`, `{"a": "d"}`, `{"a": {"$oid": "507f1f77bcf86cd799439011"}}`,
		`{"a": {"$oid": "507f1f77bcf86cd799439012"}}`, `{"a": {"$date": {"$numberLong": "1000"}}}`, `{"a": 1000}`, `{"a": false}`,
		`{"a": null}`, `{"a": [4, "c"]}`, `{"a": [[1, 2]]}`, `{"a": [2, 1]}`, `{"a": {"x": 1}}`, `{"a": [{"x": 2}, -3]}`, `{"a": -3.0}`}
	for n := 1; n <= len(values); n += 4 {
		list := values[:n]
		or := make([]string, len(list))
		for i, v := range list {
			or[i] = `{"a": ` + v + `}`
		}
		in, err := Compile(ext(t, `{"a": {"$in": [`+strings.Join(list, ", ")+`]}}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		nin, err := Compile(ext(t, `{"a": {"$nin": [`+strings.Join(list, ", ")+`]}}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Compile(ext(t, `{"$or": [`+strings.Join(or, ", ")+`]}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			doc := ext(t, d)
			if w := want.Match(doc); in.Match(doc) != w || nin.Match(doc) == w {
				t.Errorf("%s against the first %d values: $in %v, $nin %v; the $or of equalities %v", d, n, in.Match(doc), nin.Match(doc), w)
			}
		}
	}
}
