package cli

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/seed"
)

// vdbServer starts an embedded server for one test and a client to tamper
// with its data.
func vdbServer(t *testing.T) (string, *mongo.Client) {
	return mongotest.Start(t)
}

func vdbSeed(t *testing.T, uri string, args ...string) {
	t.Helper()
	out, errs, code := runApp(t, t.Context(), "", append([]string{"seed", "--uri", uri, "--quiet"}, args...)...)
	if code != 0 {
		t.Fatalf("seed %v: exit %d\n%s%s", args, code, out, errs)
	}
}

// expectVerify runs verify db and checks the exit code and that stdout
// holds every want.
func expectVerify(t *testing.T, code int, want []string, args ...string) string {
	t.Helper()
	out, errs, got := runApp(t, t.Context(), "", append([]string{"verify", "db"}, args...)...)
	if got != code {
		t.Fatalf("verify db %v: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s", args, got, code, out, errs)
	}
	if code == 0 && beyondProgress(errs) != "" {
		t.Errorf("verify db %v: expected nothing but progress on stderr, got %q", args, errs)
	}
	flat := squeeze(out)
	for _, w := range want {
		if !strings.Contains(out, w) && !strings.Contains(flat, squeeze(w)) {
			t.Errorf("verify db %v: output lacks %q:\n%s", args, w, out)
		}
	}
	return out
}

// failedRow matches a failing row of a table report.
var failedRow = regexp.MustCompile(`(?m) fail(: .*)?$`)

// serverToDate is the $toDate row of a collection of ObjectIDs, squeezed.
var serverToDate = regexp.MustCompile(`timestamp on server \(\$toDate\) [0-9,]+ 0 pass`)

// squeeze collapses runs of spaces, so that table rows can be matched
// whatever the column widths.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// genUsers is document i of the user collection seeded with these flags, for
// naming it in expectations.
func genUsers(t *testing.T, n int64, s uint64) *seed.Collection {
	t.Helper()
	p, err := planOf(t, "-n", strconv.FormatInt(n, 10), "--seed", strconv.FormatUint(s, 10))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	return ds.Collection("users")
}

func TestVerifyDBCleanSeedPasses(t *testing.T) {
	uri, _ := vdbServer(t)
	cases := []struct {
		name string
		args []string
	}{
		{"objectid", []string{"--db", "a", "-n", "150", "--seed", "7", "--span", "30d"}},
		{"int", []string{"--db", "b", "-n", "150", "--seed", "7", "--id", "int", "--id-start", "1000"}},
		{"uuid", []string{"--db", "c", "-n", "150", "--seed", "7", "--id", "uuid", "--kind", "product"}},
		{"field", []string{"--db", "d", "-n", "150", "--seed", "7", "--id", "field:email"}},
		{"employee", []string{"--db", "e", "-n", "150", "--seed", "3", "--kind", "employee", "--id", "int"}},
		{"shop", []string{"--db", "f", "--plan", "shop", "-n", "60", "--seed", "9", "--span", "72h"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vdbSeed(t, uri, tc.args...)
			out := expectVerify(t, 0, []string{"result: PASS", "timestamp on server ($toDate)"}, append([]string{"--uri", uri}, tc.args...)...)
			if failedRow.MatchString(out) {
				t.Errorf("a row failed:\n%s", out)
			}
			switch tc.name {
			case "objectid", "shop":
				if !serverToDate.MatchString(squeeze(out)) || strings.Contains(out, "($toDate) 0 ") {
					t.Errorf("the server did not convert the _ids:\n%s", out)
				}
			default:
				if !strings.Contains(out, "skipped: the _ids are not ObjectIDs") {
					t.Errorf("ObjectID rows not skipped with their reason:\n%s", out)
				}
			}
			switch tc.name {
			case "uuid":
				if !strings.Contains(out, "skipped: uuid _ids are random") {
					t.Errorf("uuid order row not skipped with its reason:\n%s", out)
				}
			case "field":
				if !strings.Contains(out, "skipped: natural key email does not increase") {
					t.Errorf("natural key order row not skipped with its reason:\n%s", out)
				}
			case "int", "objectid":
				if !strings.Contains(squeeze(out), "sorted by _id = generation order 150 0 pass") {
					t.Errorf("order row not checked on every document:\n%s", out)
				}
			case "shop":
				for _, w := range []string{"orders: references userId -> users 180 0 pass", "orders: references productIds -> products", "users: count 1 0 pass", "products: count 1 0 pass"} {
					if !strings.Contains(squeeze(out), w) {
						t.Errorf("output lacks %q:\n%s", w, out)
					}
				}
			}
		})
	}
}

func TestVerifyDBDetectsTampering(t *testing.T) {
	uri, cl := vdbServer(t)
	const n = 120
	users := genUsers(t, n, 7)
	coll := cl.Database("oidkit").Collection("users")
	ctx := context.Background()
	id := func(i int64) bson.ObjectID { return bson.ObjectID(users.ObjectID(i)) }
	oidText := func(i int64) string { return "ObjectId('" + id(i).Hex() + "')" }
	args := []string{"--uri", uri, "-n", "120", "--seed", "7"}
	reseed := func(t *testing.T) {
		t.Helper()
		vdbSeed(t, uri, "-n", "120", "--seed", "7", "--drop")
		expectVerify(t, 0, []string{"result: PASS"}, args...)
	}

	t.Run("changed field", func(t *testing.T) {
		reseed(t)
		before, err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: id(17)}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: id(17)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "address.city", Value: "Nowhere"}}}}); err != nil {
			t.Fatal(err)
		}
		city := before.Lookup("address", "city").StringValue()
		expectVerify(t, 1, []string{
			"users: documents equal (BSON bytes)      120           1  fail",
			"document 17 (_id " + oidText(17) + "): address.city: stored \"Nowhere\", expected \"" + city + "\"",
			"result: FAIL",
		}, args...)
	})

	t.Run("changed type", func(t *testing.T) {
		reseed(t)
		before, err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: id(3)}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		age := before.Lookup("age").Int32()
		if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: id(3)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "age", Value: int64(age)}}}}); err != nil {
			t.Fatal(err)
		}
		expectVerify(t, 1, []string{"document 3 (_id " + oidText(3) + "): age: stored Long(", " (int64), expected "}, args...)
	})

	t.Run("deleted", func(t *testing.T) {
		reseed(t)
		if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: id(42)}}); err != nil {
			t.Fatal(err)
		}
		expectVerify(t, 1, []string{
			"users: count                                  1           1  fail",
			"oidkit.users holds 119 documents, expected 120",
			"users: missing _ids                        120           1  fail",
			"document 42 (_id " + oidText(42) + "): not in the collection",
		}, args...)
	})

	t.Run("duplicated under another _id", func(t *testing.T) {
		reseed(t)
		var doc bson.D
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: id(9)}}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		other := bson.ObjectID{0x65, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
		doc[0].Value = other
		if _, err := coll.InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
		otherText := "ObjectId('" + hex.EncodeToString(other[:]) + "')"
		expectVerify(t, 1, []string{
			"users: duplicated documents              121           1  fail",
			"stored _id " + otherText + " (ObjectID) has the content of document 9 (_id " + oidText(9) + ")",
			"_id " + otherText + " (ObjectID): not among the expected _ids",
			"oidkit.users holds 121 documents, expected 120",
		}, args...)
	})

	t.Run("string _id", func(t *testing.T) {
		reseed(t)
		var doc bson.D
		if err := coll.FindOneAndDelete(ctx, bson.D{{Key: "_id", Value: id(5)}}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		h := id(5).Hex()
		doc[0].Value = h
		if _, err := coll.InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
		expectVerify(t, 1, []string{
			"users: _id type                          120           1  fail",
			"_id \"" + h + "\" (string): expected ObjectID (_id strategy objectid)",
			"document 5 (_id " + oidText(5) + "): not in the collection",
			"stored _id \"" + h + "\" (string) has the content of document 5",
			"_id \"" + h + "\" (string): not among the expected _ids",
		}, args...)
	})

	t.Run("json", func(t *testing.T) {
		reseed(t)
		var doc bson.D
		if err := coll.FindOneAndDelete(ctx, bson.D{{Key: "_id", Value: id(5)}}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		doc[0].Value = id(5).Hex()
		if _, err := coll.InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
		out, _, code := runApp(t, t.Context(), "", append([]string{"verify", "db", "--json"}, args...)...)
		if code != 1 {
			t.Fatalf("exit %d, expected 1", code)
		}
		var rep struct {
			OK   bool `json:"ok"`
			Rows []struct {
				Name     string   `json:"name"`
				Status   string   `json:"status"`
				Examples []string `json:"examples"`
			} `json:"rows"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		if rep.OK {
			t.Fatal("ok is true")
		}
		found := false
		for _, r := range rep.Rows {
			if r.Name == "users: _id type" && r.Status == "fail" && len(r.Examples) == 1 {
				found = true
			}
		}
		if !found {
			t.Errorf("no failing _id type row:\n%s", out)
		}
	})
}

func TestVerifyDBFixtures(t *testing.T) {
	uri, cl := vdbServer(t)
	dir := t.TempDir()
	for _, f := range []struct{ name, extra string }{{"people.ndjson", ""}, {"items.json", "--array"}} {
		args := []string{"fixtures", "-n", "80", "--seed", "5", "--span", "10d", "--out", filepath.Join(dir, f.name), "--quiet"}
		if f.extra != "" {
			args = append(args, f.extra)
		}
		if out, errs, code := runApp(t, t.Context(), "", args...); code != 0 {
			t.Fatalf("fixtures: exit %d %s%s", code, out, errs)
		}
	}
	people, items := filepath.Join(dir, "people.ndjson"), filepath.Join(dir, "items.json")
	if out, errs, code := runApp(t, t.Context(), "", "load", "--uri", uri, "--quiet", people, items); code != 0 {
		t.Fatalf("load: exit %d %s%s", code, out, errs)
	}
	out := expectVerify(t, 0, []string{"verify db oidkit.people, oidkit.items", "people: documents equal (BSON bytes)      80", "items: count", "result: PASS"},
		"--uri", uri, "--fixture", people, "--fixture", items)
	if failedRow.MatchString(out) {
		t.Errorf("a row failed:\n%s", out)
	}

	// Edit line 31 of the file: the collection no longer matches it.
	data, err := os.ReadFile(people)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var doc bson.D
	if err := bson.UnmarshalExtJSON([]byte(lines[30]), false, &doc); err != nil {
		t.Fatal(err)
	}
	var old string
	for k := range doc {
		if doc[k].Key == "lastName" {
			old = doc[k].Value.(string)
			doc[k].Value = "Edited"
		}
	}
	b, err := bson.MarshalExtJSON(doc, false, false)
	if err != nil {
		t.Fatal(err)
	}
	lines[30] = string(b)
	if err := os.WriteFile(people, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	expectVerify(t, 1, []string{
		"people: documents equal (BSON bytes)      80           1  fail",
		"people.ndjson:31 (_id ObjectId('",
		"lastName: stored \"" + old + "\", expected \"Edited\"",
	}, "--uri", uri, "--fixture", people)

	// A document deleted from the collection is named by its line.
	var d31 bson.Raw
	if err := cl.Database("oidkit").Collection("items").FindOne(context.Background(), bson.D{}, options.FindOne().SetSkip(4)).Decode(&d31); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Database("oidkit").Collection("items").DeleteOne(context.Background(), bson.D{{Key: "_id", Value: d31.Lookup("_id")}}); err != nil {
		t.Fatal(err)
	}
	expectVerify(t, 1, []string{"items: missing _ids", "items.json:", "not in the collection"}, "--uri", uri, "--fixture", items)
}

func TestVerifyDBUsage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ndjson")
	_ = os.WriteFile(bad, []byte("{\"_id\": 1}\n{\"_id\": \n"), 0o644)
	noID := filepath.Join(dir, "noid.ndjson")
	_ = os.WriteFile(noID, []byte("{\"_id\": 1}\n{\"a\": 2}\n"), 0o644)
	twice := filepath.Join(dir, "twice.ndjson")
	_ = os.WriteFile(twice, []byte("{\"_id\": 1}\n{\"_id\": 1.0}\n"), 0o644)
	uri, _ := vdbServer(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-n", "10"}, "expected --seed S"},
		{[]string{"--seed", "x"}, `--seed "x"`},
		{[]string{"--seed", "1", "--id", "nope"}, `--id "nope"`},
		{[]string{"--fixture", bad, "--seed", "1"}, `--seed "1" with --fixture`},
		{[]string{"--fixture", bad, "-n", "5"}, "oidkit: -n 5 with --fixture \"" + bad + "\": the fixture files are the expected documents; drop -n\n"},
		{[]string{"--fixture", filepath.Join(dir, "missing.ndjson")}, "missing.ndjson"},
		{[]string{"--fixture", dir}, "is a directory"},
		{[]string{"--fixture", bad, "--uri", uri}, "bad.ndjson:2"},
		{[]string{"--fixture", noID, "--uri", uri}, "noid.ndjson:2"},
		{[]string{"--fixture", twice, "--uri", uri}, "twice.ndjson:2"},
		{[]string{"--seed", "1", "--order-limit", "0"}, "--order-limit 0"},
		{[]string{"--seed", "1", "extra"}, `unexpected argument "extra"`},
		{[]string{"--seed", "1", "--uri", "http://x"}, "--uri"},
	}
	for _, tc := range cases {
		out, errs, code := runApp(t, t.Context(), "", append([]string{"verify", "db"}, tc.args...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, expected 2\n%s%s", tc.args, code, out, errs)
			continue
		}
		if !strings.Contains(errs, tc.want) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, errs, tc.want)
		}
	}
}

func TestVerifyDBUnreachable(t *testing.T) {
	_, errs, code := runApp(t, t.Context(), "", "verify", "db", "--seed", "1", "--uri", "mongodb://127.0.0.1:1", "--timeout", "300ms")
	if code != 1 || !strings.Contains(errs, "unreachable") {
		t.Fatalf("exit %d, stderr %q; expected exit 1 naming the unreachable server", code, errs)
	}
	_ = time.Second
}

// verify db with generation flags names the parts not run and not done, as
// it does without flags, from the manifests of the flags' run; flags of
// another run get a note saying so and are checked on their own.
func TestVerifyDBFlagsNameMissingParts(t *testing.T) {
	uri, client := mongotest.Start(t)
	flags := []string{"--uri", uri, "--db", "p8", "--plan", "shop", "-n", "40", "--seed", "5"}
	for _, i := range []int{0, 1, 2, 4, 5, 7} {
		mustSeed(t, append(flags, "--part", fmt.Sprintf("%d/8", i))...)
	}
	// Part 5 as a killed process leaves it: running, nothing acknowledged.
	runs := client.Database("p8").Collection(mongowrite.ManifestCollection)
	key := mongowrite.ManifestKey("users", parts.Part{I: 5, N: 8})
	if _, err := runs.UpdateOne(t.Context(), bson.D{{Key: "_id", Value: key}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: mongowrite.StateRunning}, {Key: "acked", Value: bson.A{}}, {Key: "ackedCount", Value: 0}}}}); err != nil {
		t.Fatal(err)
	}
	missing := []string{"users part 3/8: not started", "users part 5/8: running, 0 of 5 documents", "users part 6/8: not started", "orders part 6/8: not started"}
	for _, args := range [][]string{{"--uri", uri, "--db", "p8"}, flags, {"--uri", uri, "--db", "p8", "--seed", "5", "--plan", "shop", "-n", "40", "--collection", "users"}} {
		out, errOut, code := runApp(t, t.Context(), "", append([]string{"verify", "db", "--quiet"}, args...)...)
		if code != ExitFailure {
			t.Fatalf("verify db %v: exit %d, expected 1\n%s%s", args, code, out, errOut)
		}
		for _, w := range missing {
			if strings.Contains(w, "orders") && slices.Contains(args, "--collection") {
				continue
			}
			if !strings.Contains(errOut, w) {
				t.Errorf("verify db %v: stderr lacks %q:\n%s", args, w, errOut)
			}
		}
		if out != "" {
			t.Errorf("verify db %v: a report of a run not all written:\n%s", args, out)
		}
	}
	// Another seed is another run: its flags are checked, with a note, and
	// the parts of the run stored are not reported as its own.
	out, errOut, code := runApp(t, t.Context(), "", "verify", "db", "--quiet", "--uri", uri, "--db", "p8", "--plan", "shop", "-n", "40", "--seed", "6")
	if code != ExitFailure || !strings.Contains(out, "users: count") || strings.Contains(errOut, "not started") ||
		!strings.Contains(errOut, "oidkit: note: p8.users holds the run manifests (in 8 parts) of another run, written with --seed 5 where the flags give --seed 6") {
		t.Fatalf("verify db with another run's flags: exit %d\n%s%s", code, out, errOut)
	}
	// A check of one part that ran passes with the flags.
	expectVerify(t, 0, []string{"users: count"}, append(flags, "--part", "2/8")...)
	// Once every part is done, the flags check the whole run.
	for _, i := range []int{3, 6} {
		mustSeed(t, append(flags, "--part", fmt.Sprintf("%d/8", i))...)
	}
	mustSeed(t, append(flags, "--part", "5/8", "--resume")...)
	expectVerify(t, 0, []string{"users: count", "orders: documents equal"}, flags...)
	expectVerify(t, 0, []string{"users: count"}, "--uri", uri, "--db", "p8")
}
