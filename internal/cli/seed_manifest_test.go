package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// collectionBytes is every document of coll, in _id order, as raw BSON.
func collectionBytes(t *testing.T, coll *mongo.Collection) [][]byte {
	t.Helper()
	cur, err := coll.Find(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for cur.Next(context.Background()) {
		out = append(out, append([]byte(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustSeed(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runApp(t, t.Context(), "", append([]string{"seed", "--quiet"}, args...)...)
	if code != ExitOK {
		t.Fatalf("seed %v: exit %d\n%s%s", args, code, out, errOut)
	}
	return out
}

// A run without --seed prints the seed it drew and its time base; the
// printed flags write the same documents, and --resume alone finds the run.
func TestSeedDrawnSeedRepeats(t *testing.T) {
	uri, client := mongotest.Start(t)
	out := mustSeed(t, "--uri", uri, "-n", "50", "--db", "a")
	m := regexp.MustCompile(`--seed (\d+) --at (\S+) repeats this run\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("summary does not say how to repeat the run:\n%s", out)
	}
	mustSeed(t, "--uri", uri, "-n", "50", "--db", "b", "--seed", m[1], "--at", m[2])
	a, b := collectionBytes(t, client.Database("a").Collection("users")), collectionBytes(t, client.Database("b").Collection("users"))
	if len(a) != 50 || len(a) != len(b) {
		t.Fatalf("%d and %d documents", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("document %d differs:\n%v\n%v", i, bson.Raw(a[i]), bson.Raw(b[i]))
		}
	}
	out, errOut, code := runApp(t, t.Context(), "", "seed", "--uri", uri, "--resume", "--db", "a")
	if code != ExitOK || !strings.Contains(out, "inserted 0, skipped 50 (already there)") || !strings.Contains(out, "seed "+m[1]+", time base "+m[2]) {
		t.Fatalf("resume of a drawn run: exit %d\n%s%s", code, out, errOut)
	}
}

// The manifest holds the plan, seed, time base, ranges, state and versions,
// and rebuilds the documents that were written.
func TestSeedManifestStored(t *testing.T) {
	uri, client := mongotest.Start(t)
	mustSeed(t, "--uri", uri, "--db", "m", "--kind", "employee", "--id", "int", "--id-start", "7", "-n", "250", "--seed", "9", "--span", "1h", "--batch", "100")
	db := client.Database("m")
	man, err := mongowrite.ReadManifest(context.Background(), db, "employees")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := run.Record(man)
	if err != nil {
		t.Fatal(err)
	}
	if man.State != mongowrite.StateDone || rec.Seed != "9" || rec.Span != 3600 || man.Count != 250 || man.AckedCount != 250 ||
		len(man.Acked) != 1 || man.Acked[0] != (parts.Range{From: 0, To: 250}) || rec.Oidkit == "" || rec.Gofakeit == "" ||
		len(rec.Specs) != 1 || rec.Specs[0].ID != "int" || rec.Specs[0].IDStart != 7 || rec.Specs[0].Kind != "employee" {
		t.Fatalf("manifest %+v, plan %+v", man, rec)
	}
	p, err := rec.Plan(man.Collection)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	// By _id: two inserters may store the batches out of generation order.
	stored := map[string][]byte{}
	for _, raw := range collectionBytes(t, db.Collection("employees")) {
		stored[bson.Raw(raw).Lookup("_id").String()] = raw
	}
	col := ds.Collection("employees")
	if int64(len(stored)) != col.Len() {
		t.Fatalf("%d documents stored; the manifest rebuilds %d", len(stored), col.Len())
	}
	for i := range col.Len() {
		want, _ := bson.Marshal(col.Doc(i))
		if raw := stored[bson.Raw(want).Lookup("_id").String()]; !bytes.Equal(raw, want) {
			t.Fatalf("document %d: stored %v, manifest rebuilds %v", i, bson.Raw(raw), bson.Raw(want))
		}
	}
}

// --resume inserts only what the manifest does not list as acknowledged,
// with the run's settings, and refuses flags that would make other
// documents.
func TestSeedResumeFromManifest(t *testing.T) {
	uri, client := mongotest.Start(t)
	db := client.Database("oidkit")
	p := &seed.Plan{Seed: 5, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 500}}}
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	// A run that stopped after documents [0,200): the manifest says so.
	col := ds.Collection("users")
	w, err := run.ToWrite(ds, parts.Part{})
	if err != nil {
		t.Fatal(err)
	}
	man := mongowrite.NewManifest(w, col)
	if _, err := mongowrite.Insert(context.Background(), db.Collection("users"), col, mongowrite.InsertOptions{Ranges: []parts.Range{{From: 0, To: 200}}, Acked: man.Ack}); err != nil {
		t.Fatal(err)
	}
	man.State = mongowrite.StateFailed
	if err := mongowrite.SaveManifest(context.Background(), db, man); err != nil {
		t.Fatal(err)
	}
	refused := []struct{ args []string }{
		{[]string{"--seed", "6"}},
		{[]string{"-n", "600"}},
		{[]string{"--at", "2020-01-01T00:00:00Z"}},
		{[]string{"--span", "1h"}},
		{[]string{"--id", "uuid"}},
		{[]string{"--kind", "product", "--collection", "users"}},
	}
	wants := []string{"--seed 6: the run in oidkit.users was written with --seed 5", "-n 600: the run in oidkit.users was written with -n 500",
		"--at 2020-01-01T00:00:00Z: the run in oidkit.users was written with --at 2024-01-01T00:00:00Z", "--span 1h0m0s: the run in oidkit.users was written with --span 8760h0m0s",
		"--id uuid: the run in oidkit.users was written with --id objectid", "--kind product: the run in oidkit.users was written with --kind user"}
	for k, tc := range refused {
		out, errOut, code := runApp(t, t.Context(), "", append([]string{"seed", "--uri", uri, "--resume"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, wants[k]) {
			t.Errorf("resume %v: exit %d, stderr %q; want exit 2 and %q\n%s", tc.args, code, errOut, wants[k], out)
		}
	}
	if n, _ := db.Collection("users").EstimatedDocumentCount(context.Background()); n != 200 {
		t.Fatalf("refused resumes wrote: %d documents", n)
	}
	// The same flags are accepted; no flags take the manifest's.
	out, errOut, code := runApp(t, t.Context(), "", "seed", "--uri", uri, "--resume", "--seed", "5", "-n", "500")
	if code != ExitOK || !strings.Contains(out, "inserted 300, skipped 200 (already there)") {
		t.Fatalf("resume: exit %d\n%s%s", code, out, errOut)
	}
	man, err = mongowrite.ReadManifest(context.Background(), db, "users")
	if err != nil || man.State != mongowrite.StateDone || man.AckedCount != 500 || len(man.Acked) != 1 {
		t.Fatalf("manifest after resume: %+v %v", man, err)
	}
	expectVerify(t, 0, []string{"users: count"}, "--uri", uri)
}

// verify db with no generation flags checks the collection against its
// manifest; explicit flags still win.
func TestVerifyDBFromManifest(t *testing.T) {
	uri, client := mongotest.Start(t)
	mustSeed(t, "--uri", uri, "--kind", "product", "--id", "uuid", "-n", "120", "--seed", "3", "--span", "2h")
	expectVerify(t, 0, []string{"products: count", "products: documents equal"}, "--uri", uri)
	expectVerify(t, 0, []string{"products: count"}, "--uri", uri, "--collection", "products")
	expectVerify(t, 1, []string{"products: count"}, "--uri", uri, "--kind", "product", "--id", "uuid", "-n", "120", "--seed", "4", "--span", "2h")
	// A changed document fails the manifest's check.
	if _, err := client.Database("oidkit").Collection("products").UpdateOne(context.Background(), bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "name", Value: "x"}}}}); err != nil {
		t.Fatal(err)
	}
	expectVerify(t, 1, []string{"products: documents equal"}, "--uri", uri)
	_, errOut, code := runApp(t, t.Context(), "", "verify", "db", "--uri", uri, "--db", "empty")
	if code != ExitUsage || !strings.Contains(errOut, "no run manifest in database empty") {
		t.Fatalf("verify db without a manifest: exit %d %q", code, errOut)
	}
}

// The same seeded command twice: one line says the documents are there and
// what to do, also when no manifest says so (the _ids of the run are
// checked against the stored documents before writing).
func TestSeedTwiceSaysAlreadyThere(t *testing.T) {
	uri, client := mongotest.Start(t)
	args := []string{"seed", "--uri", uri, "--seed", "1", "-n", "3000"}
	mustSeed(t, args[1:]...)
	for _, noManifest := range []bool{false, true} {
		if noManifest {
			if _, err := client.Database("oidkit").Collection(mongowrite.ManifestCollection).DeleteMany(context.Background(), bson.D{}); err != nil {
				t.Fatal(err)
			}
		}
		out, errOut, code := runApp(t, t.Context(), "", args...)
		want := "the 3000 documents of this run are already there"
		if noManifest {
			want = "3000 documents of this run are already stored as generated"
		}
		if code != ExitFailure || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, want) ||
			!strings.Contains(errOut, "--resume") || !strings.Contains(errOut, "--drop") || strings.Contains(errOut, "11000") || len(errOut) > 400 {
			t.Errorf("second run (manifest deleted: %v): exit %d\nstdout %s\nstderr %s", noManifest, code, out, errOut)
		}
	}
	if n, _ := client.Database("oidkit").Collection("users").EstimatedDocumentCount(context.Background()); n != 3000 {
		t.Fatalf("%d documents", n)
	}
}

// A template the target refuses: exit 2 naming the collection, the field
// path and the reason, before anything is written or dropped.
func TestSeedRefusedTemplateKeepsCollection(t *testing.T) {
	uri, client := mongotest.Start(t)
	mustSeed(t, "--uri", uri, "--seed", "1", "-n", "100", "--collection", "keep")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"name": "{firstname}", "deep": `+strings.Repeat(`{"a": `, 100)+`"{latitude}"`+strings.Repeat("}", 101)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{{"--drop"}, {}} {
		out, errOut, code := runApp(t, t.Context(), "", append([]string{"seed", "--uri", uri, "--template", bad, "-n", "10", "--collection", "keep"}, extra...)...)
		if code != ExitUsage || !strings.Contains(errOut, "oidkit.keep") || !strings.Contains(errOut, `"deep`+strings.Repeat(".a", 100)+`"`) || !strings.Contains(errOut, "level 101 (at most 100)") {
			t.Errorf("seed %v: exit %d\nstdout %s\nstderr %s", extra, code, out, errOut)
		}
	}
	if n, _ := client.Database("oidkit").Collection("keep").EstimatedDocumentCount(context.Background()); n != 100 {
		t.Fatalf("the collection holds %d documents after the refused runs; want the 100 it had", n)
	}
}

// Ctrl+C mid-run (main cancels the context): the count reported equals
// what the server holds: the inserters finish the batches they sent (two
// inserters only without the race detector, which slows the in-process
// server too much).
func TestSeedInterruptCountsHonestly(t *testing.T) {
	uri, client := mongotest.Start(t)
	// The interruption comes once 2,000 documents are acknowledged; n only
	// has to leave the run well short of done by then (under -race 8,000
	// leaves 12 batches of 500 to go, where the interruption takes effect
	// within the batch in flight). Each document past that point is
	// written again by the --resume, which is where this test's time goes.
	n := 60000
	workers := []string{"1", "2"}
	if seedRaceEnabled {
		n, workers = 8000, workers[:1]
	}
	for _, w := range workers {
		db := "w" + w
		ctx, interrupt := context.WithCancel(t.Context())
		done := startApp(t, ctx, "seed", "--uri", uri, "--db", db, "--seed", "8", "-n", strconv.Itoa(n), "--batch", "500", "--workers", w, "--timeout", "30s")
		users := client.Database(db).Collection("users")
		waitForAcked(t, users, 2000, done)
		interrupt()
		r := <-done
		m := regexp.MustCompile(`inserted (\d+) of ` + strconv.Itoa(n) + `; re-run with --resume: interrupted`).FindStringSubmatch(r.err)
		if r.code != ExitFailure || m == nil {
			t.Fatalf("workers %s: exit %d\nstdout %s\nstderr %s", w, r.code, r.out, r.err)
		}
		held, err := users.EstimatedDocumentCount(context.Background())
		if k, _ := strconv.ParseInt(m[1], 10, 64); err != nil || k != held {
			t.Fatalf("workers %s: seed says inserted %s; the server holds %d (%v)", w, m[1], held, err)
		}
		out, errOut, code := runApp(t, t.Context(), "", "seed", "--uri", uri, "--db", db, "--resume")
		if code != ExitOK {
			t.Fatalf("resume: exit %d\n%s%s", code, out, errOut)
		}
		if held, _ := users.EstimatedDocumentCount(context.Background()); held != int64(n) {
			t.Fatalf("after resume: %d documents; want %d", held, n)
		}
	}
}

// A run written by an older document format (its manifest has no format
// field) is neither resumed nor verified with this version's documents:
// both refuse with exit 2, naming both formats, and write nothing.
func TestRunOfAnotherDocumentFormatRefused(t *testing.T) {
	uri, client := mongotest.Start(t)
	db := client.Database("oidkit")
	mustSeed(t, "--uri", uri, "-n", "40", "--seed", "9")
	res, err := db.Collection(mongowrite.ManifestCollection).UpdateOne(context.Background(), bson.D{{Key: "_id", Value: "users"}},
		bson.D{{Key: "$unset", Value: bson.D{{Key: "format", Value: ""}}}, {Key: "$set", Value: bson.D{{Key: "state", Value: mongowrite.StateFailed}}}})
	if err != nil || res.ModifiedCount != 1 {
		t.Fatalf("unset format: %+v %v", res, err)
	}
	for _, args := range [][]string{{"seed", "--resume"}, {"verify", "db"}} {
		_, errOut, code := runApp(t, t.Context(), "", append(args, "--uri", uri)...)
		want := "document format 1; this oidkit makes format " + strconv.Itoa(seed.DocumentFormat)
		if code != ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", args, code, errOut, want)
		}
	}
	if n, _ := db.Collection("users").CountDocuments(context.Background(), bson.D{}); n != 40 {
		t.Fatalf("%d documents after the refusals, want 40", n)
	}
}
