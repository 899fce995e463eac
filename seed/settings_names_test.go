package seed

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// everySetting has every CollectionSettings field set, to a value that
// neither omitempty nor a default leaves out.
var everySetting = CollectionSettings{ID: "int", IDStart: 7, IDStep: 3, IDQuantiles: []float64{1, 9},
	IDMix: map[string]float64{"objectid": 0.25}, Refs: []Ref{{Field: "by", To: "users", Min: 1, Max: 1}},
	RefOnly: true, Times: []float64{0, 1}}

// A collection's settings keep their names: the plan file's JSON keys and
// the stored manifest's BSON keys, in their order, are these, so that
// plans and manifests written by earlier versions still read. A renamed
// field or tag fails here.
func TestSettingNamesAreFixed(t *testing.T) {
	// The manifest, as run manifests are stored.
	spec := ManifestSpec{Name: "orders", Kind: "user", Template: `{"a":1}`, TemplateName: "a.json", Count: 5,
		CollectionSettings: everySetting, Indexes: []string{`{"key":{"a":1}}`}}
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
	var back ManifestSpec
	if err := bson.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	// A manifest written by an earlier version: the same keys, written
	// one by one.
	var old ManifestSpec
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
	for _, got := range []ManifestSpec{back, old} {
		if !reflect.DeepEqual(got, spec) {
			t.Errorf("manifest plan read back:\n got %+v\nwant %+v", got, spec)
		}
	}

	// The plan file: the keys collectionFile reads ...
	js, err := json.Marshal(collectionFile{CollectionSettings: everySetting})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	keys = keys[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want = []string{"count", "id", "idMix", "idQuantiles", "idStart", "idStep", "indexes", "kind", "name", "refOnly", "refs", "template", "times"}
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
	if got := settingsOf(cs); !reflect.DeepEqual(got, everySetting) {
		t.Errorf("plan file settings:\n got %+v\nwant %+v", got, everySetting)
	}
	if cs.Name != "orders" || cs.Count != 5 || cs.Template == nil || len(cs.Indexes) != 1 {
		t.Errorf("plan file collection: %+v", cs)
	}
}
