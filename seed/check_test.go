package seed_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

func templateCollection(t *testing.T, src string) *seed.Collection {
	t.Helper()
	tmpl, err := seed.ParseTemplate("t.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ds := buildPlan(t, &seed.Plan{Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "c", Template: tmpl, Count: 5}}})
	return ds.Collection("c")
}

// A template's keys and depth are checked against the target's rules
// before any document is generated, with the field's path.
func TestCheckShape(t *testing.T) {
	dotted := templateCollection(t, `{"a": "{firstname}", "addr": {"geo.lat": "{latitude}"}}`)
	err := dotted.CheckShape(rules.FerretDB.Check)
	var se *seed.ShapeError
	var v *rules.Violation
	if !errors.As(err, &se) || !errors.As(err, &v) || se.Collection != "c" || v.Path != "addr.geo.lat" || v.Reason != rules.DottedKey {
		t.Fatalf("FerretDB: %v", err)
	}
	if err := dotted.CheckShape(rules.MongoDB.Check); err != nil {
		t.Fatalf("MongoDB accepts dotted keys: %v", err)
	}
	deep := "\"{word}\""
	for range 100 {
		deep = `{"x": ` + deep + `}`
	}
	err = templateCollection(t, `{"d": `+deep+`}`).CheckShape(rules.MongoDB.Check)
	if !errors.As(err, &v) || v.Reason != rules.TooDeep || !strings.HasPrefix(v.Path, "d.x.x") {
		t.Fatalf("deep template: %v", err)
	}
	if err := templateCollection(t, `{"n": "{number:1,5}", "a": [["{word}"]]}`).CheckShape(rules.MongoDB.Check); err != nil {
		t.Fatalf("MongoDB accepts nested arrays: %v", err)
	}
	if err := templateCollection(t, `{"a": [["{word}"]]}`).CheckShape(rules.FerretDB.Check); !errors.As(err, &v) || v.Reason != rules.NestedArray {
		t.Fatalf("FerretDB nested array: %v", err)
	}
}

// A document the check refuses stops Insert before its batch is sent, and
// CheckAll finds it without writing.
func TestInsertCheckRefusesBeforeSending(t *testing.T) {
	_, client := mongotest.Start(t)
	ds := buildPlan(t, &seed.Plan{Seed: 2, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 3000}}})
	col := ds.Collection("users")
	refuse := func(doc bson.Raw) error {
		if doc.Lookup("_id").ObjectID() == bson.ObjectID(col.ObjectID(1234)) {
			return fmt.Errorf("refused for the test")
		}
		return nil
	}
	var de *seed.DocError
	if err := col.CheckAll(context.Background(), seed.StreamOptions{Check: refuse}); !errors.As(err, &de) || de.Index != 1234 {
		t.Fatalf("CheckAll: %v", err)
	}
	coll := client.Database("oidkit").Collection("users")
	var acked []seed.Range
	_, err := seed.Insert(context.Background(), coll, col, seed.InsertOptions{Batch: 100, Workers: 1, Check: refuse, Acked: func(r seed.Range) { acked = append(acked, r) }})
	if !errors.As(err, &de) || de.Index != 1234 || de.Collection != "users" {
		t.Fatalf("Insert: %v", err)
	}
	ids := bson.A{}
	for i := int64(1200); i < 1300; i++ {
		ids = append(ids, col.ID(i))
	}
	n, err := coll.CountDocuments(context.Background(), bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
	if err != nil || n != 0 {
		t.Fatalf("%d documents of the refused batch are in (%v)", n, err)
	}
	held, _ := coll.EstimatedDocumentCount(context.Background())
	var total int64
	for _, r := range seed.MergeRanges(acked) {
		total += r.Len()
		if r.To > 1200 {
			t.Errorf("acknowledged %v, past the refused batch", r)
		}
	}
	if total != held {
		t.Errorf("acknowledged %d documents; the server holds %d", total, held)
	}
}
