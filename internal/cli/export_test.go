package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/indexes"
)

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runApp(t, t.Context(), "", args...)
	if code != ExitOK {
		t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
	}
	return out
}

// seed → export → load into another database → the same bytes in _id
// order, and verify db --fixture agrees, in every mode and layout.
func TestExportRoundTripThroughCommands(t *testing.T) {
	uri, client, ctx := startServer(t)
	mustRun(t, "seed", "--uri", uri, "--db", "src", "--plan", "shop", "-n", "100", "--seed", "4", "--quiet")
	mustRun(t, "seed", "--uri", uri, "--db", "src", "--kind", "employee", "--id", "int", "--id-start", "10", "-n", "60", "--seed", "4", "--collection", "Employee", "--quiet")
	mustRun(t, "seed", "--uri", uri, "--db", "src", "--kind", "user", "--id", "uuid", "-n", "60", "--seed", "4", "--collection", "people", "--quiet")
	names := []string{"Employee", "orders", "people", "products", "users"}
	for k, extra := range [][]string{{}, {"--mode", "canonical"}, {"--array"}, {"--mode", "canonical", "--array"}} {
		dir := filepath.Join(t.TempDir(), "dump")
		out := mustRun(t, append([]string{"export", "--uri", uri, "--db", "src", "--out", dir}, extra...)...)
		ext := ".ndjson"
		if slices.Contains(extra, "--array") {
			ext = ".json"
		}
		var files, want []string
		for _, n := range names {
			files = append(files, filepath.Join(dir, n+ext))
			want = append(want, n+ext)
			if n == "orders" || n == "products" || n == "users" { // the shop plan's indexes
				want = append(want, n+indexes.SidecarSuffix)
			}
		}
		slices.Sort(want)
		if got := listDir(t, dir); !slices.Equal(got, want) {
			t.Fatalf("%v: the directory holds %v, want %v (no %s)", extra, got, want, "oidkit_runs")
		}
		if !strings.Contains(out, filepath.Join(dir, "orders"+ext)+": 300 documents") || !strings.Contains(out, "exported 530 documents of 5 collections from src in ") {
			t.Errorf("%v: summary %q", extra, out)
		}
		dst := fmt.Sprintf("dst%d", k)
		mustRun(t, append([]string{"load", "--uri", uri, "--db", dst}, files...)...)
		for _, n := range names {
			a, b := dump(t, ctx, client.Database("src").Collection(n)), dump(t, ctx, client.Database(dst).Collection(n))
			if len(a) == 0 || len(a) != len(b) {
				t.Fatalf("%v %s: %d documents loaded back, %d in the source", extra, n, len(b), len(a))
			}
			for i := range a {
				if !bytes.Equal(a[i], b[i]) {
					t.Fatalf("%v %s: document %d differs:\n%s\n%s", extra, n, i, a[i], b[i])
				}
			}
			ia, err := indexes.List(ctx, client.Database("src").Collection(n))
			if err != nil {
				t.Fatal(err)
			}
			ib, err := indexes.List(ctx, client.Database(dst).Collection(n))
			if err != nil {
				t.Fatal(err)
			}
			if shop := n == "orders" || n == "products" || n == "users"; len(ia) != len(ib) || shop != (len(ia) > 0) {
				t.Fatalf("%v %s: indexes %v loaded back as %v", extra, n, ia, ib)
			}
			for k := range ia {
				if !indexes.Equal(ia[k], ib[k]) {
					t.Errorf("%v %s: index %s loaded back as %s", extra, n, ia[k], ib[k])
				}
			}
		}
		vargs := []string{"verify", "db", "--uri", uri, "--db", "src", "--quiet"}
		for _, f := range files {
			vargs = append(vargs, "--fixture", f)
		}
		mustRun(t, vargs...)
	}
}

// A hand-built collection of every type the embedded server stores goes
// through export, canonical and relaxed, and load as the same bytes.
func TestExportEveryStoredTypeThroughCommands(t *testing.T) {
	uri, client, ctx := startServer(t)
	values := []any{
		-1.5, 1e300, 5e-324, 3.0, "é 日本 😀 \u2028 \"q\" \\ \x01", bson.D{{Key: "a", Value: bson.A{int32(1), "x"}}}, bson.A{},
		bson.Binary{Subtype: 0, Data: []byte("b")}, bson.Binary{Subtype: 2, Data: []byte("old")}, bson.Binary{Subtype: 3, Data: bytes.Repeat([]byte{3}, 16)},
		bson.Binary{Subtype: 4, Data: bytes.Repeat([]byte{4}, 16)}, bson.Binary{Subtype: 5, Data: bytes.Repeat([]byte{5}, 16)}, bson.Binary{Subtype: 0x80, Data: []byte{1}},
		bson.NewObjectID(), true, bson.DateTime(-62135596800000), bson.DateTime(-1), bson.DateTime(253402300800000), bson.DateTime(math.MaxInt64), nil,
		bson.Regex{Pattern: "^a.b$", Options: "imx"}, int32(math.MinInt32), bson.Timestamp{T: 1, I: 2}, int64(7), int64(math.MinInt64), int64(1) << 53,
	}
	coll := client.Database("src").Collection("types")
	for i, v := range values {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: v}}); err != nil {
			t.Fatal(err)
		}
	}
	want := dump(t, ctx, coll)
	for _, mode := range []string{"canonical", "relaxed"} {
		file := filepath.Join(t.TempDir(), "types.ndjson")
		mustRun(t, "export", "--uri", uri, "--db", "src", "-c", "types", "--mode", mode, "-o", file)
		mustRun(t, "load", "--uri", uri, "--db", "copy_"+mode, file)
		got := dump(t, ctx, client.Database("copy_"+mode).Collection("types"))
		if len(got) != len(want) {
			t.Fatalf("%s: %d documents back, want %d", mode, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: document %d differs:\n got %s\nwant %s", mode, i, got[i], want[i])
			}
		}
	}
}

// Filter, sort, limit and sample through the command, to standard output.
func TestExportSelectsThroughCommands(t *testing.T) {
	uri, _, _ := startServer(t)
	mustRun(t, "seed", "--uri", uri, "--db", "src", "--kind", "employee", "--id", "int", "-n", "200", "--seed", "4", "--quiet")
	base := []string{"export", "--uri", uri, "--db", "src", "-c", "employees", "--quiet"}
	ids := func(out string) []int64 {
		var got []int64
		r := fixtures.NewReader(strings.NewReader(out), "stdout")
		for {
			d, err := r.Next()
			if err != nil {
				break
			}
			id, _ := d.Raw.Lookup("_id").AsInt64OK()
			got = append(got, id)
		}
		return got
	}
	if got := ids(mustRun(t, append(base, "--filter", `{"_id":{"$gte":150}}`, "--sort", `{"_id":-1}`, "--limit", "5")...)); !slices.Equal(got, []int64{200, 199, 198, 197, 196}) {
		t.Errorf("filter+sort+limit: %v", got)
	}
	got := ids(mustRun(t, append(base, "--sample", "20", "--filter", `{"_id":{"$lte":100}}`, "--sort", `{"_id":1}`)...))
	if len(got) != 20 || !slices.IsSorted(got) || slices.Compact(slices.Clone(got))[19] != got[19] || got[19] > 100 {
		t.Errorf("sample: %v; want 20 distinct sorted _id <= 100", got)
	}
}

// Bad values are refused with exit 2, naming them, before anything is
// written or created.
func TestExportBadInputWritesNothing(t *testing.T) {
	uri, client, ctx := startServer(t)
	mustRun(t, "seed", "--uri", uri, "--db", "src", "-n", "20", "--seed", "1", "--quiet")
	if _, err := client.Database("src").Collection("a.json").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	out := filepath.Join(root, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-c", "users", "--filter", "{bad"}, `--filter "{bad": invalid JSON at column 2`},
		{[]string{"-c", "users", "--filter", `{"a":1} x`}, `--filter "{\"a\":1} x": invalid JSON`},
		{[]string{"-c", "users", "--filter", `[{"a":1}]`}, "not a document"},
		{[]string{"-c", "users", "--filter", `{"_id":{"$oid":"xyz"}}`}, "invalid Extended JSON"},
		{[]string{"-c", "users", "--filter", ""}, `--filter "": invalid JSON`},
		{[]string{"-c", "users", "--filter", `{"$bogus":1}`}, "the server refused the query: (BadValue) unknown top level operator: $bogus"},
		{[]string{"-c", "users", "--sort", `{"age":"up"}`}, `--sort "{\"age\":\"up\"}": invalid sort`},
		{[]string{"-c", "users", "--limit", "0"}, "--limit 0: expected a positive number"},
		{[]string{"-c", "users", "--limit", "-3"}, "--limit -3: expected a positive number"},
		{[]string{"-c", "users", "--limit", "ten"}, `--limit "ten": expected a whole number`},
		{[]string{"-c", "users", "--sample", "0"}, "--sample 0: expected a positive number"},
		{[]string{"-c", "users", "--limit", "5", "--sample", "5"}, "--limit with --sample"},
		{[]string{"-c", "users", "--batch", "0"}, "--batch 0: expected 1 to 100000"},
		{[]string{"-c", "users", "--mode", "strict"}, `--mode "strict": expected relaxed or canonical`},
		{[]string{"-c", "nope"}, `--collection "nope": database src has no such collection; expected one of: a.json, oidkit_runs, users`},
		{[]string{"-c", "users", "-c", "users"}, `--collection "users" given twice`},
		{[]string{"-c", "users", "-c", "a.json", "--out", "-"}, "standard output takes one collection"},
		{[]string{"--db", "empty"}, `--db "empty" has no collection to export`},
		{[]string{"--db", "bad/name"}, "--db"},
		{[]string{}, `collection name "a.json": its file "a.json.ndjson" would load back into "a"`},
		{[]string{"-c", "users", "extra"}, `unexpected argument "extra"`},
		{[]string{"-c", ""}, `--collection ""`},
		{[]string{"-c", "users", "--out", " "}, `--out " "`},
	} {
		args := append([]string{"export", "--uri", uri, "--db", "src", "--out", out}, tc.args...)
		if slices.Contains(tc.args, "--out") {
			args = append([]string{"export", "--uri", uri, "--db", "src"}, tc.args...)
		}
		stdout, errOut, code := runApp(t, t.Context(), "", args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
		if stdout != "" {
			t.Errorf("%v: stdout %q; want nothing", tc.args, stdout)
		}
		if names := listDir(t, root); len(names) != 0 && !(len(names) == 1 && names[0] == "out" && len(listDir(t, out)) == 0) {
			t.Errorf("%v: left %v behind", tc.args, names)
		}
	}
	// The name that cannot be a file in a directory is fine as one file.
	file := filepath.Join(root, "a.ndjson")
	mustRun(t, "export", "--uri", uri, "--db", "src", "-c", "a.json", "--out", file)
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
}

// A stored document no reader would accept (FerretDB stores 101 levels)
// fails the export with exit 2 naming its _id, and no file appears.
func TestExportRefusedDocumentNamesItsID(t *testing.T) {
	uri, client, ctx := startServer(t)
	var v any = bson.D{{Key: "b", Value: 1}}
	for range 99 {
		v = bson.D{{Key: "a", Value: v}}
	}
	coll := client.Database("src").Collection("deep")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: "fine"}}, bson.D{{Key: "_id", Value: "the-deep-one"}, {Key: "a", Value: v}}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, errOut, code := runApp(t, t.Context(), "", "export", "--uri", uri, "--db", "src", "--out", dir)
	if code != ExitUsage || !strings.Contains(errOut, `src.deep document 1 (_id "the-deep-one")`) || !strings.Contains(errOut, "level 101") || !strings.Contains(errOut, "no file was written for deep") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if names := listDir(t, dir); len(names) != 0 {
		t.Fatalf("left %v", names)
	}
}

// An interrupted export (main cancels the context on SIGINT and SIGTERM)
// fails with exit 1 saying how far it got, and leaves the existing file as
// it was and no temporary file.
func TestExportInterruptedLeavesNoFile(t *testing.T) {
	uri, _, _ := startServer(t)
	mustRun(t, "seed", "--uri", uri, "--db", "src", "-n", "3000", "--seed", "1", "--quiet")
	dir := t.TempDir()
	out := filepath.Join(dir, "users.ndjson")
	if err := os.WriteFile(out, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// One document per round trip: slow enough to be caught mid-way.
	r := interruptAtTemp(t, dir, "users.ndjson", true, "export", "--uri", uri, "--timeout", "2m", "--db", "src", "-c", "users", "--batch", "1", "--out", dir)
	m := regexp.MustCompile(`interrupted after (\d+) of 3000 documents of src\.users; no file was written for users`).FindStringSubmatch(r.stderr)
	if r.code != ExitFailure || m == nil || m[1] == "0" {
		t.Fatalf("exit %d, stderr %q; want exit 1 and how far it got", r.code, r.stderr)
	}
	if names := listDir(t, dir); len(names) != 1 || names[0] != "users.ndjson" {
		t.Fatalf("directory holds %v", names)
	}
	if b, _ := os.ReadFile(out); string(b) != "previous\n" {
		t.Fatal("the existing file changed")
	}
	// Run to the end, it replaces the file.
	mustRun(t, "export", "--uri", uri, "--db", "src", "-c", "users", "--out", dir)
	if b, _ := os.ReadFile(out); bytes.Count(b, []byte("\n")) != 3000 {
		t.Fatalf("after a complete export the file has %d lines", bytes.Count(b, []byte("\n")))
	}
}

// Interrupted on standard output: it says how many complete documents went
// out, and every line that went out is one.
func TestExportInterruptedStdoutCountsWhatWentOut(t *testing.T) {
	uri, _, _ := startServer(t)
	mustRun(t, "seed", "--uri", uri, "--db", "src", "-n", "3000", "--seed", "1", "--quiet")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := &cancelAfter{cancel: cancel}
	var errb bytes.Buffer
	code := NewApp(strings.NewReader(""), out, &errb).RunContext(ctx, []string{"oidkit", "export", "--uri", uri, "--timeout", "2m", "--db", "src", "-c", "users", "--batch", "10"})
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := fmt.Sprintf("; %d complete documents went to standard output", len(lines))
	if code != ExitFailure || !strings.Contains(errb.String(), "interrupted after") || !strings.Contains(errb.String(), want) {
		t.Fatalf("exit %d, stderr %q; want exit 1, \"interrupted after\" and %q", code, errb.String(), want)
	}
	for k, line := range lines {
		if _, err := fixtures.NewReader(strings.NewReader(line), "stdout").Next(); err != nil {
			t.Fatalf("line %d is not a whole document: %v", k+1, err)
		}
	}
}

// The password of --uri or OIDKIT_URI appears in no message.
func TestExportPasswordNeverShown(t *testing.T) {
	for _, uri := range []string{
		"mongodb://admin:" + secretPassword + "@127.0.0.1:1/",
		"mongodb://admin:" + secretPassword + "@localhost:99999/",
		"mongodb://admin:" + secretPassword + "@host/?authMechanism=NOPE",
	} {
		for _, args := range [][]string{
			{"export", "--uri", uri, "--timeout", "300ms", "-c", "users"},
			{"export", "--uri", uri, "--timeout", "300ms", "--out", t.TempDir()},
		} {
			out, errOut, code := runApp(t, t.Context(), "", args...)
			if code == ExitOK || strings.Contains(out+errOut, leakMark) || !strings.Contains(errOut, "****") {
				t.Errorf("%v: exit %d, output %q %q; want a failure with the password masked", args, code, out, errOut)
			}
		}
	}
}

// A missing --data-dir is bad input, not an empty database created there.
func TestExportMissingDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nothing")
	_, errOut, code := runApp(t, t.Context(), "", "export", "--data-dir", dir, "--out", t.TempDir())
	if code != ExitUsage || !strings.Contains(errOut, "no such directory") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the data directory was created: %v", err)
	}
}

// Interrupted at the second collection: the first one's file is complete
// and stays, the message names it, the second has no file.
func TestExportInterruptedKeepsCompleteCollections(t *testing.T) {
	uri, _, _ := startServer(t)
	mustRun(t, "seed", "--uri", uri, "--db", "src", "-n", "20", "--seed", "1", "--collection", "a", "--quiet")
	mustRun(t, "seed", "--uri", uri, "--db", "src", "-n", "3000", "--seed", "1", "--collection", "b", "--quiet")
	dir := t.TempDir()
	stderr := interruptAtTemp(t, dir, "b.ndjson", false, "export", "--uri", uri, "--timeout", "2m", "--db", "src", "-c", "a", "-c", "b", "--batch", "1", "--out", dir).stderr
	if !regexp.MustCompile(`interrupted after \d+ of 3000 documents of src\.b; no file was written for b; complete before it: ` + regexp.QuoteMeta(filepath.Join(dir, "a.ndjson"))).MatchString(stderr) {
		t.Fatalf("stderr %q", stderr)
	}
	if names := listDir(t, dir); !slices.Equal(names, []string{"a.ndjson"}) {
		t.Fatalf("directory holds %v", names)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.ndjson")); bytes.Count(b, []byte("\n")) != 20 {
		t.Fatalf("a.ndjson has %d lines, want 20", bytes.Count(b, []byte("\n")))
	}
}

// An independent oracle: the export of a seeded collection is, byte for
// byte, what `oidkit fixtures` writes with the same flags (the embedded
// server returns documents in the order seed inserted them).
func TestExportOfSeededEqualsFixtures(t *testing.T) {
	uri, _, _ := startServer(t)
	for _, kind := range []string{"user", "employee", "product", "order"} {
		gen := []string{"--kind", kind, "-n", "300", "--seed", "9", "--collection", kind}
		mustRun(t, append([]string{"seed", "--uri", uri, "--db", "src", "--quiet"}, gen...)...)
		for _, extra := range [][]string{{}, {"--mode", "canonical", "--array"}} {
			want := mustRun(t, append(append([]string{"fixtures", "--quiet"}, gen...), extra...)...)
			got := mustRun(t, append([]string{"export", "--uri", uri, "--db", "src", "-c", kind, "--quiet"}, extra...)...)
			if got != want || len(got) == 0 {
				t.Fatalf("%s %v: export (%d bytes) differs from fixtures (%d bytes)", kind, extra, len(got), len(want))
			}
		}
	}
}

// A collection's indexes go into the sidecar load reads for its file
// (named after the file, not the collection), and a later export of the
// collection without them removes the earlier sidecar.
func TestExportIndexSidecar(t *testing.T) {
	uri, client, ctx := startServer(t)
	mustRun(t, "seed", "--uri", uri, "--db", "src", "--plan", "shop", "-n", "20", "--seed", "4", "--quiet")
	dir := t.TempDir()
	file := filepath.Join(dir, "customers.ndjson")
	mustRun(t, "export", "--uri", uri, "--db", "src", "--collection", "users", "--out", file, "--quiet")
	sidecar := indexes.SidecarPath(dir, "customers")
	list, err := indexes.ReadSidecar(sidecar)
	if err != nil {
		t.Fatal(err)
	}
	want, err := indexes.List(ctx, client.Database("src").Collection("users"))
	if err != nil || len(want) == 0 || len(list) != len(want) {
		t.Fatalf("sidecar %v, server %v (%v)", list, want, err)
	}
	for k := range want {
		if !indexes.Equal(list[k], want[k]) {
			t.Errorf("sidecar index %s, server %s", list[k], want[k])
		}
	}
	mustRun(t, "load", "--uri", uri, "--db", "dst", "--quiet", file)
	if got, err := indexes.List(ctx, client.Database("dst").Collection("customers")); err != nil || len(got) != len(want) {
		t.Fatalf("loaded customers have indexes %v (%v), want %v", got, err, want)
	}
	if err := client.Database("src").Collection("users").Indexes().DropAll(ctx); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "export", "--uri", uri, "--db", "src", "--collection", "users", "--out", file, "--quiet")
	if _, err := os.Stat(sidecar); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the earlier sidecar is still there after exporting a collection without indexes: %v", err)
	}
}
