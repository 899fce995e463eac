package seed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// planWith parses a plan file of one collection whose JSON body is coll.
func planWith(t *testing.T, coll string, files map[string]string) (*Plan, error) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := ParsePlan("plan.json", []byte(`{"collections": [`+coll+`]}`), dir)
	if err != nil {
		return nil, err
	}
	p.Seeded = true
	_, err = p.Build()
	return p, err
}

func TestPlanIndexes(t *testing.T) {
	p, err := planWith(t, `{"name": "users", "kind": "user", "count": 3, "indexes": [
		{"key": {"email": 1}, "unique": true},
		{"key": {"createdAt": 1}, "expireAfterSeconds": 86400},
		{"key": {"username": 1, "createdAt": -1}, "unique": true},
		{"key": {"active": 1}, "partialFilterExpression": {"active": {"$eq": true}}},
		{"key": {"address.city": 1, "_id": 1}, "unique": true, "name": "by_city"}]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Collections[0].Indexes
	names := []string{"email_1", "createdAt_1", "username_1_createdAt_-1", "active_1", "by_city"}
	if len(got) != len(names) {
		t.Fatalf("indexes %v", got)
	}
	for k, ix := range got {
		if ix.NameOrDefault() != names[k] {
			t.Errorf("index %d named %q, want %q", k, ix.NameOrDefault(), names[k])
		}
	}
	if !got[0].Unique || *got[1].ExpireAfterSeconds != 86400 || got[3].PartialFilterExpression == nil {
		t.Errorf("options lost: %v", got)
	}

	tmpl := map[string]string{"t.json": `{"sku": "SKU-{index}", "label": "{noun}", "dims": {"w": "{number:1,9}"}, "parts": [{"pn": "x"}], "when": "{date}"}`}
	if _, err := planWith(t, `{"name": "items", "template": "t.json", "count": 2, "indexes": [
		{"key": {"sku": 1}, "unique": true}, {"key": {"dims.w": -1}}, {"key": {"parts.pn": 1}}, {"key": {"label": 1, "sku": 1}, "unique": true}]}`, tmpl); err != nil {
		t.Errorf("template indexes: %v", err)
	}

	bad := []struct {
		coll  string
		files map[string]string
		want  string
	}{
		{`{"name": "users", "kind": "user", "count": 3, "indexes": [{"key": {"email": 1}}, {"key": {"emial": 1}}]}`, nil,
			`collection "users": indexes[1]: index "emial_1": the documents have no field "emial"; expected _id or one of firstName, lastName`},
		{`{"name": "users", "kind": "user", "count": 3, "indexes": [{"key": {"age": 1}, "unique": true}]}`, nil,
			`index "age_1": unique on age, which is not unique by construction: a seeded unique field must never collide; expected a key with _id or one of username, email`},
		{`{"name": "users", "kind": "user", "count": 3, "indexes": [{"key": {"age": 1, "name": 1}, "unique": true, "sparse": true}]}`, nil,
			`unique on age, name, which is not unique by construction`},
		{`{"name": "users", "kind": "user", "count": 3, "indexes": [{"key": {"email": 0}}]}`, nil,
			`collections[0] (users): indexes[0]: invalid index: key.email 0: expected 1 (ascending)`},
		{`{"name": "users", "kind": "user", "count": 3, "indexes": [{"key": {"email": 1}, "ttl": 5}]}`, nil,
			`indexes[0]: invalid index "email_1": "ttl": unknown setting`},
		{`{"name": "users", "kind": "user", "count": 3, "indexes": [{"key": {"email": 1}}, {"key": {"age": 1}, "name": "email_1"}]}`, nil,
			`indexes[1]: invalid index "email_1": name "email_1": indexes 0 and 1 have this name`},
		{`{"name": "users", "kind": "user", "count": 3, "indexes": [{"key": {"address.nowhere": 1}}]}`, nil,
			`indexes[0]: index "address.nowhere_1": the documents have no field "address.nowhere"`},
		{`{"name": "users", "kind": "user", "count": 3, "indexes": [{"key": {"name": 1}, "expireAfterSeconds": 60}]}`, nil,
			`index "name_1": a TTL index expires documents by a date, and "name" holds string; expected a date field`},
		{`{"name": "items", "template": "t.json", "count": 2, "indexes": [{"key": {"label": 1}, "unique": true}]}`, tmpl,
			`unique on label, which is not unique by construction: a seeded unique field must never collide; expected a key with _id or a field whose template value holds {index} between literal text`},
		{`{"name": "items", "template": "t.json", "count": 2, "indexes": [{"key": {"dims.h": 1}}]}`, tmpl,
			`the documents have no field "dims.h" (template`},
		{`{"name": "items", "template": "t.json", "count": 2, "indexes": [{"key": {"when": 1}, "expireAfterSeconds": 1}]}`, tmpl,
			`"when" holds string; expected a date field`},
	}
	for _, c := range bad {
		_, err := planWith(t, c.coll, c.files)
		var pe *PlanError
		if !errors.As(err, &pe) || pe.Setting != SettingIndexes || !errors.Is(err, ErrPlan) {
			t.Errorf("%s: %v; want an indexes PlanError", c.coll, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n  got  %v\n  want %q in it", c.coll, err, c.want)
		}
	}
}

// The built-in shop plan declares its indexes, and they pass the plan's
// rules (unique ones on fields unique by construction).
func TestShopPlanIndexes(t *testing.T) {
	p, err := BuiltinPlan("shop", 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Build(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"users": "email_1 username_1", "products": "code_1 category_1", "orders": "number_1 userId_1 status_1"}
	for _, cs := range p.Collections {
		var names []string
		for _, ix := range cs.Indexes {
			names = append(names, ix.NameOrDefault())
		}
		if strings.Join(names, " ") != want[cs.Name] {
			t.Errorf("%s: indexes %v, want %s", cs.Name, names, want[cs.Name])
		}
	}
}

// A plan record keeps the indexes, and the plan rebuilt from it has them.
func TestPlanRecordKeepsIndexes(t *testing.T) {
	p, _ := BuiltinPlan("shop", 10)
	p.Seeded = true
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	m := NewPlanRecord(ds)
	raw, err := bson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back PlanRecord
	if err := bson.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	q, err := back.Plan("users")
	if err != nil {
		t.Fatal(err)
	}
	for k, cs := range q.Collections {
		if len(cs.Indexes) != len(p.Collections[k].Indexes) {
			t.Fatalf("%s: %v, want %v", cs.Name, cs.Indexes, p.Collections[k].Indexes)
		}
		for j, ix := range cs.Indexes {
			if ix.String() != p.Collections[k].Indexes[j].String() {
				t.Errorf("%s: %s, want %s", cs.Name, ix, p.Collections[k].Indexes[j])
			}
		}
	}
	// Indexes do not change the documents: a plan without them is the same run.
	p2, _ := BuiltinPlan("shop", 10)
	p2.Seeded = true
	for k := range p2.Collections {
		p2.Collections[k].Indexes = nil
	}
	ds2, _ := p2.Build()
	r := NewPlanRecord(ds2)
	if d := m.Diff(&r); d != nil {
		t.Errorf("Diff sees the indexes: %v", d)
	}
}

// A template value is unique by construction only when the document
// number can be read back from it. The oracle: every value of 20,000
// documents generated, compared.
func TestTemplateUniqueByConstruction(t *testing.T) {
	cases := map[string]bool{
		`REV-{index}`: true, `user{index}@example.com`: true, `{firstname}.{index}@example.org`: true, `{index}`: true,
		`{index}-{word}`: true, `k{index}`: true, `{number:1,100}{index}`: false, `{index}{number:1,9}`: false,
		`{number:1,9}1{index}`: false, `{word}`: false, `A{index}1{number:1,9}`: false,
	}
	for pattern, want := range cases {
		tm, err := ParseTemplate("t.json", []byte(`{"v": "`+pattern+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := tm.indexed["v"]; got != want {
			t.Errorf("%s: unique by construction %v, want %v", pattern, got, want)
		}
		if !want && pattern != `{number:1,100}{index}` {
			continue
		}
		p := &Plan{Seed: 5, Seeded: true, Collections: []CollectionSpec{{Name: "c", Template: tm, Count: 20000}}}
		ds, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		c := ds.Collection("c")
		seen := map[string]int64{}
		dups := 0
		for i := range c.Len() {
			v := fmt.Sprint(c.Doc(i)[1].Value)
			if j, dup := seen[v]; dup && want {
				t.Fatalf("%s: documents %d and %d both hold %q", pattern, j, i, v)
			} else if dup {
				dups++
			}
			seen[v] = i
		}
		if !want && dups == 0 {
			t.Errorf("%s: no collision in %d documents; the refusal is not needed?", pattern, c.Len())
		}
	}
}
