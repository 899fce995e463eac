package infer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/infer"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

// idTypes counts the BSON types of a collection's _ids, as shares.
func idTypes(t *testing.T, coll *mongo.Collection) map[bson.Type]float64 {
	t.Helper()
	ctx := context.Background()
	cur, err := coll.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	out, n := map[bson.Type]float64{}, 0.0
	for cur.Next(ctx) {
		out[cur.Current.Lookup("_id").Type]++
		n++
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	for k := range out {
		out[k] /= n
	}
	return out
}

// A collection whose _ids mix integers, ObjectIDs and UUIDs keeps the mix
// through infer, the plan and seed: each type's share within 2 points.
func TestInferKeepsIDMix(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	src, dst := client.Database("src"), client.Database("copy")
	tmpl, err := seed.ParseTemplate("book.json", []byte(`{"title": "{sentence}", "pages": "{number:10,900}"}`))
	if err != nil {
		t.Fatal(err)
	}
	p := &seed.Plan{DB: "src", Seed: 4, Seeded: true, Span: 90 * 24 * time.Hour, Collections: []seed.CollectionSpec{{
		Name: "books", Template: tmpl, Count: 1500, ID: seed.IDStrategy{Kind: seed.IDInt}, IDStart: 1,
		IDMix: []seed.IDShare{{ID: seed.IDStrategy{Kind: seed.IDObjectID}, Share: 0.074}, {ID: seed.IDStrategy{Kind: seed.IDUUID}, Share: 0.03}},
	}}}
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mongowrite.Insert(ctx, src.Collection("books"), ds.Collection("books"), mongowrite.InsertOptions{}); err != nil {
		t.Fatal(err)
	}
	profiles, err := infer.Collect(ctx, src, []string{"books"}, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inf, err := infer.Plan("copy", profiles)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("plan:\n%s", inf.JSON)
	cs := inf.Plan.Collections[0]
	if cs.ID.Kind != seed.IDInt || len(cs.IDMix) != 2 || len(cs.Times) == 0 {
		t.Fatalf("inferred id %s, idMix %+v, %d times; want int with objectid and uuid shares, and the ObjectIDs' times", cs.ID, cs.IDMix, len(cs.Times))
	}
	kept := false
	for _, n := range inf.Notes {
		kept = kept || (n.Path == "_id" && strings.Contains(n.Text, "kept as int") && strings.Contains(n.Text, "objectid") && strings.Contains(n.Text, "uuid"))
	}
	if !kept {
		t.Errorf("notes %v: want the _id note to say which types were kept", inf.Notes)
	}
	seedPlan(t, dst, inf)
	a, b := idTypes(t, src.Collection("books")), idTypes(t, dst.Collection("books"))
	for _, typ := range []bson.Type{bson.TypeInt32, bson.TypeObjectID, bson.TypeBinary} {
		if a[typ] == 0 || abs(a[typ]-b[typ]) > 0.02 {
			t.Errorf("_id %s: %.3f of the source, %.3f of the copy; want both, within 0.02", typ, a[typ], b[typ])
		}
	}
	copies, err := infer.Collect(ctx, dst, []string{"books"}, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cmp := infer.Compare(profiles[0], copies[0])
	for _, d := range cmp.Fields {
		if d.Path == "_id" && d.Types > 0.02 {
			t.Errorf("_id types distance %.3f; want <= 0.02", d.Types)
		}
	}
	t.Logf("similarity %.4f", cmp.Similarity)
}
