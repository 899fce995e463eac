package update

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/internal/testbson"
)

// ext is the document the Extended JSON s spells.
var ext = testbson.Doc

// TestUpdateConformance: examples of MongoDB's manual for each update
// operator: the document before, the update, the document after.
func TestUpdateConformance(t *testing.T) {
	cases := []struct {
		doc, filter, update, af, want string
	}{
		{`{"_id": 1, "a": 1}`, `{}`, `{"$set": {"b.c": 2}}`, ``, `{"_id": 1, "a": 1, "b": {"c": 2}}`},
		{`{"_id": 1, "a": [1, 2]}`, `{}`, `{"$set": {"a.4": 9}}`, ``, `{"_id": 1, "a": [1, 2, null, null, 9]}`},
		{`{"_id": 1, "a": 1, "b": 2}`, `{}`, `{"$unset": {"a": ""}}`, ``, `{"_id": 1, "b": 2}`},
		{`{"_id": 1, "a": 2147483647}`, `{}`, `{"$inc": {"a": 1}}`, ``, `{"_id": 1, "a": {"$numberLong": "2147483648"}}`},
		{`{"_id": 1, "a": 2}`, `{}`, `{"$mul": {"a": 2.5}}`, ``, `{"_id": 1, "a": 5.0}`},
		{`{"_id": 1}`, `{}`, `{"$mul": {"a": 2}}`, ``, `{"_id": 1, "a": 0}`},
		{`{"_id": 1, "a": 5}`, `{}`, `{"$min": {"a": 3}, "$max": {"b": 1}}`, ``, `{"_id": 1, "a": 3, "b": 1}`},
		{`{"_id": 1, "a": 1, "z": 0}`, `{}`, `{"$rename": {"a": "b.c"}}`, ``, `{"_id": 1, "z": 0, "b": {"c": 1}}`},
		{`{"_id": 1, "s": [5, 1]}`, `{}`, `{"$push": {"s": {"$each": [3, 9], "$sort": -1, "$slice": 3}}}`, ``, `{"_id": 1, "s": [9, 5, 3]}`},
		{`{"_id": 1, "s": [5, 1]}`, `{}`, `{"$push": {"s": {"$each": [7], "$position": 0}}}`, ``, `{"_id": 1, "s": [7, 5, 1]}`},
		{`{"_id": 1, "s": [1, 2]}`, `{}`, `{"$addToSet": {"s": {"$each": [2.0, 3]}}}`, ``, `{"_id": 1, "s": [1, 2, 3]}`},
		{`{"_id": 1, "s": [1, 2, 3]}`, `{}`, `{"$pop": {"s": -1}}`, ``, `{"_id": 1, "s": [2, 3]}`},
		{`{"_id": 1, "s": [1, 5, 8]}`, `{}`, `{"$pull": {"s": {"$gte": 5}}}`, ``, `{"_id": 1, "s": [1]}`},
		{`{"_id": 1, "s": [{"x": 1}, {"x": 2}]}`, `{}`, `{"$pull": {"s": {"x": 2}}}`, ``, `{"_id": 1, "s": [{"x": 1}]}`},
		{`{"_id": 1, "s": [1, 2, 1]}`, `{}`, `{"$pullAll": {"s": [1]}}`, ``, `{"_id": 1, "s": [2]}`},
		{`{"_id": 1, "a": 13}`, `{}`, `{"$bit": {"a": {"and": 10}}}`, ``, `{"_id": 1, "a": 8}`},
		{`{"_id": 1, "g": [80, 95, 85]}`, `{"g": 95}`, `{"$set": {"g.$": 96}}`, ``, `{"_id": 1, "g": [80, 96, 85]}`},
		{`{"_id": 1, "g": [80, 95, 85]}`, `{}`, `{"$inc": {"g.$[]": 1}}`, ``, `{"_id": 1, "g": [81, 96, 86]}`},
		{`{"_id": 1, "g": [80, 95, 85]}`, `{}`, `{"$set": {"g.$[e]": 100}}`, `[{"e": {"$gte": 85}}]`, `{"_id": 1, "g": [80, 100, 100]}`},
		{`{"_id": 1, "a": 1}`, `{}`, `{"b": 2}`, ``, `{"_id": 1, "b": 2}`},
	}
	for _, c := range cases {
		var afs []bsoncore.Value
		if c.af != "" {
			afs = bsonval.ArrayValues(bsonval.Lookup(ext(t, `{"x": `+c.af+`}`), "x"))
		}
		u, err := Compile(bsonval.Doc(ext(t, c.update)), afs, nil, nil)
		if err != nil {
			t.Errorf("%s: %v", c.update, err)
			continue
		}
		f, _ := compileFilter(ext(t, c.filter), nil)
		doc := ext(t, c.doc)
		_, pos := f.MatchPos(doc)
		got, err := u.Apply(doc, pos, false)
		if err != nil {
			t.Errorf("%s on %s: %v", c.update, c.doc, err)
			continue
		}
		if want := ext(t, c.want); string(got) != string(want) {
			t.Errorf("%s on %s = %s, want %s", c.update, c.doc, bson.Raw(got), bson.Raw(want))
		}
	}
}

// TestUpdateRefusals: errors with MongoDB's codes.
func TestUpdateRefusals(t *testing.T) {
	doc := ext(t, `{"_id": 1, "a": "x", "n": 5}`)
	for update, code := range map[string]mongoerr.Code{
		`{"$inc": {"a": 1}}`:                   14,
		`{"$set": {"_id": 2}}`:                 66,
		`{"$set": {"a.b": 1}}`:                 28,
		`{"$set": {"n": 1}, "$inc": {"n": 1}}`: 40,
		`{"$foo": {"n": 1}}`:                   9,
		`{"$set": {"g.$": 1}}`:                 2,
	} {
		u, err := Compile(bsonval.Doc(ext(t, update)), nil, nil, nil)
		if err == nil {
			_, err = u.Apply(doc, -1, false)
		}
		if err == nil || mongoerr.As(err).Code != code {
			t.Errorf("%s: %v; want code %d", update, err, code)
		}
	}
}
