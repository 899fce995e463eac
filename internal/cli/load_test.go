package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// startServer starts the embedded server and returns its URI and a client.
func startServer(t *testing.T) (string, *mongo.Client, context.Context) {
	uri, c := mongotest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return uri, c, ctx
}

// dump returns the collection's documents in _id order, as stored.
func dump(t *testing.T, ctx context.Context, coll *mongo.Collection) []bson.Raw {
	t.Helper()
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.Raw
	for cur.Next(ctx) {
		out = append(out, bytes.Clone(cur.Current))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func marshalAll(t *testing.T, args []string) []bson.Raw {
	t.Helper()
	col := datasetFor(t, args).Written()[0]
	var out []bson.Raw
	for i := range col.Len() {
		raw, err := bson.Marshal(col.Doc(i))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

// fixtures → load → read back: the stored documents are the generated ones,
// byte for byte.
func TestLoadRoundTripThroughCommands(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	for i, extra := range [][]string{
		{"--kind", "user", "--id", "uuid"},
		{"--kind", "order", "--mode", "canonical", "--array"},
		{"--kind", "employee", "--id", "int", "--id-start", "10"},
	} {
		gen := append([]string{"fixtures", "--seed", "5", "-n", "120"}, extra...)
		name := []string{"u", "o", "e"}[i]
		path := filepath.Join(dir, name+".ndjson")
		if out, errOut, code := runApp(t, t.Context(), "", append(gen, "--out", path)...); code != ExitOK {
			t.Fatalf("fixtures: %d %s %s", code, out, errOut)
		}
		for _, mode := range []string{"insert", "upsert"} {
			db := "rt_" + mode
			out, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, "--db", db, "--mode", mode, "--batch", "50", path)
			if code != ExitOK || beyondProgress(errOut) != "" {
				t.Fatalf("load %s: exit %d\n%s%s", mode, code, out, errOut)
			}
			want := path + " -> " + db + "." + name + ": 120 documents: inserted 120"
			if mode == "upsert" {
				want = path + " -> " + db + "." + name + ": 120 documents: upserted 120, matched 0"
			}
			if !strings.Contains(out, want) {
				t.Errorf("load output %q, want %q", out, want)
			}
			got := dump(t, ctx, client.Database(db).Collection(name))
			expected := marshalAll(t, gen)
			if len(got) != len(expected) {
				t.Fatalf("%d stored, %d generated", len(got), len(expected))
			}
			byID := map[string]bson.Raw{}
			for _, g := range got {
				byID[g.Lookup("_id").String()] = g
			}
			for _, e := range expected {
				if g := byID[e.Lookup("_id").String()]; !bytes.Equal(g, e) {
					t.Fatalf("%v %s: stored\n %s\ngenerated\n %s", extra, mode, g, e)
				}
			}
		}
	}
}

// A file with one bad line inserts nothing, and says where and why (exit 2).
func TestLoadBadLine(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "items.ndjson")
	if _, errOut, code := runApp(t, t.Context(), "", "fixtures", "--seed", "1", "-n", "40", "--kind", "product", "--out", good); code != ExitOK {
		t.Fatal(errOut)
	}
	b, _ := os.ReadFile(good)
	lines := strings.Split(string(b), "\n")
	lines[16] = `{"_id":{"$oid":"xyz"},"name":"broken"}`
	lines[30] = `{"_id":{"$oid":"65920080d1fa3a359632df85"},"name":"no closing brace"`
	bad := filepath.Join(dir, "items2.json")
	_ = os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644)

	out, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, good, bad)
	if code != ExitUsage {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		bad + ":17: invalid Extended JSON: the provided hex string is not a valid ObjectID",
		bad + ":31: invalid JSON",
		"oidkit: 2 of 80 documents are invalid (listed above); nothing was loaded",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Count(errOut, "\n") != 3 || out != "" {
		t.Errorf("expected two problems and the summary:\nstdout %s\nstderr %s", out, errOut)
	}
	// Neither the bad file's collection nor the good one's got anything.
	for _, name := range []string{"items", "items2"} {
		if n, _ := client.Database("oidkit").Collection(name).CountDocuments(ctx, bson.D{}); n != 0 {
			t.Fatalf("%s: %d documents inserted", name, n)
		}
	}
	// One bad line in an otherwise good file, into a collection that holds
	// documents already: exit 2 and the collection exactly as it was.
	if _, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, "--collection", "items", good); code != ExitOK {
		t.Fatal(errOut)
	}
	before := dump(t, ctx, client.Database("oidkit").Collection("items"))
	// The other documents differ from the stored ones, so a write would show.
	one := strings.Split(strings.ReplaceAll(string(b), `"name":"`, `"name":"changed `), "\n")
	one[7] = `{"_id":{"$numberLong":"12x"}}`
	oneBad := filepath.Join(dir, "more.ndjson")
	_ = os.WriteFile(oneBad, []byte(strings.Join(one, "\n")), 0o644)
	for _, mode := range []string{"insert", "upsert"} {
		out, errOut, code = runApp(t, t.Context(), "", "load", "--uri", uri, "--collection", "items", "--mode", mode, oneBad)
		if code != ExitUsage || !strings.Contains(errOut, oneBad+":8: invalid Extended JSON") || !strings.Contains(errOut, "1 of 40 documents are invalid") {
			t.Fatalf("%s: exit %d\n%s%s", mode, code, out, errOut)
		}
		after := dump(t, ctx, client.Database("oidkit").Collection("items"))
		if len(after) != len(before) {
			t.Fatalf("%s: %d documents, %d before", mode, len(after), len(before))
		}
		for i := range after {
			if !bytes.Equal(after[i], before[i]) {
				t.Fatalf("%s: document %d changed", mode, i)
			}
		}
	}
	// Dry run reports the same, writing nothing.
	_, errOut2, code := runApp(t, t.Context(), "", "load", "--uri", uri, "--dry-run", bad)
	if code != ExitUsage || !strings.Contains(errOut2, bad+":17:") {
		t.Fatalf("dry run: %d %s", code, errOut2)
	}
}

func TestLoadUpsertTwiceAndDuplicates(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "staff.json")
	if _, errOut, code := runApp(t, t.Context(), "", "fixtures", "--seed", "9", "-n", "60", "--kind", "employee", "--id", "int", "--array", "--out", path); code != ExitOK {
		t.Fatal(errOut)
	}
	coll := client.Database("oidkit").Collection("staff")
	out, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, "--mode", "upsert", path)
	if code != ExitOK || !strings.Contains(out, "upserted 60, matched 0") {
		t.Fatalf("first: %d %s %s", code, out, errOut)
	}
	before := dump(t, ctx, coll)
	out, errOut, code = runApp(t, t.Context(), "", "load", "--uri", uri, "--mode", "upsert", path)
	if code != ExitOK || !strings.Contains(out, "upserted 0, matched 60") {
		t.Fatalf("second: %d %s %s", code, out, errOut)
	}
	after := dump(t, ctx, coll)
	if len(after) != 60 || len(before) != 60 {
		t.Fatalf("%d then %d documents", len(before), len(after))
	}
	for i := range after {
		if !bytes.Equal(before[i], after[i]) {
			t.Fatalf("document %d changed", i)
		}
	}
	// Insert mode over the same documents: exit 1, saying how many went in.
	extra := filepath.Join(dir, "more.ndjson")
	_ = os.WriteFile(extra, []byte("{\"_id\":1000,\"name\":\"new\"}\n{\"_id\":1,\"name\":\"old\"}\n{\"_id\":1001}\n"), 0o644)
	out, errOut, code = runApp(t, t.Context(), "", "load", "--uri", uri, "--collection", "staff", extra)
	if code != ExitFailure || !strings.Contains(errOut, "inserted 2 of 3 documents; 1 refused because a different document with the same _id is already in oidkit.staff (first: "+extra+":2, _id 1); use --mode upsert") {
		t.Fatalf("duplicates: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "3 documents: inserted 2, 1 duplicate _id") {
		t.Errorf("report %q", out)
	}
	if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 62 {
		t.Errorf("%d documents", n)
	}
	// --drop empties the collection first.
	out, errOut, code = runApp(t, t.Context(), "", "load", "--uri", uri, "--drop", "--collection", "staff", extra)
	if code != ExitOK {
		t.Fatalf("drop: %d %s %s", code, out, errOut)
	}
	if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 3 {
		t.Errorf("after --drop: %d documents", n)
	}
}

func TestLoadStdin(t *testing.T) {
	uri, client, ctx := startServer(t)
	fx, _, _ := runApp(t, t.Context(), "", "fixtures", "--seed", "4", "-n", "25", "--array")
	out, errOut, code := runApp(t, t.Context(), fx, "load", "--uri", uri, "--collection", "piped", "-")
	if code != ExitOK || !strings.Contains(out, "stdin -> oidkit.piped: 25 documents: inserted 25") {
		t.Fatalf("%d %s %s", code, out, errOut)
	}
	if n, _ := client.Database("oidkit").Collection("piped").CountDocuments(ctx, bson.D{}); n != 25 {
		t.Errorf("%d documents", n)
	}
}

func TestLoadUsageErrors(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.ndjson")
	_ = os.WriteFile(f, []byte(`{"_id":1}`), 0o644)
	dotName := filepath.Join(dir, ".ndjson") // the collection name would be ".ndjson"
	_ = os.WriteFile(dotName, []byte(`{"_id":1}`), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{nil, "standard input has no file name: expected --collection NAME"},
		{[]string{dotName}, `from the file name, collection name ".ndjson": expected no . at the start or end; expected --collection`},
		{[]string{"--collection", "x.", f}, `--collection: collection name "x.": expected no . at the start or end`},
		{[]string{"--mode", "merge", f}, `--mode merge: a stored document is replaced whole`},
		{[]string{"--batch", "0", f}, "--batch 0: expected 1 to 100000"},
		{[]string{filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{dir}, "is a directory"},
		{[]string{"-"}, "expected --collection NAME"},
		{[]string{"--collection", "a$b", f}, `--collection: collection name "a$b"`},
		{[]string{"--db", "a.b", f}, `--db: database name "a.b"`},
		{[]string{"--db", "a*b", f}, `--db: database name "a*b": expected no`},
		{[]string{"--db", "a*b", "--dry-run", f}, `--db: database name "a*b"`},
		{[]string{"--uri", "http://x", f}, "--uri"},
	}
	for _, c := range cases {
		out, errOut, code := runApp(t, t.Context(), "", append([]string{"load", "--data-dir", t.TempDir()}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
}

// --drop drops nothing until every document has passed every check that
// can run before writing, the server's profile included (MongoDB's refuses
// a top-level '$' key).
func TestLoadDropKeepsCollectionOnBadInput(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "keep.ndjson")
	_ = os.WriteFile(good, []byte("{\"_id\":1}\n{\"_id\":2}\n"), 0o644)
	if out, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, good); code != ExitOK {
		t.Fatalf("%d %s %s", code, out, errOut)
	}
	bad := filepath.Join(dir, "bad.ndjson")
	_ = os.WriteFile(bad, []byte("{\"_id\":3,\"$p\":1}\n"), 0o644)
	out, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, "--drop", "--collection", "keep", bad)
	if code != ExitUsage || !strings.Contains(errOut, bad+":1:") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s; want exit 2 naming %s:1", code, out, errOut, bad)
	}
	if n, err := client.Database("oidkit").Collection("keep").CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("keep holds %d documents (%v) after a refused --drop; want 2", n, err)
	}
}

// Running an interrupted insert again finishes it; a different document
// under an _id already there fails the run (exit 1) naming file:line.
func TestLoadInsertAgainFinishes(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	var all, half strings.Builder
	for i := range 50 {
		line := fmt.Sprintf("{\"_id\":%d,\"name\":\"n%d\"}\n", i, i)
		all.WriteString(line)
		if i < 20 {
			half.WriteString(line)
		}
	}
	path := filepath.Join(dir, "people.ndjson")
	_ = os.WriteFile(path, []byte(half.String()), 0o644)
	if out, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, path); code != ExitOK {
		t.Fatalf("%d %s %s", code, out, errOut)
	}
	_ = os.WriteFile(path, []byte(all.String()), 0o644)
	out, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, path)
	if code != ExitOK || !strings.Contains(out, "50 documents: inserted 30, 20 already there") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if n, _ := client.Database("oidkit").Collection("people").CountDocuments(ctx, bson.D{}); n != 50 {
		t.Fatalf("%d documents; want 50", n)
	}
	changed := filepath.Join(dir, "changed.ndjson")
	_ = os.WriteFile(changed, []byte("{\"_id\":7,\"name\":\"n7\"}\n{\"_id\":8,\"name\":\"other\"}\n"), 0o644)
	out, errOut, code = runApp(t, t.Context(), "", "load", "--uri", uri, "--collection", "people", changed)
	if code != ExitFailure || !strings.Contains(errOut, "(first: "+changed+":2, _id 8)") || !strings.Contains(out, "inserted 0, 1 already there, 1 duplicate _id") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s; want exit 1 naming %s:2", code, out, errOut, changed)
	}
}

// What the server would refuse or change is found before anything is
// written: a top-level '$' key near the end of a file is listed with its
// line, field and reason, exit 2, and the collection is not even created;
// --dry-run finds the same.
func TestLoadRefusesWhatTheServerRefuses(t *testing.T) {
	uri, client, ctx := startServer(t)
	var b strings.Builder
	for i := 1; i <= 2500; i++ {
		if i == 2400 {
			fmt.Fprintf(&b, `{"_id":%d,"$a":1}`+"\n", i)
			continue
		}
		fmt.Fprintf(&b, `{"_id":%d,"a":{"b":1}}`+"\n", i)
	}
	path := filepath.Join(t.TempDir(), "dotted.ndjson")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "oidkit: " + path + `:2400: refused by MongoDB's rules: MongoDB refuses field "$a" = "$a": key starts with '$'` + "\n" +
		"oidkit: 1 of 2500 documents are invalid (listed above); nothing was loaded\n"
	for _, dry := range []bool{false, true} {
		args := []string{"load", "--uri", uri, path}
		if dry {
			args = []string{"load", "--uri", uri, "--dry-run", path}
		}
		out, errOut, code := runApp(t, t.Context(), "", args...)
		if code != ExitUsage || errOut != want || out != "" {
			t.Fatalf("dry run %v: exit %d\nstdout %q\nstderr %q\nwant exit 2 and stderr %q", dry, code, out, errOut, want)
		}
	}
	names, err := client.Database("oidkit").ListCollectionNames(ctx, bson.D{{Key: "name", Value: "dotted"}})
	if err != nil || len(names) != 0 {
		t.Fatalf("collections named dotted: %v (%v); want none", names, err)
	}
}

// Past maxListed bad documents, load says how many more there are.
func TestLoadListsTheFirstProblems(t *testing.T) {
	uri, _, _ := startServer(t)
	var b strings.Builder
	for i := 1; i <= maxListed+50; i++ {
		fmt.Fprintf(&b, `{"_id":%d,"$x":1}`+"\n", i)
	}
	path := filepath.Join(t.TempDir(), "zeros.ndjson")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, path)
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if code != ExitUsage || len(lines) != maxListed+2 {
		t.Fatalf("exit %d, %d lines of stderr; want exit 2 and %d:\n%s", code, len(lines), maxListed+2, errOut)
	}
	last := fmt.Sprintf(`oidkit: %s:%d: refused by MongoDB's rules: MongoDB refuses field "$x" = "$x": key starts with '$'`, path, maxListed)
	if lines[maxListed-1] != last || lines[maxListed] != "oidkit: ... and 50 more" {
		t.Errorf("lines %d and %d:\n%s\n%s\nwant\n%s\noidkit: ... and 50 more", maxListed, maxListed+1, lines[maxListed-1], lines[maxListed], last)
	}
}

// The case of issue 19: users of the shop plan given new _ids, loaded in
// upsert mode (and insert mode) into the seeded collection, whose unique
// index on email holds their emails. Nothing is written, every clash is
// named on stderr and the exit code is 1; the same emails twice in one file
// are bad input (exit 2), both lines named.
func TestLoadUniqueClashesNamedBeforeWriting(t *testing.T) {
	uri, client, ctx := startServer(t)
	mustRun(t, "seed", "--uri", uri, "--plan", "shop", "-n", "100", "--seed", "4", "--quiet")
	users := client.Database("oidkit").Collection("users")
	before := dump(t, ctx, users)
	dir := t.TempDir()
	var lines []string
	for _, d := range before[:10] {
		email := d.Lookup("email").StringValue()
		lines = append(lines, fmt.Sprintf(`{"_id":{"$oid":"%s"},"email":%q,"username":"fresh%d"}`, bson.NewObjectID().Hex(), email, len(lines)))
	}
	ten := filepath.Join(dir, "ten.ndjson")
	if err := os.WriteFile(ten, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"upsert", "insert"} {
		out, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, "--mode", mode, "--collection", "users", ten)
		first := fmt.Sprintf("oidkit: %s:1: unique index email_1: key %q is held by the stored document _id %s\n", ten, before[0].Lookup("email").StringValue(), fixturesValueText(t, before[0].Lookup("_id")))
		if code != ExitFailure || !strings.HasPrefix(errOut, first) || !strings.Contains(errOut, "10 documents clash in a unique index with documents already stored (listed above); nothing was loaded") {
			t.Fatalf("%s: exit %d\nstdout %s\nstderr %s\nwant it to start with %q", mode, code, out, errOut, first)
		}
		if strings.Count(errOut, "unique index email_1") != 10 {
			t.Errorf("%s: stderr %q; want the 10 clashes listed", mode, errOut)
		}
		after := dump(t, ctx, users)
		if len(after) != len(before) {
			t.Fatalf("%s: %d users after; want %d", mode, len(after), len(before))
		}
	}
	twice := filepath.Join(dir, "twice.ndjson")
	if err := os.WriteFile(twice, []byte(`{"_id":1,"email":"a@example.com","username":"u1"}`+"\n"+`{"_id":2,"email":"a@example.com","username":"u2"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runApp(t, t.Context(), "", "load", "--uri", uri, "--collection", "users", twice)
	want := fmt.Sprintf("oidkit: %s:2: unique index email_1: key \"a@example.com\" already at %s:1\n", twice, twice)
	if code != ExitUsage || !strings.HasPrefix(errOut, want) {
		t.Fatalf("twice: exit %d\nstdout %s\nstderr %s\nwant it to start with %q", code, out, errOut, want)
	}
	if after := dump(t, ctx, users); len(after) != len(before) {
		t.Fatalf("twice: %d users after; want %d", len(after), len(before))
	}
}

// fixturesValueText is v as the load's messages show it.
func fixturesValueText(t *testing.T, v bson.RawValue) string {
	t.Helper()
	b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, true, false)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	return strings.TrimSuffix(strings.TrimPrefix(s, `{"v":`), "}")
}
