package seed

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	pinned "github.com/oidkit/oidkit/internal/golden"
)

// goldenPlan is a plan file with every collection setting, each in the
// forms a plan writes it: a kind and a template, int _ids by step and by
// quantiles, an _id mix, references, times and indexes.
const goldenPlan = `{"db": "shop", "collections": [
  {"name": "users", "kind": "user", "count": 20, "id": "objectid", "times": [0, 0.5, 1],
   "indexes": [{"key": {"email": 1}, "unique": true}]},
  {"name": "products", "kind": "product", "count": 4, "id": "int", "idStart": 100, "idStep": 10},
  {"name": "orders", "template": {"n": "{number:1,9}", "tag": "{word}"}, "count": 30, "id": "int", "idQuantiles": [1, 50, 400],
   "idMix": {"uuid": 0.1, "objectid": 0.25},
   "refs": [{"field": "by", "to": "users"}, {"field": "items", "to": "products", "min": 1, "max": 3, "lengths": [1, 3], "weights": [2, 1]}],
   "indexes": [{"key": {"tag": 1}}, {"key": {"n": -1}, "partialFilterExpression": {"n": {"$gt": 2}}}]},
  {"name": "archive", "kind": "order", "count": 2, "refOnly": true}]}`

// goldenRecord is the plan record of goldenPlan, with fixed versions.
func goldenRecord(t *testing.T) PlanRecord {
	t.Helper()
	p, err := ParsePlan("golden.json", []byte(goldenPlan), ".")
	if err != nil {
		t.Fatal(err)
	}
	p.Seed, p.Seeded, p.At, p.Span = 7, true, time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), 48*time.Hour
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	r := NewPlanRecord(ds)
	r.Oidkit, r.Gofakeit = "v1.2.3", "v7.0.0"
	return r
}

// The plan file a plan writes, the JSON of its collections and the BSON of
// its record in a run manifest are the bytes that earlier versions wrote
// (testdata/golden, taken from them): key order included, so that stored
// manifests and written plan files compare equal with new ones. (An
// idMix of several strategies is stored in ParseIDMix's order, as its
// JSON is written: earlier versions stored a map's order, which changed
// from run to run, so these bytes are one of theirs.)
// OIDKIT_GOLDEN=write rewrites the files.
func TestPlanBytesArePinned(t *testing.T) {
	r := goldenRecord(t)
	file := PlanFile{DB: r.DB, At: "2024-05-01T00:00:00Z", Span: "48h0m0s", Collections: r.Specs}
	got := map[string][]byte{}
	var err error
	got["plan.json"], err = json.Marshal(file)
	if err == nil {
		got["plan_indent.json"], err = json.MarshalIndent(file, "", "  ")
	}
	if err == nil {
		got["record.bson"], err = bson.Marshal(r)
	}
	if err == nil {
		got["every.json"], err = json.Marshal(everyField())
	}
	if err == nil {
		got["every.bson"], err = bson.Marshal(everyField())
	}
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, got)
}

// checkGolden compares each of got with its file in testdata/golden.
func checkGolden(t *testing.T, got map[string][]byte) {
	t.Helper()
	for name, b := range got {
		pinned.Check(t, filepath.Join("testdata", "golden", name), b, func(b []byte) any { return string(b) })
	}
}
