package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// wantRow is what a report row must say after a tampering: its status, its
// mismatches and a text one of its examples holds.
type wantRow struct {
	name       string
	status     Status
	mismatches int64
	example    string
}

func checkRows(t *testing.T, rep *Report, want []wantRow) {
	t.Helper()
	failed := map[string]bool{}
	for _, w := range want {
		r := row(t, rep, w.name)
		if r.Result() != w.status || r.Mismatches != w.mismatches {
			t.Errorf("%s: %s with %d mismatches; expected %s with %d (%+v)", w.name, r.Result(), r.Mismatches, w.status, w.mismatches, r)
		}
		if w.example != "" && !strings.Contains(strings.Join(r.Examples, "\n"), w.example) {
			t.Errorf("%s: examples %q lack %q", w.name, r.Examples, w.example)
		}
		failed[w.name] = w.status == StatusFail
	}
	// No other row fails: the tampering is named where it belongs only.
	for _, r := range rep.Rows {
		if _, listed := failed[r.Name]; !listed && r.Result() == StatusFail {
			t.Errorf("%s fails too: %+v", r.Name, r)
		}
	}
}

// Each tampering of a seeded collection fails exactly the rows that name it,
// with the document and _id it concerns.
func TestVerifyDBDetectsTampering(t *testing.T) {
	cl := startServer(t)
	ctx := context.Background()
	const n = 50
	cases := []struct {
		name   string
		tamper func(t *testing.T, coll *mongo.Collection, c *seed.Collection) []wantRow
	}{
		{"clean", func(*testing.T, *mongo.Collection, *seed.Collection) []wantRow { return nil }},
		{"changed field", func(t *testing.T, coll *mongo.Collection, c *seed.Collection) []wantRow {
			mustWrite(t)(coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: c.ID(17)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "firstName", Value: "Nobody"}}}}))
			return []wantRow{{"users: documents equal (BSON bytes)", StatusFail, 1, "document 17 (_id " + show(rawValueOf(c.ID(17))) + "): firstName: stored \"Nobody\", expected "}}
		}},
		{"deleted", func(t *testing.T, coll *mongo.Collection, c *seed.Collection) []wantRow {
			mustWrite(t)(coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: c.ID(42)}}))
			return []wantRow{
				{"users: count", StatusFail, 1, fmt.Sprintf("holds %d documents, expected %d", n-1, n)},
				{"users: missing _ids", StatusFail, 1, "document 42 (_id " + show(rawValueOf(c.ID(42))) + "): not in the collection"},
			}
		}},
		{"duplicated under another _id", func(t *testing.T, coll *mongo.Collection, c *seed.Collection) []wantRow {
			doc := c.Doc(9)
			doc[0].Value = "copy"
			mustWrite(t)(coll.InsertOne(ctx, doc))
			return []wantRow{
				{"users: count", StatusFail, 1, ""},
				{"users: unexpected _ids", StatusFail, 1, `_id "copy" (string): not among the expected _ids`},
				{"users: _id type", StatusFail, 1, `_id "copy" (string): expected ObjectID (_id strategy objectid)`},
				{"users: duplicated documents", StatusFail, 1, `stored _id "copy" (string) has the content of document 9 (_id ` + show(rawValueOf(c.ID(9))) + ")"},
			}
		}},
		{"wrong _id type", func(t *testing.T, coll *mongo.Collection, c *seed.Collection) []wantRow {
			id := c.ObjectID(5)
			mustWrite(t)(coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: c.ID(5)}}))
			doc := c.Doc(5)
			doc[0].Value = id.Hex()
			mustWrite(t)(coll.InsertOne(ctx, doc))
			return []wantRow{
				{"users: _id type", StatusFail, 1, `_id "` + id.Hex() + `" (string): expected ObjectID (_id strategy objectid)`},
				{"users: missing _ids", StatusFail, 1, "document 5 (_id " + show(rawValueOf(c.ID(5))) + "): not in the collection"},
				{"users: unexpected _ids", StatusFail, 1, ""},
				{"users: duplicated documents", StatusFail, 1, `has the content of document 5`},
			}
		}},
	}
	for k, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan := &seed.Plan{DB: fmt.Sprintf("tamper%d", k), Seed: 7, Seeded: true,
				Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: n}}}
			ds := seedInto(t, cl, plan)
			c := ds.Collection("users")
			want := tc.tamper(t, cl.Database(ds.DB).Collection("users"), c)
			rep, err := VerifyDB(ctx, cl, expectAll(t, ds), DBOptions{Profile: rules.FerretDB})
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, rep, want)
			if rep.OK() != (len(want) == 0) {
				t.Errorf("OK() = %v with %d failing rows expected", rep.OK(), len(want))
			}
		})
	}
}

// The strategies whose _ids seed does not invert (uuid, field:NAME) are
// found through a table built from the collection's stream.
func TestVerifyDBTableStrategies(t *testing.T) {
	cl := startServer(t)
	ctx := context.Background()
	for k, strat := range []string{"uuid", "field:email", "int"} {
		t.Run(strat, func(t *testing.T) {
			id, err := seed.ParseIDStrategy(strat)
			if err != nil {
				t.Fatal(err)
			}
			ds := seedInto(t, cl, &seed.Plan{DB: fmt.Sprintf("strat%d", k), Seed: 3, Seeded: true,
				Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 40, ID: id}}})
			rep, err := VerifyDB(ctx, cl, expectAll(t, ds), DBOptions{Profile: rules.FerretDB})
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, rep, []wantRow{{"users: documents equal (BSON bytes)", StatusPass, 0, ""}})
			if r := row(t, rep, "users: unexpected _ids"); r.Cases != 40 {
				t.Errorf("unexpected _ids row: %+v", r)
			}
			c := ds.Collection("users")
			mustWrite(t)(cl.Database(ds.DB).Collection("users").DeleteOne(ctx, bson.D{{Key: "_id", Value: c.ID(7)}}))
			rep, err = VerifyDB(ctx, cl, expectAll(t, ds), DBOptions{Profile: rules.FerretDB})
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, rep, []wantRow{
				{"users: count", StatusFail, 1, ""},
				{"users: missing _ids", StatusFail, 1, "document 7 (_id " + show(rawValueOf(c.ID(7))) + "): not in the collection"},
			})
		})
	}
}

// An edited fixture line is a mismatch named by file and line; a fixture
// that cannot serve as the expected content is a *fixtures.LineError.
func TestVerifyDBFixtureEdited(t *testing.T) {
	cl := startServer(t)
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "items.ndjson")
	lines := []string{`{"_id": 1, "name": "a"}`, `{"_id": 2, "name": "b"}`, `{"_id": 3, "name": "c"}`}
	write := func(lines []string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(lines)
	coll := cl.Database("fx").Collection("items")
	if _, err := fixtures.Load(ctx, coll, []fixtures.Source{fixtures.FileSource(path)}, fixtures.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	verifyFile := func() (*Report, error) {
		e, err := ExpectFixtures(ctx, "fx", "items", []string{path})
		if err != nil {
			return nil, err
		}
		return VerifyDB(ctx, cl, ExpectedSet{Verify: []*Expected{e}}, DBOptions{Profile: rules.FerretDB})
	}
	rep, err := verifyFile()
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, rep, nil)

	write([]string{lines[0], `{"_id": 2, "name": "B"}`, lines[2]})
	rep, err = verifyFile()
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, rep, []wantRow{{"items: documents equal (BSON bytes)", StatusFail, 1, `items.ndjson:2 (_id 2): name: stored "b", expected "B"`}})

	write([]string{lines[0], lines[1], `{"_id": 1, "name": "c"}`})
	_, err = verifyFile()
	var le *fixtures.LineError
	if !errors.As(err, &le) || le.File != path || le.Line != 3 || !errors.Is(err, fixtures.ErrDuplicateID) {
		t.Fatalf("duplicate _id in the file: %v; expected a *fixtures.LineError at %s:3 wrapping ErrDuplicateID", err, path)
	}
	if want := path + ":3: " + fixtures.ErrDuplicateID.Error() + ": the same _id as items.ndjson:1"; err.Error() != want {
		t.Errorf("message %q; expected %q", err, want)
	}
}

// mustWrite fails the test when the write it is given failed:
// mustWrite(t)(coll.InsertOne(...)).
func mustWrite(t *testing.T) func(any, error) {
	return func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}
