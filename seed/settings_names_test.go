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

// everyField has every CollectionPlan field that earlier versions stored
// set, to a value that neither omitempty nor a default leaves out.
func everyField() CollectionPlan {
	n := int64(5)
	return CollectionPlan{CollectionSpec: CollectionSpec{Name: "orders", Kind: "user", IDStart: 7, IDStep: 3, IDQuantiles: []float64{1, 9},
		Refs: []Ref{{Field: "by", To: "users", Min: 1, Max: 1}}, RefOnly: true, Times: []float64{0, 1}},
		Template: JSONText(`{"a":1}`), TemplateName: "a.json", Count: &n, ID: "int",
		IDMix: map[string]float64{"objectid": 0.25}, Indexes: []JSONText{JSONText(`{"key":{"a":1}}`)}}
}

// visibleKeyed are the fields of CollectionPlan with a key of that tag,
// promoted from CollectionSpec or its own, in field order.
func visibleKeyed(tag string) []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(reflect.TypeFor[CollectionPlan]()) {
		if !f.Anonymous && tagKey(f, tag) != "" {
			out = append(out, f)
		}
	}
	return out
}

// oldKeys is keys without those that earlier versions did not write:
// settings added since may stand among them.
func oldKeys(keys []string) []string {
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return !slices.Contains(storedOrder, k) })
}

// A collection's settings keep their names: the plan file's JSON keys and
// the stored manifest's BSON keys, in their order, are these, so that
// plans and manifests written by earlier versions still read (a setting
// added since may stand among them). A renamed field or tag fails here.
func TestSettingNamesAreFixed(t *testing.T) {
	// The manifest, as run manifests are stored.
	spec := everyField()
	v := reflect.ValueOf(spec)
	for _, f := range visibleKeyed("bson") {
		if slices.Contains(storedOrder, tagKey(f, "bson")) && v.FieldByIndex(f.Index).IsZero() {
			t.Errorf("everyField leaves %s unset: set it, so that its keys and its copies are checked", f.Name)
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
	if !slices.Equal(oldKeys(keys), want) {
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
	if !slices.Equal(oldKeys(keys), want) {
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
		for _, f := range reflect.VisibleFields(reflect.TypeOf(v)) {
			if k := tagKey(f, tag); !f.Anonymous && k != "" {
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
// field is compared, under the Setting its key names, unless it is listed
// as one of those.
func TestDiffNamesEveryField(t *testing.T) {
	want := map[string]Setting{
		"name":         SettingCollections, // another collection
		"templateName": 0,                  // a name, not the template
		"refOnly":      0,                  // PlanRecord.Plan sets it from the manifest's collection
		"indexes":      0,                  // indexes do not change the documents
	}
	for _, f := range visibleKeyed("bson") {
		key := tagKey(f, "bson")
		expect, listed := want[key]
		if !listed {
			expect = settingOfKey(key)
		}
		a, b := everyField(), everyField()
		change(t, reflect.ValueOf(&b).Elem().FieldByIndex(f.Index))
		m := &PlanRecord{Seeded: true, Seed: "1", Specs: []CollectionPlan{a}}
		d := m.Diff(&PlanRecord{Seeded: true, Seed: "1", Specs: []CollectionPlan{b}})
		switch {
		case expect == 0 && d != nil:
			t.Errorf("field %s changed: diff %+v; want none", f.Name, d)
		case expect != 0 && (d == nil || d.Field != expect):
			t.Errorf("field %s changed: diff %+v; want one in %s", f.Name, d, expect)
		}
	}
}

// A setting that text holds as it is takes one edit: its field in
// CollectionSpec with its json and bson tags. Every field of CollectionSpec
// has both tags, with one key, or "-" for a setting with a text form of its
// own (a field of CollectionPlan of its name, parsed); with a value in
// every tagged field, the spec goes through CollectionPlan's JSON (the plan
// file) and BSON (the manifest) and back unchanged, and each key names a
// Setting (TestDiffNamesEveryField: and Diff compares it). A field whose
// tags are forgotten fails here.
func TestSettingIsOneField(t *testing.T) {
	cs := CollectionSpec{Count: 3}
	v := reflect.ValueOf(&cs).Elem()
	var tagged []reflect.StructField
	for _, f := range reflect.VisibleFields(v.Type()) {
		j, b := f.Tag.Get("json"), f.Tag.Get("bson")
		jk, _, _ := strings.Cut(j, ",")
		bk, _, _ := strings.Cut(b, ",")
		own, _ := reflect.TypeFor[CollectionPlan]().FieldByName(f.Name)
		switch {
		case j == "" || b == "" || jk != bk:
			t.Errorf("CollectionSpec.%s: tags json %q, bson %q; want both, with its key (or \"-\")", f.Name, j, b)
		case jk == "-" && len(own.Index) != 1:
			t.Errorf("CollectionSpec.%s: tagged \"-\" with no field of its name in CollectionPlan to hold it as text", f.Name)
		case jk != "-":
			change(t, v.FieldByIndex(f.Index))
			tagged = append(tagged, f)
			if s := settingOfKey(jk); s == 0 || s.Key() != jk {
				t.Errorf("CollectionSpec.%s: key %q names no Setting", f.Name, jk)
			}
		}
	}
	c := planOf(cs)
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := bson.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromBSON CollectionPlan
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := bson.Unmarshal(bs, &fromBSON); err != nil {
		t.Fatal(err)
	}
	fileSpec, err := fromJSON.spec("plan.json", ".", 0)
	if err != nil {
		t.Fatal(err)
	}
	var manifestSpec CollectionSpec
	if err := fromBSON.copyTo(&manifestSpec); err != nil {
		t.Fatal(err)
	}
	for _, back := range []struct {
		via  string
		plan CollectionPlan
		spec CollectionSpec
	}{{"JSON " + string(js), fromJSON, fileSpec}, {"BSON " + bson.Raw(bs).String(), fromBSON, manifestSpec}} {
		if !reflect.DeepEqual(back.plan, c) {
			t.Errorf("plan through %s:\n got %+v\nwant %+v", back.via, back.plan, c)
		}
		for _, f := range tagged {
			if a, b := v.FieldByIndex(f.Index).Interface(), reflect.ValueOf(back.spec).FieldByIndex(f.Index).Interface(); !reflect.DeepEqual(a, b) {
				t.Errorf("%s through %s: %v, want %v", f.Name, back.via, b, a)
			}
		}
	}
}

// change sets v, of a type a setting has, to another value: from a zero
// value, one that is not zero, with every field and element set.
func change(t *testing.T, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 0.5)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Pointer:
		n := reflect.New(v.Type().Elem())
		if !v.IsNil() {
			n.Elem().Set(v.Elem())
		}
		change(t, n.Elem())
		v.Set(n)
	case reflect.Slice:
		e := reflect.New(v.Type().Elem()).Elem()
		change(t, e)
		v.Set(reflect.Append(v, e))
	case reflect.Map:
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		change(t, k)
		change(t, e)
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		v.SetMapIndex(k, e)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				change(t, v.Field(i))
			}
		}
	default:
		t.Fatalf("no change made for a %s", v.Type())
	}
}

// A plan file key that no Setting constant has gets a Setting at init,
// named by its key: here the settings from times on are left out of the
// constants, and come back as settings of their own.
func TestKeyWithoutConstantGetsASetting(t *testing.T) {
	got := withPlanKeys(slices.Clone(settingNames[:SettingTimes]))
	want := append(slices.Clone(settingNames[:SettingTimes]), settingName{"times", "times"}, settingName{"indexes", "indexes"})
	if !slices.Equal(got, want) {
		t.Errorf("settings:\n got %v\nwant %v", got, want)
	}
	if got := withPlanKeys(slices.Clone(settingNames)); !slices.Equal(got, settingNames) {
		t.Errorf("every key has a setting, but withPlanKeys added %v", got[len(settingNames):])
	}
}
