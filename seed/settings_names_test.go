package seed

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// everyField has every CollectionPlan field set, to a value that
// neither omitempty nor a default leaves out.
func everyField() CollectionPlan {
	n := int64(5)
	return CollectionPlan{Name: "orders", Kind: "user", Template: JSONText(`{"a":1}`), TemplateName: "a.json", Count: &n,
		ID: "int", IDStart: 7, IDStep: 3, IDQuantiles: []float64{1, 9},
		IDMix: map[string]float64{"objectid": 0.25}, Refs: []Ref{{Field: "by", To: "users", Min: 1, Max: 1}},
		RefOnly: true, Times: []float64{0, 1}, Indexes: []JSONText{JSONText(`{"key":{"a":1}}`)}}
}

// A collection's settings keep their names: the plan file's JSON keys and
// the stored manifest's BSON keys, in their order, are these, so that
// plans and manifests written by earlier versions still read. A renamed
// field or tag fails here.
func TestSettingNamesAreFixed(t *testing.T) {
	// The manifest, as run manifests are stored.
	spec := everyField()
	v := reflect.ValueOf(spec)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("everyField leaves %s unset: set it, so that its keys and its copies are checked", v.Type().Field(i).Name)
		}
	}
	raw, err := bson.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	elems, err := bson.Raw(raw).Elements()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range elems {
		keys = append(keys, e.Key())
	}
	want := []string{"name", "kind", "template", "templateName", "count", "id", "idStart", "idStep", "idQuantiles", "idMix", "refs", "refOnly", "times", "indexes"}
	if !slices.Equal(keys, want) {
		t.Errorf("manifest plan keys:\n got %v\nwant %v", keys, want)
	}
	var back CollectionPlan
	if err := bson.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	// A manifest written by an earlier version: the same keys, written
	// one by one.
	var old CollectionPlan
	oldRaw, err := bson.Marshal(bson.D{{Key: "name", Value: "orders"}, {Key: "kind", Value: "user"},
		{Key: "template", Value: `{"a":1}`}, {Key: "templateName", Value: "a.json"}, {Key: "count", Value: int64(5)},
		{Key: "id", Value: "int"}, {Key: "idStart", Value: int64(7)}, {Key: "idStep", Value: int64(3)},
		{Key: "idQuantiles", Value: bson.A{1.0, 9.0}}, {Key: "idMix", Value: bson.D{{Key: "objectid", Value: 0.25}}},
		{Key: "refs", Value: bson.A{bson.D{{Key: "field", Value: "by"}, {Key: "to", Value: "users"}, {Key: "min", Value: int32(1)}, {Key: "max", Value: int32(1)}}}},
		{Key: "refOnly", Value: true}, {Key: "times", Value: bson.A{0.0, 1.0}}, {Key: "indexes", Value: bson.A{`{"key":{"a":1}}`}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := bson.Unmarshal(oldRaw, &old); err != nil {
		t.Fatal(err)
	}
	for _, got := range []CollectionPlan{back, old} {
		if !reflect.DeepEqual(got, spec) {
			t.Errorf("manifest plan read back:\n got %+v\nwant %+v", got, spec)
		}
	}

	// The plan file: the keys CollectionPlan reads ...
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	keys = keys[:0]
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		var skip json.RawMessage
		if err == nil {
			err = dec.Decode(&skip)
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
	}
	// (as a plan is written: the template, refs and indexes last)
	want = []string{"name", "kind", "count", "id", "idStart", "idStep", "idQuantiles", "idMix", "refOnly", "times", "template", "refs", "indexes"}
	if !slices.Equal(keys, want) {
		t.Errorf("plan file keys:\n got %v\nwant %v", keys, want)
	}
	// ... and a plan file with every one of them (unknown keys are
	// refused) parsed.
	plan := `{"db": "shop", "collections": [
	  {"name": "users", "kind": "user", "count": 2},
	  {"name": "orders", "template": {"a": 1}, "count": 5, "id": "int", "idStart": 7, "idStep": 3, "idQuantiles": [1, 9],
	   "idMix": {"objectid": 0.25}, "refs": [{"field": "by", "to": "users", "min": 1, "max": 1}], "refOnly": true,
	   "times": [0, 1], "indexes": [{"key": {"a": 1}}]}]}`
	p, err := ParsePlan("plan.json", []byte(plan), ".")
	if err != nil {
		t.Fatal(err)
	}
	cs := p.Collections[1]
	got := planOf(cs)
	// a plan file's template is read, a manifest's kept whole; its indexes
	// are kept as canonical Extended JSON
	got.Kind, got.Template, got.TemplateName, got.Indexes = spec.Kind, spec.Template, spec.TemplateName, spec.Indexes
	if !reflect.DeepEqual(got, spec) {
		t.Errorf("plan file collection:\n got %+v\nwant %+v", got, spec)
	}
	if cs.Name != "orders" || cs.Count != 5 || cs.Template == nil || len(cs.Indexes) != 1 {
		t.Errorf("plan file collection: %+v", cs)
	}
}

// Every setting has a name and a key, each key is one of the plan file's
// (PlanFile, CollectionPlan) or the run manifest's, and every key of the
// plan file is a setting's: a new plan field without its Setting fails
// here.
func TestSettingsHaveKeys(t *testing.T) {
	tags := func(v any, tag string) []string {
		var out []string
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			if k, _, _ := strings.Cut(typ.Field(i).Tag.Get(tag), ","); k != "" && k != "-" {
				out = append(out, k)
			}
		}
		return out
	}
	file := append(tags(PlanFile{}, "json"), tags(CollectionPlan{}, "json")...)
	keys := map[string]Setting{}
	for _, s := range Settings() {
		if s.String() == "" || s.Key() == "" || strings.HasPrefix(s.String(), "Setting(") {
			t.Errorf("setting %d: name %q, key %q; want both", int(s), s, s.Key())
		}
		if !slices.Contains(file, s.Key()) && !slices.Contains(tags(PlanRecord{}, "bson"), s.Key()) {
			t.Errorf("setting %s: key %q is no key of a plan file or a run manifest", s, s.Key())
		}
		if o, dup := keys[s.Key()]; dup {
			t.Errorf("settings %s and %s: both key %q", o, s, s.Key())
		}
		keys[s.Key()] = s
	}
	for _, k := range file {
		if _, ok := keys[k]; !ok {
			t.Errorf("plan file key %q: no Setting has it", k)
		}
	}
	if len(Settings()) < 20 {
		t.Errorf("%d settings; want every one of settingNames", len(Settings()))
	}
}

// A plan record's Diff reports a change of any CollectionPlan field as its
// Setting, but for the fields that do not change the documents: a new
// field fails here until Diff compares it, or is listed as one of those.
func TestDiffNamesEveryField(t *testing.T) {
	settingOf := map[string]Setting{}
	for _, s := range Settings() {
		settingOf[s.Key()] = s
	}
	want := map[string]Setting{
		"name":         SettingCollections, // another collection
		"templateName": 0,                  // a name, not the template
		"refOnly":      0,                  // PlanRecord.Plan sets it from the manifest's collection
		"indexes":      0,                  // indexes do not change the documents
	}
	typ := reflect.TypeOf(CollectionPlan{})
	for i := range typ.NumField() {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("bson"), ",")
		expect, listed := want[key]
		if !listed {
			expect = settingOf[key]
		}
		a, b := everyField(), everyField()
		f := reflect.ValueOf(&b).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Int64:
			f.SetInt(f.Int() + 1)
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Pointer:
			n := reflect.New(f.Type().Elem())
			n.Elem().SetInt(f.Elem().Int() + 1)
			f.Set(n)
		case reflect.Slice:
			f.Set(reflect.Append(f, reflect.Zero(f.Type().Elem())))
		case reflect.Map:
			f.SetMapIndex(reflect.ValueOf("uuid"), reflect.ValueOf(0.125))
		default:
			t.Fatalf("field %s: no change made for a %s", typ.Field(i).Name, f.Kind())
		}
		m := &PlanRecord{Seeded: true, Seed: "1", Specs: []CollectionPlan{a}}
		d := m.Diff(&PlanRecord{Seeded: true, Seed: "1", Specs: []CollectionPlan{b}})
		switch {
		case expect == 0 && d != nil:
			t.Errorf("field %s changed: diff %+v; want none", typ.Field(i).Name, d)
		case expect != 0 && (d == nil || d.Field != expect):
			t.Errorf("field %s changed: diff %+v; want one in %s", typ.Field(i).Name, d, expect)
		}
	}
}

// Every setting of CollectionPlan reaches CollectionSpec and back: a field
// of the same name and type in both is copied by copySame (checked here
// with a value in every such field, through planOf and copyTo); any other
// is one of those parsed by name (parsed). A new field with neither fails.
func TestCopySameCoversTheSchema(t *testing.T) {
	parsed := []string{"Template", "TemplateName", "Count", "ID", "IDMix", "Indexes"}
	plan, spec := reflect.TypeOf(CollectionPlan{}), reflect.TypeOf(CollectionSpec{})
	cs := CollectionSpec{Count: 3}
	v := reflect.ValueOf(&cs).Elem()
	for i := range plan.NumField() {
		f := plan.Field(i)
		sf, ok := spec.FieldByName(f.Name)
		switch {
		case slices.Contains(parsed, f.Name):
			continue
		case !ok || sf.Type != f.Type:
			t.Errorf("CollectionPlan.%s: no field of that name and type in CollectionSpec, nor parsed", f.Name)
			continue
		}
		x := v.FieldByIndex(sf.Index)
		switch x.Kind() {
		case reflect.String:
			x.SetString("x" + f.Name)
		case reflect.Int64:
			x.SetInt(int64(7 + i))
		case reflect.Bool:
			x.SetBool(true)
		case reflect.Slice:
			x.Set(reflect.Append(x, reflect.Zero(x.Type().Elem())))
		default:
			t.Fatalf("CollectionSpec.%s: no value set for a %s", f.Name, x.Kind())
		}
	}
	c := planOf(cs)
	var back CollectionSpec
	if err := c.copyTo(&back); err != nil {
		t.Fatal(err)
	}
	for i := range plan.NumField() {
		f := plan.Field(i)
		if sf, ok := spec.FieldByName(f.Name); ok && sf.Type == f.Type {
			if a, b := v.FieldByIndex(sf.Index).Interface(), reflect.ValueOf(back).FieldByIndex(sf.Index).Interface(); !reflect.DeepEqual(a, b) {
				t.Errorf("%s: %v after planOf and copyTo, want %v", f.Name, b, a)
			}
		}
	}
}
