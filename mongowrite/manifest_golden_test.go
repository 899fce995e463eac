package mongowrite_test

import (
	"bytes"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/golden"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// A run manifest's BSON is the bytes earlier versions stored
// (testdata/golden/manifest.bson, taken from them), key order included:
// a manifest of the same run compares equal with a stored one.
// OIDKIT_GOLDEN=write rewrites the file.
func TestManifestBytesArePinned(t *testing.T) {
	p, err := seed.ParsePlan("golden.json", []byte(`{"db": "shop", "collections": [
	  {"name": "users", "kind": "user", "count": 20, "times": [0, 0.5, 1], "indexes": [{"key": {"email": 1}, "unique": true}]},
	  {"name": "orders", "template": {"n": "{number:1,9}"}, "count": 30, "id": "int", "idStart": 5, "idStep": 2,
	   "idMix": {"objectid": 0.25}, "refs": [{"field": "by", "to": "users", "min": 1, "max": 2}]}]}`), ".")
	if err != nil {
		t.Fatal(err)
	}
	p.Seed, p.Seeded, p.At = 9, true, time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	ds := build(t, p)
	rec := seed.NewPlanRecord(ds)
	rec.Oidkit, rec.Gofakeit = "v1.2.3", "v7.0.0"
	plan, err := bson.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	m := mongowrite.NewManifest(&mongowrite.Dataset{Run: "run-1", Plan: plan}, ds.Collection("orders"))
	m.Key, m.Part = "orders#part-0001-of-0002", parts.Part{I: 1, N: 2}
	m.Started = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	m.Updated = m.Started.Add(time.Minute)
	m.Ack(parts.Range{From: 15, To: 20})
	got, err := bson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := golden.Check(t, "testdata/golden/manifest.bson", got, func(b []byte) any { return bson.Raw(b) })
	var back mongowrite.Manifest
	if err := bson.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	again, err := bson.Marshal(back)
	if err != nil || !bytes.Equal(again, want) {
		t.Errorf("stored manifest read back and written again: %v\n%v\nwant\n%v", err, bson.Raw(again), bson.Raw(want))
	}
	if r, err := run.Record(&back); err != nil || r.Diff(&rec) != nil {
		t.Errorf("its plan read back: %+v, %v", r, err)
	}
}
