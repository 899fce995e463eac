package pipeline

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/internal/testbson"
)

// ext is the document the Extended JSON s spells.
var ext = testbson.Doc

// array is the array the Extended JSON s spells, as values.
func array(t *testing.T, s string) []bsoncore.Value {
	t.Helper()
	return bsonval.ArrayValues(bsonval.Lookup(ext(t, `{"x": `+s+`}`), "x"))
}

// docs is the array of documents the Extended JSON s spells.
func docs(t *testing.T, s string) []bsoncore.Document {
	t.Helper()
	var out []bsoncore.Document
	for _, v := range array(t, s) {
		out = append(out, bsoncore.Document(v.Data))
	}
	return out
}

// text is docs as one Extended JSON array, for messages and comparison.
func text(ds []bsoncore.Document) string {
	s := "["
	for i, d := range ds {
		if i > 0 {
			s += ", "
		}
		s += bson.Raw(d).String()
	}
	return s + "]"
}

// testEnv is an Env over the collections colls, each an Extended JSON
// array of documents, whose $out and $merge writes land in written.
func testEnv(t *testing.T, colls map[string]string, written map[string][]bsoncore.Document) *Env {
	return &Env{DB: "d", Vars: &expr.Vars{},
		Read: func(db, coll string) []bsoncore.Document {
			if s, ok := colls[db+"."+coll]; ok {
				return docs(t, s)
			}
			return nil
		},
		Write: func(db, coll string, ds []bsoncore.Document, mode string) error {
			written[mode+" "+db+"."+coll] = ds
			return nil
		},
	}
}

// TestPipelineConformance: examples of MongoDB's manual for the stages,
// run without a server: the input, the pipeline, the output.
func TestPipelineConformance(t *testing.T) {
	colls := map[string]string{
		"d.inventory": `[{"_id": 1, "sku": "a", "qty": 5}, {"_id": 2, "sku": "b", "qty": 0}]`,
		"d.more":      `[{"_id": 9}]`,
	}
	cases := []struct{ in, pipeline, want string }{
		{`[{"_id": 1, "a": 1, "b": 2}, {"_id": 2, "a": 5}]`, `[{"$match": {"a": {"$gt": 2}}}, {"$project": {"a": 1}}]`, `[{"_id": 2, "a": 5}]`},
		{`[{"_id": 1, "s": [1, 2]}, {"_id": 2, "s": []}]`, `[{"$unwind": {"path": "$s", "includeArrayIndex": "i"}}]`,
			`[{"_id": 1, "s": 1, "i": {"$numberLong": "0"}}, {"_id": 1, "s": 2, "i": {"$numberLong": "1"}}]`},
		{`[{"k": "x", "n": 1}, {"k": "y", "n": 2}, {"k": "x", "n": 3}]`, `[{"$group": {"_id": "$k", "t": {"$sum": "$n"}}}, {"$sort": {"_id": 1}}]`,
			`[{"_id": "x", "t": 4}, {"_id": "y", "t": 2}]`},
		{`[{"_id": 1}, {"_id": 2}, {"_id": 3}]`, `[{"$sort": {"_id": -1}}, {"$skip": 1}, {"$limit": 1}]`, `[{"_id": 2}]`},
		{`[{"_id": 1, "a": {"b": 1}}]`, `[{"$set": {"a.c": {"$add": ["$a.b", 1]}}}, {"$unset": "a.b"}]`, `[{"_id": 1, "a": {"c": 2}}]`},
		{`[{"_id": 1, "n": 5}, {"_id": 2, "n": 15}]`, `[{"$bucket": {"groupBy": "$n", "boundaries": [0, 10, 20]}}]`,
			`[{"_id": 0, "count": 1}, {"_id": 10, "count": 1}]`},
		{`[{"_id": 1}, {"_id": 2}]`, `[{"$facet": {"n": [{"$count": "c"}], "first": [{"$limit": 1}]}}]`, `[{"n": [{"c": 2}], "first": [{"_id": 1}]}]`},
		{`[{"_id": 1, "n": 1}, {"_id": 2, "n": 2}]`, `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"r": {"$sum": "$n", "window": {"documents": ["unbounded", "current"]}}}}}]`,
			`[{"_id": 1, "n": 1, "r": 1}, {"_id": 2, "n": 2, "r": 3}]`},
		{`[{"_id": 1, "item": "a"}]`, `[{"$lookup": {"from": "inventory", "localField": "item", "foreignField": "sku", "as": "inv"}}]`,
			`[{"_id": 1, "item": "a", "inv": [{"_id": 1, "sku": "a", "qty": 5}]}]`},
		{`[{"_id": 1}]`, `[{"$unionWith": "more"}]`, `[{"_id": 1}, {"_id": 9}]`},
		{`[]`, `[{"$documents": [{"x": 1}, {"x": 2}]}, {"$replaceWith": {"y": "$x"}}]`, `[{"y": 1}, {"y": 2}]`},
		{`[{"_id": 1, "level": 1, "sub": {"level": 5}}]`, `[{"$redact": {"$cond": [{"$lte": ["$level", 3]}, "$$DESCEND", "$$PRUNE"]}}]`, `[{"_id": 1, "level": 1}]`},
	}
	for _, c := range cases {
		p, err := Compile(array(t, c.pipeline), testEnv(t, colls, nil))
		if err != nil {
			t.Errorf("%s: %v", c.pipeline, err)
			continue
		}
		got, err := p.Run(docs(t, c.in))
		if err != nil {
			t.Errorf("%s on %s: %v", c.pipeline, c.in, err)
			continue
		}
		if want := text(docs(t, c.want)); text(got) != want {
			t.Errorf("%s on %s = %s, want %s", c.pipeline, c.in, text(got), want)
		}
	}
}

// TestPipelineWrites: $out and $merge hand their documents to Env.Write,
// with the mode that says how they are stored, and pass nothing on.
func TestPipelineWrites(t *testing.T) {
	written := map[string][]bsoncore.Document{}
	env := testEnv(t, nil, written)
	for _, s := range []string{`[{"$out": "o"}]`, `[{"$out": {"db": "e", "coll": "o"}}]`, `[{"$merge": {"into": "m", "whenMatched": "keepExisting"}}]`} {
		p, err := Compile(array(t, s), env)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if out, err := p.Run(docs(t, `[{"_id": 1}]`)); err != nil || len(out) != 0 {
			t.Errorf("%s = %s, %v; want nothing", s, text(out), err)
		}
	}
	for _, k := range []string{"$out d.o", "$out e.o", "keepExisting d.m"} {
		if got := text(written[k]); got != text(docs(t, `[{"_id": 1}]`)) {
			t.Errorf("written %s = %s", k, got)
		}
	}
}

// TestPipelineRefusals: errors with MongoDB's codes, and the stages the
// package leaves to Env.Stage.
func TestPipelineRefusals(t *testing.T) {
	for s, code := range map[string]mongoerr.Code{
		`[{"$bogus": {}}]`:                     40324,
		`[{"$changeStream": {}}]`:              40324, // the engine's, through Env.Stage
		`[{"$out": "a"}, {"$match": {}}]`:      40601,
		`[{"$match": {}}, {"$documents": []}]`: 40602,
		`[{"$match": {}, "$limit": 1}]`:        40323,
		`[1]`:                                  mongoerr.TypeMismatch,
		`[{"$limit": 0}]`:                      15958,
		`[{"$skip": -1}]`:                      5107200,
		`[{"$match": 1}]`:                      15955,
		`[{"$facet": {"f": [{"$out": "x"}]}}]`: 40600,
		`[{"$unionWith": "a$b"}]`:              mongoerr.InvalidNamespace,
		`[{"$count": "$n"}]`:                   40156,
		`[{"$project": {}}]`:                   51272,
		`[{"$project": {"a": 1, "b": 0}}]`:     31254,
	} {
		_, err := Compile(array(t, s), testEnv(t, nil, nil))
		if err == nil || mongoerr.As(err).Code != code {
			t.Errorf("%s: %v; want code %d", s, err, code)
		}
	}
}

// TestEnvStage: a stage the package has not is compiled by Env.Stage, and
// one it has never reaches it.
func TestEnvStage(t *testing.T) {
	var asked []string
	env := testEnv(t, nil, nil)
	env.Stage = func(name string, arg bsoncore.Value) (Stage, bool, error) {
		asked = append(asked, name)
		switch name {
		case "$listLocalSessions":
			return func([]bsoncore.Document) ([]bsoncore.Document, error) { return docs(t, `[{"s": 1}]`), nil }, true, nil
		case "$search":
			return nil, true, mongoerr.New(mongoerr.SearchNotEnabled, "no search")
		}
		return nil, false, nil
	}
	p, err := Compile(array(t, `[{"$listLocalSessions": {}}, {"$match": {"s": 1}}]`), env)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := p.Run(nil); err != nil || text(out) != text(docs(t, `[{"s": 1}]`)) {
		t.Errorf("= %s, %v", text(out), err)
	}
	if _, err := Compile(array(t, `[{"$search": {}}]`), env); !mongoerr.Is(err, mongoerr.SearchNotEnabled) {
		t.Errorf("$search: %v; want the hook's error", err)
	}
	if _, err := Compile(array(t, `[{"$nope": {}}]`), env); !mongoerr.Is(err, mongoerr.Location(40324)) {
		t.Errorf("$nope: %v; want 40324", err)
	}
	if want := "[$listLocalSessions $search $nope]"; fmt.Sprint(asked) != want {
		t.Errorf("asked %v, want %s", asked, want)
	}
}

// TestProjection: find's projection, the positional "a.$" served by the
// position a filter matched at.
func TestProjection(t *testing.T) {
	doc := ext(t, `{"_id": 1, "a": [5, 6, 7], "b": {"c": 1, "d": 2}, "e": [{"x": 1}, {"x": 2}]}`)
	for spec, want := range map[string]string{
		`{"a.$": 1}`:                           `{"_id": 1, "a": [6]}`,
		`{"b.c": 1, "_id": 0}`:                 `{"b": {"c": 1}}`,
		`{"a": {"$slice": -1}, "b": 0}`:        `{"_id": 1, "a": [7], "e": [{"x": 1}, {"x": 2}]}`,
		`{"e": {"$elemMatch": {"x": 2}}}`:      `{"_id": 1, "e": [{"x": 2}]}`,
		`{"n": {"$size": "$a"}, "_id": 0}`:     `{"n": 3}`,
		`{"b.d": 0, "e": 0, "a": 0, "_id": 0}`: `{"b": {"c": 1}}`,
	} {
		p, err := CompileProjection(ext(t, spec), nil)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		got, err := p.Project(doc, 1, true)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if w := ext(t, want); string(got) != string(w) {
			t.Errorf("%s = %s, want %s", spec, bson.Raw(got), bson.Raw(w))
		}
	}
}
