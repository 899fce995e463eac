package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/rules"
)

const orderRow = "items: sorted by _id = generation order"

// verifyFixture loads lines as one fixture file into fx.items and verifies
// it as on FerretDB.
func verifyFixture(t *testing.T, lines []string) *Report {
	t.Helper()
	ctx := context.Background()
	cl := startServer(t)
	path := filepath.Join(t.TempDir(), "items.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	coll := cl.Database("fx").Collection("items")
	if _, err := fixtures.Load(ctx, coll, []fixtures.Source{fixtures.FileSource(path)}, fixtures.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	e, err := ExpectFixtures(ctx, "fx", "items", []string{path})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyDB(ctx, cl, ExpectedSet{Verify: []*Expected{e}}, DBOptions{Profile: rules.FerretDB})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// On FerretDB the order row is decided on the client, with MongoDB's order
// of _ids: binary _ids whose bytes increase but whose lengths do not are
// not in sorted order, and the row says where.
func TestVerifyDBOrderClientSide(t *testing.T) {
	bin := func(b64 string) string { return `{"_id": {"$binary": {"base64": "` + b64 + `", "subType": "00"}}}` }
	cases := []struct {
		name   string
		lines  []string
		status Status
		reason string
	}{
		{"increasing", []string{bin("/w=="), bin("AAA="), bin("AAE=")}, StatusPass, ""},
		// 0x0000 then 0xff: increasing bytes, but the shorter sorts first.
		{"longer first", []string{bin("AAA="), bin("/w==")}, StatusSkipped,
			"the files' _ids are not in increasing order (items.ndjson:2 sorts before items.ndjson:1): sorted order is not file order"},
		// 2^53 as a double, then 2^53+1: equal as doubles, increasing exactly.
		{"int64 past a double", []string{`{"_id": 9007199254740992.0}`, `{"_id": {"$numberLong": "9007199254740993"}}`}, StatusPass, ""},
		{"numbers across types", []string{`{"_id": 2.5}`, `{"_id": 2}`}, StatusSkipped,
			"the files' _ids are not in increasing order (items.ndjson:2 sorts before items.ndjson:1): sorted order is not file order"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := verifyFixture(t, c.lines)
			r := row(t, rep, orderRow)
			if r.Result() != c.status || r.Reason != c.reason {
				t.Fatalf("order row: %s %q; expected %s %q", r.Result(), r.Reason, c.status, c.reason)
			}
			if c.status == StatusPass && r.Cases != int64(len(c.lines)) {
				t.Errorf("order row: %d cases; expected %d", r.Cases, len(c.lines))
			}
			if rep.Notes[0] != "the server sorts in memory, so collections are read in natural order and the _id order is checked on the client, on that read" {
				t.Errorf("note: %q", rep.Notes)
			}
		})
	}
}

// Two stored documents matched to one expected document (the same _id
// under two numeric types, which both servers refuse on insert) would be
// read twice by a sort on _id: the natural-order check fails the row.
func TestCheckNaturalStoredTwice(t *testing.T) {
	e := &Expected{src: &fixtureSource{}}
	row := &Row{Name: "order"}
	checkNatural(row, e, 2, rawValueOf(int32(2)), false)
	checkNatural(row, e, 2, rawValueOf(int64(2)), true)
	if row.Cases != 2 || row.Mismatches != 1 || len(row.Examples) != 1 ||
		row.Examples[0] != "_id Long(2) (int64): document 2 stored twice, so a read sorted by _id gives it twice" {
		t.Fatalf("row: %+v", row)
	}
}
