package seed

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

const reviewTemplate = `{
  "sku": "REV-{index}",
  "author": {"first": "{firstname}", "last": "{lastname}", "email": "{firstname}.{index}@example.com"},
  "rating": "{number:1,5}",
  "helpful": "{bool}",
  "score": "{float64range:0,1}",
  "tags": ["{word}", "fixed", 3, 2.5, true, null],
  "note": "say {noun} loudly",
  "big": 9007199254740993,
  "empty": "",
  "braces": "{}"
}`

func TestTemplateDocuments(t *testing.T) {
	tm, err := ParseTemplate("review.json", []byte(reviewTemplate))
	if err != nil {
		t.Fatal(err)
	}
	c := buildOne(t, CollectionSpec{Name: "reviews", Template: tm, Count: 200, ID: mustStrategy(t, "field:sku")}, 4)
	for i := range c.Len() {
		d := c.Doc(i)
		checkRelaxedRoundTrip(t, d)
		want := []string{"_id", "sku", "author", "rating", "helpful", "score", "tags", "note", "big", "empty", "braces", "createdAt"}
		if len(d) != len(want) {
			t.Fatalf("doc %d has %d fields: %v", i, len(d), d)
		}
		for k, key := range want {
			if d[k].Key != key {
				t.Fatalf("doc %d field %d = %q; want %q", i, k, d[k].Key, key)
			}
		}
		if d[0].Value != "REV-"+strconv.FormatInt(i, 10) {
			t.Fatalf("doc %d _id %v", i, d[0].Value)
		}
		r, ok := d[3].Value.(int32)
		if !ok || r < 1 || r > 5 {
			t.Fatalf("rating %T %v; want int32 1..5", d[3].Value, d[3].Value)
		}
		if _, ok := d[4].Value.(bool); !ok {
			t.Fatalf("helpful %T; want bool", d[4].Value)
		}
		if _, ok := d[5].Value.(float64); !ok {
			t.Fatalf("score %T; want float64", d[5].Value)
		}
		tags := d[6].Value.(bson.A)
		if tags[1] != "fixed" || tags[2] != int32(3) || tags[3] != 2.5 || tags[4] != true || tags[5] != nil {
			t.Fatalf("tags %v", tags)
		}
		if n := d[7].Value.(string); !strings.HasPrefix(n, "say ") || !strings.HasSuffix(n, " loudly") || strings.Contains(n, "{") {
			t.Fatalf("note %q", n)
		}
		if d[8].Value != int64(9007199254740993) || d[9].Value != "" || d[10].Value != "{}" {
			t.Fatalf("constants %v %v %v", d[8].Value, d[9].Value, d[10].Value)
		}
	}
}

func TestTemplateErrors(t *testing.T) {
	cases := []struct{ json, want string }{
		{`{"a": {"b": ["x", "{nosuchthing}"]}}`, `$.a.b[1]: "{nosuchthing}": placeholder {nosuchthing}: unknown function "nosuchthing"`},
		{`{"a": "{number:x,y}"}`, `$.a: "{number:x,y}": placeholder {number:x,y}`},
		{`{"a": "{firstname"}`, `$.a: "{firstname": unclosed placeholder`},
		{`{"a": "{number:5,1}"}`, `$.a: "{number:5,1}": placeholder {number:5,1}: min 5 is above max 1: expected min <= max`},
		{`{"a": ["{float64range:2.5,-1}"]}`, `$.a[0]: "{float64range:2.5,-1}": placeholder {float64range:2.5,-1}: min 2.5 is above max -1`},
		{`{"a": 1, "a": 2}`, `$.a: duplicate key "a"`},
		{`{"_id": 1}`, `$._id: the _id is set by the collection's _id strategy`},
		{`{"$set": 1}`, `$.$set: field name "$set"`},
		{`[1]`, `$: expected a JSON object at the top`},
		{`{"a": 1} {}`, `$: unexpected data after the top-level object`},
		{`{"a": 1e999}`, `$.a: number 1e999`},
		{`{"a": 99999999999999999999}`, `$.a: number 99999999999999999999`},
		{`{"a": `, `$.a:`},
		{``, `$: expected a JSON object`},
	}
	for _, tc := range cases {
		_, err := ParseTemplate("t.json", []byte(tc.json))
		var te *TemplateError
		if !errors.As(err, &te) || !errors.Is(err, ErrTemplate) || !strings.Contains(err.Error(), tc.want) || te.Name != "t.json" || !strings.HasPrefix(tc.want, te.Path+":") {
			t.Errorf("ParseTemplate(%s) error = %v; want a *TemplateError containing %q", tc.json, err, tc.want)
		}
	}
}

func FuzzParseTemplate(f *testing.F) {
	f.Add([]byte(reviewTemplate))
	f.Add([]byte(`{"a": "{number:1,", "b": [{}]}`))
	f.Add([]byte(`{"a": "{{firstname}}"}`))
	f.Add([]byte(`{"at": "{pastdate}"}`))
	f.Add([]byte(`{"w": "{weighted:[x,\"y z\"],[1,2]}", "n": "n={normal:1,2}", "z": "{zipf:1.5,1,9}", "i": "{normalint:5,1,0,9}"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tm, err := ParseTemplate("f.json", data)
		if err != nil {
			if !errors.Is(err, ErrTemplate) {
				t.Fatalf("error %v does not wrap ErrTemplate", err)
			}
			return
		}
		cs := CollectionSpec{Name: "f", Template: tm, Count: 2}
		p := &Plan{Seed: 1, Seeded: true, Collections: []CollectionSpec{cs}}
		ds, err := p.Build()
		if len(tm.unstable) > 0 {
			// A template that reads the clock is valid, but only unseeded:
			// a seeded plan must refuse it and an unseeded one accept it.
			var pe *PlanError
			if !errors.As(err, &pe) || pe.Setting != SettingTemplate {
				t.Fatalf("seeded plan with %s: error %v, want a template PlanError", tm.unstable[0], err)
			}
			p.Seeded = false
			ds, err = p.Build()
		}
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		d := ds.Collection("f").Doc(1)
		if d[0].Key != "_id" {
			t.Fatalf("first field %q", d[0].Key)
		}
		if _, err := bson.Marshal(d); err != nil {
			t.Fatalf("document does not marshal: %v", err)
		}
	})
}

func TestPlanFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "review.json"), []byte(reviewTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := `{"db": "shop", "collections": [
	  {"name": "customers", "kind": "user", "count": 30, "id": "field:email"},
	  {"name": "catalog", "kind": "product", "count": 8, "id": "int", "idStart": 100},
	  {"name": "orders", "kind": "order", "count": 50, "id": "uuid",
	   "refs": [{"field": "userId", "to": "customers"}, {"field": "productIds", "to": "catalog", "min": 2, "max": 3}]},
	  {"name": "reviews", "template": "review.json", "count": 40,
	   "refs": [{"field": "productId", "to": "catalog"}, {"field": "orderIds", "to": "orders", "min": 1, "max": 2}]}]}`
	path := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	p.Seed, p.Seeded = 2, true
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	if ds.DB != "shop" {
		t.Errorf("DB %q", ds.DB)
	}
	rev := ds.Collection("reviews").Doc(3)
	if pid, ok := rev[indexOf(rev, "productId")].Value.(int32); !ok || pid < 100 || pid > 107 {
		t.Fatalf("reviews.productId %v; want a catalog int id", rev[indexOf(rev, "productId")].Value)
	}
	o := ds.Collection("orders").Doc(0)
	if u, ok := o[indexOf(o, "userId")].Value.(string); !ok || !strings.Contains(u, "@example.") {
		t.Fatalf("orders.userId %v; want a customer's email", o[indexOf(o, "userId")].Value)
	}
	if n := len(o[indexOf(o, "productIds")].Value.(bson.A)); n < 2 || n > 3 {
		t.Fatalf("orders.productIds has %d", n)
	}
}

func TestPlanValidation(t *testing.T) {
	tm, err := ParseTemplate("t.json", []byte(`{"name": "{firstname}", "key": "k{index}"}`))
	if err != nil {
		t.Fatal(err)
	}
	user := func(mod func(*CollectionSpec)) *Plan {
		cs := CollectionSpec{Name: "users", Kind: KindUser, Count: 10}
		mod(&cs)
		return &Plan{Collections: []CollectionSpec{cs}}
	}
	cases := []struct {
		p       *Plan
		want    string
		setting Setting
	}{
		{user(func(c *CollectionSpec) { c.Count = -1 }), `count -1`, SettingCount},
		{user(func(c *CollectionSpec) { c.Kind = "cat" }), `kind "cat": expected one of user, employee, product, order`, SettingKind},
		{user(func(c *CollectionSpec) { c.Kind = "" }), `expected a kind`, SettingKind},
		{user(func(c *CollectionSpec) { c.ID = IDStrategy{Kind: IDField, Field: "shoe"} }), `no field "shoe"`, SettingID},
		{user(func(c *CollectionSpec) { c.ID = IDStrategy{Kind: IDField, Field: "age"} }), `"age" is not unique by construction`, SettingID},
		{user(func(c *CollectionSpec) { c.Kind, c.Template, c.ID = "", tm, IDStrategy{Kind: IDField, Field: "name"} }), `put {index} in its template value`, SettingID},
		{user(func(c *CollectionSpec) { c.ID, c.IDStart = IDStrategy{Kind: IDInt}, 1<<63-5 }), `idStart 9223372036854775803: the last _id would overflow int64`, SettingIDStart},
		{user(func(c *CollectionSpec) { c.Refs = []Ref{{Field: "friend", To: "people"}} }), `refers to collection "people", which is not in the plan`, SettingRef},
		{user(func(c *CollectionSpec) { c.Refs = []Ref{{Field: "_id", To: "users"}} }), `ref "_id"`, SettingRef},
		{user(func(c *CollectionSpec) { c.Refs = []Ref{{Field: "f", To: "users", Min: 3, Max: 2}} }), `min 3 max 2`, SettingRef},
		{user(func(c *CollectionSpec) { c.Name = "a$b" }), `collection name "a$b"`, SettingCollection},
		{&Plan{Collections: []CollectionSpec{{Name: "orders", Kind: KindOrder, Count: 3}}}, `refers to collection "users", which is not in the plan`, SettingRef},
		{&Plan{Collections: []CollectionSpec{{Name: "a", Kind: KindUser, Count: 1}, {Name: "a", Kind: KindUser, Count: 1}}}, `appears twice`, SettingCollection},
		{&Plan{DB: "a.b", Collections: []CollectionSpec{{Name: "a", Kind: KindUser, Count: 1}}}, `database name "a.b"`, SettingDB},
		{&Plan{Seeded: true, Span: 60 * 365 * 24 * 3600 * 1e9, Collections: []CollectionSpec{{Name: "a", Kind: KindUser, Count: 1}}}, `before the ObjectID epoch`, SettingSpan},
		{&Plan{}, `no collections`, SettingFile},
	}
	for _, tc := range cases {
		_, err := tc.p.Build()
		var pe *PlanError
		if !errors.As(err, &pe) || !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build() error = %v; want a *PlanError containing %q", err, tc.want)
			continue
		}
		if pe.Setting != tc.setting {
			t.Errorf("Build() error %v: setting %q, want %q", err, pe.Setting, tc.setting)
		}
		if planWide := tc.setting == SettingDB || tc.setting == SettingSpan; len(tc.p.Collections) == 1 && !planWide && pe.Collection != tc.p.Collections[0].Name {
			t.Errorf("Build() error %v: collection %q, want %q", err, pe.Collection, tc.p.Collections[0].Name)
		}
	}
	clock, err := ParseTemplate("clock.json", []byte(`{"when": {"a": ["{pastdate}"]}}`))
	if err != nil {
		t.Fatalf("an unseeded template may read the clock: %v", err)
	}
	if _, err := (&Plan{Collections: []CollectionSpec{{Name: "c", Template: clock, Count: 2}}}).Build(); err != nil {
		t.Fatalf("unseeded plan with {pastdate}: %v", err)
	}
	_, err = (&Plan{Seeded: true, Collections: []CollectionSpec{{Name: "c", Template: clock, Count: 2}}}).Build()
	var pe *PlanError
	if !errors.As(err, &pe) || pe.Setting != SettingTemplate || pe.Collection != "c" || !strings.Contains(err.Error(), "$.when.a[0]: {pastdate} gives different values for the same seed") {
		t.Errorf("seeded plan with {pastdate}: %v", err)
	}
	for _, bad := range []string{`{}`, `{"collections": [{"name": "a", "kind": "user"}]}`, `{"collections": [{"name": "a", "kind": "user", "count": 1, "id": "serial"}]}`,
		`{"collections": [{"name": "a", "kind": "user", "count": 1, "colour": 1}]}`, `{"collections": [{"name": "a", "kind": "user", "template": "x.json", "count": 1}]}`} {
		if _, err := ParsePlan("p.json", []byte(bad), "."); !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("ParsePlan(%s) error = %v", bad, err)
		}
	}
}

func FuzzParsePlan(f *testing.F) {
	f.Add([]byte(`{"collections": [{"name": "u", "kind": "user", "count": 3, "id": "field:email"}, {"name": "o", "kind": "order", "count": 2, "refs": [{"field": "userId", "to": "u"}, {"field": "productIds", "to": "u", "max": 2}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlan("f.json", data, "testdata/none")
		if err != nil {
			return
		}
		for k := range p.Collections {
			p.Collections[k].Count = min(p.Collections[k].Count, 5)
		}
		p.Seeded = true
		ds, err := p.Build()
		if err != nil {
			if !errors.Is(err, ErrPlan) {
				t.Fatalf("error %v does not wrap ErrPlan", err)
			}
			return
		}
		for _, c := range ds.Collections() {
			for i := range c.Len() {
				if d := c.Doc(i); d[0].Key != "_id" {
					t.Fatal("_id not first")
				}
			}
		}
	})
}
