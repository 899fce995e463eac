package cli

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/mongowrite"
)

func TestSeedCommand(t *testing.T) {
	dir := t.TempDir()
	base := []string{"seed", "--data-dir", dir, "--seed", "1", "-n", "500", "--batch", "100"}
	out, errOut, code := runApp(t, t.Context(), "", base...)
	if code != ExitOK || !strings.Contains(out, "oidkit.users: inserted 500, skipped 0 (already there)") || !strings.Contains(out, "docs/s") || beyondProgress(errOut) != "" {
		t.Fatalf("seed: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "seed 1, time base 2024-01-01T00:00:00Z") {
		t.Errorf("summary does not name the seed and time base: %s", out)
	}
	// The same run again: one line says the documents are there and what to do.
	out, errOut, code = runApp(t, t.Context(), "", base...)
	if code != ExitFailure || !strings.Contains(errOut, "already there") || !strings.Contains(errOut, "--resume") || !strings.Contains(errOut, "--drop") ||
		strings.Count(errOut, "\n") != 1 || strings.Contains(errOut, "11000") {
		t.Fatalf("second seed: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	out, errOut, code = runApp(t, t.Context(), "", append(base, "--resume")...)
	if code != ExitOK || !strings.Contains(out, "inserted 0, skipped 500 (already there)") {
		t.Fatalf("resume: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	out, errOut, code = runApp(t, t.Context(), "", append(base, "--drop")...)
	if code != ExitOK || !strings.Contains(out, "inserted 500, skipped 0") {
		t.Fatalf("drop: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	out, errOut, code = runApp(t, t.Context(), "", "seed", "--data-dir", dir, "--plan", "shop", "-n", "40", "--seed", "2", "--db", "shop", "--quiet")
	if code != ExitOK || !strings.Contains(out, "shop.orders: inserted 120") || !strings.Contains(out, "total: inserted 164, skipped 0") {
		t.Fatalf("shop: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	out, errOut, code = runApp(t, t.Context(), "", "seed", "--data-dir", dir, "--kind", "employee", "--id", "int", "--id-start", "10", "-n", "3", "--collection", "Employee")
	if code != ExitOK || !strings.Contains(out, "oidkit.Employee: inserted 3") || !regexp.MustCompile(`seed \d+ \(drawn\), time base \S+; --seed \d+ --at \S+ repeats this run\)`).MatchString(out) {
		t.Fatalf("employee: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

func TestSeedCommandErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--resume"}, ExitUsage, "--resume: no run manifest in database oidkit"},
		{[]string{"--resume", "--drop", "--seed", "1"}, ExitUsage, "--resume with --drop"},
		{[]string{"--batch", "0"}, ExitUsage, "--batch 0"},
		{[]string{"--workers", "100"}, ExitUsage, "--workers 100"},
		{[]string{"--kind", "cat"}, ExitUsage, `--kind "cat"`},
		{[]string{"extra"}, ExitUsage, `unexpected argument "extra"`},
		{[]string{"--uri", "http://x"}, ExitUsage, `--uri "http://x"`},
		{[]string{"--uri", "mongodb://u:secret@127.0.0.1:1/", "--timeout", "1s"}, ExitFailure, "unreachable within --timeout 1s"},
	}
	for _, tc := range cases {
		start := time.Now()
		args := []string{"seed", "-n", "10"}
		if !slices.Contains(tc.args, "--uri") { // --data-dir is the embedded server's
			args = append(args, "--data-dir", dir)
		}
		_, errOut, code := runApp(t, t.Context(), "", append(args, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("seed %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
		if strings.Contains(errOut, "secret") {
			t.Errorf("seed %v: the password shows in %q", tc.args, errOut)
		}
		if d := time.Since(start); d > 8*time.Second {
			t.Errorf("seed %v took %v", tc.args, d)
		}
	}
}

// A server that dies mid-run: exit 1 and "inserted K of N; re-run with
// --resume", K never more than the server holds; after a restart over the
// same data, --resume with no other flag completes the run from its
// manifest.
func TestSeedServerDiesThenResume(t *testing.T) {
	// Its own server and data directory; most of its time is seed waiting
	// for the stopped server (--timeout, then the manifest's final save),
	// which tests run beside it use.
	t.Parallel()
	dir := t.TempDir()
	// The server stops once 2,000 documents are acknowledged, and Close
	// only lets the requests in flight finish (then closes each
	// connection), so what the fault needs is batches still to send after
	// that point. A fail point makes every insert after the first eight
	// batches wait blockMS: however fast the machine, the 32 batches of
	// 250 left cannot all go in before the server stops. The resume then
	// writes the ~8,000 left, which is what this test's time goes on.
	const n, blockMS = 10000, 2000
	srv, err := embedded.Start(embedded.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	admin := connect(t, srv.URI())
	fp := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "skip", Value: 8}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: blockMS}}}}
	if err := admin.Database("admin").RunCommand(t.Context(), fp).Err(); err != nil {
		t.Fatal(err)
	}
	_ = admin.Disconnect(context.Background())
	// --timeout bounds how long the run waits for the server that went
	// away (a batch in flight may wait that long for a server to select),
	// so it is short here: a batch of 250 takes a fraction of it even
	// under -race on a loaded machine.
	args := []string{"seed", "--uri", srv.URI(), "--seed", "4", "-n", strconv.Itoa(n), "--batch", "250", "--timeout", "6s"}
	done := startApp(t, t.Context(), args...)
	// Stop the server once documents are in: the run is then under way.
	client := connect(t, srv.URI())
	waitForAcked(t, client.Database("oidkit").Collection("users"), 2000, done)
	_ = client.Disconnect(context.Background())
	_ = srv.Close()
	var r seedResult
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("seed hangs after the server stopped")
	}
	m := regexp.MustCompile(`inserted (\d+) of ` + strconv.Itoa(n) + `( \(at least[^)]*\))?; re-run with --resume`).FindStringSubmatch(r.err)
	if r.code != ExitFailure || m == nil || !strings.Contains(r.err, "127.0.0.1") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.out, r.err)
	}
	k, _ := strconv.ParseInt(m[1], 10, 64)

	srv2, err := embedded.Start(embedded.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv2.Close()
	client = connect(t, srv2.URI())
	defer client.Disconnect(context.Background())
	users := client.Database("oidkit").Collection("users")
	held, err := users.EstimatedDocumentCount(context.Background())
	if err != nil || held < k {
		t.Fatalf("the server holds %d documents (%v); seed said %d", held, err, k)
	}
	man, err := mongowrite.ReadManifest(context.Background(), client.Database("oidkit"), "users")
	if err != nil || man.State != mongowrite.StateRunning || man.AckedCount > held || man.AckedCount == 0 {
		t.Fatalf("manifest after the server died: %+v, %v; want state running and 0 < acked <= %d", man, err, held)
	}
	out, errOut, code := runApp(t, t.Context(), "", "seed", "--uri", srv2.URI(), "--timeout", "20s", "--resume")
	sm := regexp.MustCompile(`inserted (\d+), skipped (\d+) \(already there\)`).FindStringSubmatch(out)
	if code != ExitOK || sm == nil {
		t.Fatalf("resume: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	ins, _ := strconv.ParseInt(sm[1], 10, 64)
	skip, _ := strconv.ParseInt(sm[2], 10, 64)
	if ins+skip != int64(n) || ins != int64(n)-held {
		t.Fatalf("resume inserted %d and skipped %d with %d there; want %d in all", ins, skip, held, n)
	}
}

type seedResult struct {
	code     int
	out, err string
}

// startApp runs the app in the background, as runApp does; the result
// comes on the channel.
func startApp(t testing.TB, ctx context.Context, args ...string) chan seedResult {
	done := make(chan seedResult, 1)
	go func() {
		out, errOut, code := runApp(t, ctx, "", args...)
		done <- seedResult{code, out, errOut}
	}()
	return done
}

func connect(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// waitForAcked returns once the run manifest of coll says at least n
// documents were acknowledged; it fails the test if the run (done) ends
// first. It reads the manifest, not the collection: counting a collection
// on FerretDB reads every document and would slow the run it watches.
func waitForAcked(t *testing.T, coll *mongo.Collection, n int64, done chan seedResult) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if m, err := mongowrite.ReadManifest(context.Background(), coll.Database(), coll.Name()); err == nil && m.AckedCount >= n {
			return
		}
		select {
		case r := <-done:
			t.Fatalf("the run ended before %d documents were in: exit %d\n%s%s", n, r.code, r.out, r.err)
		case <-tick.C:
		}
	}
}

// Seeding into a collection that already holds documents checks the
// unique indexes first: a generated key held by a stored document with
// another _id stops the run before anything is written, naming the
// document, the index, the key and the stored _id (exit 1).
func TestSeedUniqueClashWithStoredRefusedBeforeWriting(t *testing.T) {
	uri, client, ctx := startServer(t)
	gen := []string{"--kind", "user", "-n", "40", "--seed", "3", "--collection", "people", "--quiet"}
	mustRun(t, append([]string{"seed", "--uri", uri, "--db", "first"}, gen...)...)
	seeded := dump(t, ctx, client.Database("first").Collection("people"))
	email := seeded[7].Lookup("email").StringValue()
	coll := client.Database("oidkit").Collection("people")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "other"}, {Key: "email", Value: email}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runApp(t, t.Context(), "", append([]string{"seed", "--uri", uri}, gen...)...)
	want := regexp.MustCompile(fmt.Sprintf(`^oidkit: oidkit\.people document \d+: unique index email_1: key "%s" is held by the stored document _id "other"\n`, regexp.QuoteMeta(email)))
	if code != ExitFailure || !want.MatchString(errOut) || !strings.Contains(errOut, "1 documents clash in a unique index with documents already stored (listed above); nothing was written") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s\nwant it to match %s", code, out, errOut, want)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("%d documents (%v); want the 1 stored before", n, err)
	}
}
