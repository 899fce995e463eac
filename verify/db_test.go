package verify

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

func startServer(t *testing.T) *mongo.Client {
	_, cl := mongotest.Start(t)
	return cl
}

func rv(v any) bson.RawValue { return rawValueOf(v) }

// TestCompareIDsAgreesWithServerSort is a differential test: the server
// sorts a mix of _id types, and compareIDs must put them in the same order.
func TestCompareIDsAgreesWithServerSort(t *testing.T) {
	cl := startServer(t)
	coll := cl.Database("t").Collection("ids")
	ids := []any{
		int32(-5), int64(-1 << 40), 2.5, int32(3), int64(1 << 40), -0.5, int32(0),
		"", "a", "B", "ab", "é", "z",
		bson.ObjectID{0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, bson.ObjectID{0x12}, bson.ObjectID{0xff, 0xff, 0xff, 0xff},
		bson.Binary{Subtype: 4, Data: bytes.Repeat([]byte{1}, 16)}, bson.Binary{Subtype: 0, Data: bytes.Repeat([]byte{2}, 16)},
		bson.Binary{Subtype: 0, Data: []byte{9}}, bson.Binary{Subtype: 4, Data: bytes.Repeat([]byte{0}, 16)},
		true, false, bson.DateTime(7), bson.DateTime(-1000), bson.DateTime(1 << 41),
	}
	var docs []any
	for _, id := range ids {
		docs = append(docs, bson.D{{Key: "_id", Value: id}})
	}
	ctx := context.Background()
	for _, d := range docs {
		if _, err := coll.InsertOne(ctx, d); err != nil {
			t.Fatalf("%v: %v", d, err)
		}
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var server []bson.RawValue
	for cur.Next(ctx) {
		v := cur.Current.Lookup("_id")
		server = append(server, bson.RawValue{Type: v.Type, Value: bytes.Clone(v.Value)})
	}
	if len(server) != len(ids) {
		t.Fatalf("read %d, inserted %d", len(server), len(ids))
	}
	client := slices.Clone(server)
	slices.SortStableFunc(client, func(a, b bson.RawValue) int {
		c, ok := compareIDs(a, b)
		if !ok {
			t.Fatalf("cannot compare %s and %s", show(a), show(b))
		}
		return c
	})
	for k := range server {
		if server[k].Type != client[k].Type || !bytes.Equal(server[k].Value, client[k].Value) {
			t.Errorf("position %d: server %s, compareIDs %s", k, showTyped(server[k]), showTyped(client[k]))
		}
	}
}

func TestIDFirstAndContent(t *testing.T) {
	doc, _ := bson.Marshal(bson.D{{Key: "a", Value: 1}, {Key: "_id", Value: 7}, {Key: "b", Value: "x"}})
	want, _ := bson.Marshal(bson.D{{Key: "_id", Value: 7}, {Key: "a", Value: 1}, {Key: "b", Value: "x"}})
	got, err := idFirst(doc)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("idFirst = %v, %v; want %v", bson.Raw(got), err, bson.Raw(want))
	}
	other, _ := bson.Marshal(bson.D{{Key: "_id", Value: "other"}, {Key: "a", Value: 1}, {Key: "b", Value: "x"}})
	if !bytes.Equal(content(want), content(other)) {
		t.Errorf("content differs for documents that differ only by _id")
	}
	changed, _ := bson.Marshal(bson.D{{Key: "_id", Value: 7}, {Key: "a", Value: 2}, {Key: "b", Value: "x"}})
	if bytes.Equal(content(want), content(changed)) {
		t.Errorf("content equal for documents with different fields")
	}
	noID, _ := bson.Marshal(bson.D{{Key: "a", Value: 1}})
	if len(content(noID)) != len(noID)-5 {
		t.Errorf("content of a document without _id should be all its elements")
	}
}

func TestDiffDocs(t *testing.T) {
	m := func(d bson.D) bson.Raw { b, _ := bson.Marshal(d); return b }
	base := bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "Ann"}, {Key: "age", Value: int32(30)},
		{Key: "address", Value: bson.D{{Key: "city", Value: "Oslo"}, {Key: "zip", Value: "0150"}}},
		{Key: "tags", Value: bson.A{"a", "b"}}}
	cases := []struct {
		name   string
		stored bson.D
		want   []string
	}{
		{"equal", base, nil},
		{"value", set(base, "name", "Bob"), []string{`name: stored "Bob", expected "Ann"`}},
		{"type", set(base, "age", int64(30)), []string{`age: stored Long(30) (int64), expected 30 (int32)`}},
		{"nested", set(base, "address", bson.D{{Key: "city", Value: "Rome"}, {Key: "zip", Value: "0150"}}), []string{`address.city: stored "Rome", expected "Oslo"`}},
		{"array element", set(base, "tags", bson.A{"a", "c"}), []string{`tags.1: stored "c", expected "b"`}},
		{"array length", set(base, "tags", bson.A{"a"}), []string{`tags: stored 1 elements, expected 2`}},
		{"missing", base[:4], []string{`tags: missing, expected`}},
		{"extra", append(slices.Clone(base), bson.E{Key: "x", Value: true}), []string{`x: not expected, stored true`}},
		{"order", bson.D{base[0], base[2], base[1], base[3], base[4]}, []string{`document: fields in another order: stored [_id, age, name, address, tags], expected [_id, name, age, address, tags]`}},
	}
	for _, tc := range cases {
		got, n := diffDocs(m(tc.stored), m(base))
		if n != len(tc.want) || len(got) != len(tc.want) {
			t.Errorf("%s: %d diffs %q, want %q", tc.name, n, got, tc.want)
			continue
		}
		for k := range got {
			if !strings.HasPrefix(got[k], tc.want[k]) {
				t.Errorf("%s: diff %q, want %q", tc.name, got[k], tc.want[k])
			}
		}
	}
}

func set(d bson.D, key string, v any) bson.D {
	out := slices.Clone(d)
	for k := range out {
		if out[k].Key == key {
			out[k].Value = v
		}
	}
	return out
}

// FuzzDiffDocs: a document never differs from itself, two different
// documents always show at least one difference, and nothing panics.
func FuzzDiffDocs(f *testing.F) {
	a, _ := bson.Marshal(bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: bson.D{{Key: "y", Value: bson.A{1, "2"}}}}})
	b, _ := bson.Marshal(bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: bson.D{{Key: "y", Value: bson.A{1, "3"}}}}})
	f.Add([]byte(a), []byte(b))
	f.Add([]byte(a), []byte{5, 0, 0, 0, 0})
	f.Add([]byte{1, 2, 3}, []byte(a))
	f.Fuzz(func(t *testing.T, x, y []byte) {
		if d, n := diffDocs(x, x); n != 0 && bson.Raw(x).Validate() == nil {
			t.Fatalf("a document differs from itself: %q", d)
		}
		_, n := diffDocs(x, y)
		if !bytes.Equal(x, y) && n == 0 {
			t.Fatalf("different documents without a difference")
		}
		_, _ = idFirst(x)
		_ = content(x)
	})
}

func seedInto(t *testing.T, cl *mongo.Client, p *seed.Plan) *seed.Dataset {
	t.Helper()
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ds.Written() {
		if _, err := mongowrite.Insert(context.Background(), cl.Database(ds.DB).Collection(c.Name()), c, mongowrite.InsertOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return ds
}

func expectAll(t *testing.T, ds *seed.Dataset) ExpectedSet {
	t.Helper()
	var set ExpectedSet
	for _, c := range ds.Collections() {
		e, err := ExpectCollection(context.Background(), ds, c)
		if err != nil {
			t.Fatal(err)
		}
		if c.RefOnly() {
			set.Referenced = append(set.Referenced, e)
		} else {
			set.Verify = append(set.Verify, e)
		}
	}
	return set
}

func row(t *testing.T, rep *Report, name string) *Row {
	t.Helper()
	for _, r := range rep.Rows {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no row %q", name)
	return nil
}

// On a server that is not known to be FerretDB the collection is read
// sorted and $toDate converts every _id on the server; under FerretDB's
// profile the row is skipped with that reason and the order is checked on
// the client.
func TestVerifyDBServerToDate(t *testing.T) {
	cl := startServer(t)
	ds := seedInto(t, cl, &seed.Plan{DB: "x", Seed: 1, Seeded: true, Span: time.Hour,
		Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 40}}})
	rep, err := VerifyDB(context.Background(), cl, expectAll(t, ds), DBOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("clean seed failed: %+v", rep.Rows)
	}
	r := row(t, rep, "users: timestamp on server ($toDate)")
	if r.Result() != StatusPass || r.Cases != 40 {
		t.Errorf("server row: %s %q, %d cases; want 40 converted", r.Result(), r.Reason, r.Cases)
	}
	if o := row(t, rep, "users: sorted by _id = generation order"); o.Cases != 40 || o.Result() != StatusPass {
		t.Errorf("order row: %+v", o)
	}

	rep, err = VerifyDB(context.Background(), cl, expectAll(t, ds), DBOptions{Profile: rules.FerretDB})
	if err != nil {
		t.Fatal(err)
	}
	if r := row(t, rep, "users: timestamp on server ($toDate)"); r.Reason != "server has no $toDate" {
		t.Errorf("FerretDB server row: %q", r.Reason)
	}
	// The order is checked on the client, on the one read.
	if o := row(t, rep, "users: sorted by _id = generation order"); o.Cases != 40 || o.Result() != StatusPass {
		t.Errorf("FerretDB order row: %+v", o)
	}
}

// References into collections only referred to: skipped with the reason
// while they are empty, checked once they are there, failed when one is
// removed.
func TestVerifyDBReferences(t *testing.T) {
	cl := startServer(t)
	ctx := context.Background()
	orders := &seed.Plan{DB: "r", Seed: 4, Seeded: true, Collections: []seed.CollectionSpec{
		{Name: "orders", Kind: seed.KindOrder, Count: 30},
		{Name: "users", Kind: seed.KindUser, Count: 30, RefOnly: true},
		{Name: "products", Kind: seed.KindProduct, Count: 3, RefOnly: true},
	}}
	ds := seedInto(t, cl, orders)
	rep, err := VerifyDB(ctx, cl, expectAll(t, ds), DBOptions{Profile: rules.FerretDB})
	if err != nil {
		t.Fatal(err)
	}
	r := row(t, rep, "orders: references userId -> users")
	if r.Result() != StatusSkipped || !strings.Contains(r.Reason, "r.users is empty") {
		t.Fatalf("userId row with no users: %s %q", r.Result(), r.Reason)
	}
	seedInto(t, cl, &seed.Plan{DB: "r", Seed: 4, Seeded: true, Collections: []seed.CollectionSpec{
		{Name: "users", Kind: seed.KindUser, Count: 30}, {Name: "products", Kind: seed.KindProduct, Count: 3}}})
	rep, _ = VerifyDB(ctx, cl, expectAll(t, ds), DBOptions{Profile: rules.FerretDB})
	if !rep.OK() || row(t, rep, "orders: references userId -> users").Cases != 30 || row(t, rep, "orders: references productIds -> products").Result() != StatusPass {
		t.Fatalf("references with users and products: %+v", rep.Rows)
	}
	// Remove the user of order 0.
	var o bson.Raw
	o, err = cl.Database("r").Collection("orders").FindOne(ctx, bson.D{{Key: "_id", Value: ds.Collection("orders").ID(0)}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	uid := o.Lookup("userId")
	if _, err := cl.Database("r").Collection("users").DeleteOne(ctx, bson.D{{Key: "_id", Value: uid}}); err != nil {
		t.Fatal(err)
	}
	rep, _ = VerifyDB(ctx, cl, expectAll(t, ds), DBOptions{Profile: rules.FerretDB})
	r = row(t, rep, "orders: references userId -> users")
	if r.Result() != StatusFail || !strings.Contains(strings.Join(r.Examples, "\n"), "document 0 (_id ObjectId('") || !strings.Contains(r.Examples[0], "userId "+show(uid)+" is not an _id of r.users") {
		t.Fatalf("userId row after deleting a user: %+v", r)
	}
}

// A fixture whose _id is not the first field matches the stored document,
// where MongoDB moves _id to the front.
func TestVerifyDBFixtureIDNotFirst(t *testing.T) {
	cl := startServer(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "things.ndjson")
	text := `{"a": 1, "_id": 5, "b": {"c": [1, 2]}}` + "\n" + `{"_id": "k", "z": true}` + "\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	coll := cl.Database("f").Collection("things")
	if _, err := fixtures.Load(ctx, coll, []fixtures.Source{fixtures.FileSource(path)}, fixtures.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	e, err := ExpectFixtures(ctx, "f", "things", []string{path})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyDB(ctx, cl, ExpectedSet{Verify: []*Expected{e}}, DBOptions{Profile: rules.FerretDB})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		var b strings.Builder
		_ = rep.WriteTable(&b)
		t.Fatalf("clean load failed:\n%s", b.String())
	}
	if r := row(t, rep, "things: _id type"); r.Cases != 2 {
		t.Errorf("_id type row: %+v", r)
	}
	if r := row(t, rep, "things: ObjectID timestamp in window"); r.Result() != StatusSkipped || r.Reason != "the files have no ObjectID _id" {
		t.Errorf("window row: %s %q", r.Result(), r.Reason)
	}
	// Changing a nested value is found and named by file and line.
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 5}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b.c.1", Value: 3}}}}); err != nil {
		t.Fatal(err)
	}
	rep, _ = VerifyDB(ctx, cl, ExpectedSet{Verify: []*Expected{e}}, DBOptions{Profile: rules.FerretDB})
	r := row(t, rep, "things: documents equal (BSON bytes)")
	if r.Mismatches != 1 || len(r.Examples) != 1 || r.Examples[0] != "things.ndjson:1 (_id 5): b.c.1: stored 3, expected 2" {
		t.Errorf("equal row: %+v", r)
	}
}

func TestExpectCollectionRefusesUnseeded(t *testing.T) {
	ds, err := (&seed.Plan{Collections: []seed.CollectionSpec{{Name: "u", Kind: seed.KindUser, Count: 1}}}).Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExpectCollection(context.Background(), ds, ds.Collection("u")); err == nil || !strings.Contains(err.Error(), "no seed") {
		t.Fatalf("unseeded plan: %v", err)
	}
}

// A collection whose _ids mix strategies verifies whole, references into
// it included, and a document missing from it is found.
func TestVerifyDBIDMix(t *testing.T) {
	cl := startServer(t)
	ctx := context.Background()
	mix := []seed.IDShare{{ID: seed.IDStrategy{Kind: seed.IDObjectID}, Share: 0.2}, {ID: seed.IDStrategy{Kind: seed.IDUUID}, Share: 0.1}}
	ds := seedInto(t, cl, &seed.Plan{DB: "m", Seed: 6, Seeded: true, Collections: []seed.CollectionSpec{
		{Name: "orders", Kind: seed.KindOrder, Count: 60},
		{Name: "users", Kind: seed.KindUser, Count: 40, ID: seed.IDStrategy{Kind: seed.IDInt}, IDStart: 1, IDMix: mix},
		{Name: "products", Kind: seed.KindProduct, Count: 5},
	}})
	rep, err := VerifyDB(ctx, cl, expectAll(t, ds), DBOptions{Profile: rules.FerretDB})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || row(t, rep, "orders: references userId -> users").Result() != StatusPass {
		for _, r := range rep.Rows {
			if r.Result() == StatusFail {
				t.Errorf("%s: %s %v", r.Name, r.Reason, r.Examples)
			}
		}
		t.Fatal("a mixed collection and references into it do not verify")
	}
	users := ds.Collection("users")
	var gone any
	for i := range users.Len() {
		if _, ok := users.ID(i).(bson.Binary); ok {
			gone = users.ID(i)
			break
		}
	}
	if _, err := cl.Database("m").Collection("users").DeleteOne(ctx, bson.D{{Key: "_id", Value: gone}}); err != nil {
		t.Fatal(err)
	}
	rep, _ = VerifyDB(ctx, cl, expectAll(t, ds), DBOptions{Profile: rules.FerretDB})
	if rep.OK() {
		t.Fatalf("verify passed with the document of _id %v deleted", gone)
	}
}

// A template that writes its own createdAt, or leaves it out, is not held
// to the _id timestamp; one without createdAt (seed adds it) is.
func TestVerifyDBTemplateCreatedAt(t *testing.T) {
	cl := startServer(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, tmpl string
		checked    bool
	}{
		{"left out", `{"a": "{word}", "createdAt": {"$mix": [{"$missing": true}], "$weights": [1]}}`, false},
		{"own", `{"a": "{word}", "createdAt": "{word}"}`, false},
		{"added", `{"a": "{word}"}`, true},
	} {
		tmpl, err := seed.ParseTemplate("t.json", []byte(tc.tmpl))
		if err != nil {
			t.Fatal(err)
		}
		db := "c" + strings.ReplaceAll(tc.name, " ", "")
		ds := seedInto(t, cl, &seed.Plan{DB: db, Seed: 2, Seeded: true, Collections: []seed.CollectionSpec{{Name: "t", Template: tmpl, Count: 20}}})
		rep, err := VerifyDB(ctx, cl, expectAll(t, ds), DBOptions{Profile: rules.FerretDB})
		if err != nil {
			t.Fatal(err)
		}
		r := row(t, rep, "t: ObjectID timestamp = createdAt")
		if !rep.OK() || (r.Result() == StatusPass) != tc.checked {
			t.Errorf("%s: report OK %v, createdAt row %s %q; want OK and the row checked %v", tc.name, rep.OK(), r.Result(), r.Reason, tc.checked)
		}
	}
}
