package integration

// A full disk under each command that writes into a populated collection,
// or out of one: what it prints against what the server (or the file)
// holds once space is freed.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/mongowrite"
)

// fileDocs reads a fixture file: its documents keyed by the bytes of their
// _id.
func fileDocs(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := fixtures.NewReader(f, path)
	out := map[string][]byte{}
	for {
		d, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		id := d.Raw.Lookup("_id")
		out[string(append([]byte{byte(id.Type)}, id.Value...))] = bytes.Clone(d.Raw)
	}
}

// collDocs reads a collection, keyed as fileDocs.
func collDocs(t *testing.T, ctx context.Context, coll *mongo.Collection) map[string][]byte {
	t.Helper()
	cur, err := coll.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	out := map[string][]byte{}
	for cur.Next(ctx) {
		id := cur.Current.Lookup("_id")
		out[string(append([]byte{byte(id.Type)}, id.Value...))] = bytes.Clone(cur.Current)
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var wroteAtLeastKofN = regexp.MustCompile(`wrote (at least )?(\d+) of (\d+) documents`)

// load --mode upsert of changed documents (through the pending
// collection) and new ones into a populated collection whose data dir
// fills up: exit 1 saying how many it wrote; once space is freed, the
// server holds that many of the file's documents as they are in the file
// (at least that many, when the message says "at least"), and every
// document stored before is there in one version or the other (the
// collection or its pending collection).
func TestRefusalFullDiskUpsertChanged(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(relTmpfs(t, "8m"), "data")
	ok(t, "seed", "--data-dir", dir, "--seed", "41", "-n", "3000", "--id", "int", "--id-start", "1", "--quiet")
	file := filepath.Join(t.TempDir(), "users.ndjson")
	// _ids 1..3000 changed, then 3001..30000 new.
	relFixture(t, file, "--seed", "42", "-n", "30000", "--id", "int", "--id-start", "1")
	r := run(t, 3*time.Minute, nil, "load", "--data-dir", dir, "--quiet", "--mode", "upsert", "--collection", "users", file)
	m := wroteAtLeastKofN.FindStringSubmatch(r.stderr)
	if r.code != 1 || m == nil || m[3] != "30000" {
		t.Fatalf("upsert into a full data dir: want exit 1 saying how many it wrote:\n%s", r)
	}
	t.Logf("%s", r.stderr)
	resize(t, filepath.Dir(dir), "256m")
	uri := relServe(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := relClient(t, uri).Database("oidkit")
	in := fileDocs(t, file)
	got := collDocs(t, ctx, db.Collection("users"))
	pending := collDocs(t, ctx, db.Collection("users"+mongowrite.PendingSuffix))
	var held int64
	for k, d := range in {
		if bytes.Equal(got[k], d) {
			held++
		}
	}
	for i := 1; i <= 3000; i++ {
		_, v, _ := bson.MarshalValue(int32(i))
		k := string(append([]byte{byte(bson.TypeInt32)}, v...))
		_, v64, _ := bson.MarshalValue(int64(i))
		k64 := string(append([]byte{byte(bson.TypeInt64)}, v64...))
		if got[k] == nil && pending[k] == nil && got[k64] == nil && pending[k64] == nil {
			t.Fatalf("document %d stored before the load is in neither the collection nor the pending one", i)
		}
	}
	said := int64(atoi(m[2]))
	t.Logf("held %d of the file's documents as they are; %d pending", held, len(pending))
	if held < said || (m[1] == "" && held != said) {
		t.Fatalf("the server holds %d of the file's documents; the message said %q:\n%s", held, m[0], r)
	}
	// Loading again finishes the job.
	if r := run(t, 3*time.Minute, nil, "load", "--uri", uri, "--db", "oidkit", "--quiet", "--mode", "upsert", "--collection", "users", file); r.code != 0 {
		t.Fatalf("the upsert again once space is freed:\n%s", r)
	}
}

// seed into a populated collection whose data dir fills up: exit 1 saying
// how many it inserted; once space is freed, the documents stored before
// verify, and the server holds exactly that many more (at least, when it
// says so).
func TestRefusalFullDiskSeedIntoPopulated(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(relTmpfs(t, "4m"), "data")
	small := []string{"--data-dir", dir, "--seed", "37", "-n", "500", "--collection", "users", "--quiet"}
	ok(t, append([]string{"seed"}, small...)...)
	big := []string{"--data-dir", dir, "--seed", "43", "-n", "30000", "--collection", "users", "--quiet"}
	r := run(t, 3*time.Minute, nil, append([]string{"seed"}, big...)...)
	m := insertedKofN.FindStringSubmatch(r.stderr)
	if r.code != 1 || m == nil || m[2] != "30000" {
		t.Fatalf("seed into a full data dir: want exit 1 saying inserted K of 30000:\n%s", r)
	}
	t.Logf("%s", r.stderr)
	atLeast := regexp.MustCompile(`inserted \d+ of \d+ \(at least`).MatchString(r.stderr)
	resize(t, filepath.Dir(dir), "256m")
	uri := relServe(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := relClient(t, uri).Database("oidkit").Collection("users").CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	said := int64(atoi(m[1]))
	if held := n - 500; held < said || (!atLeast && held != said) {
		t.Fatalf("the server holds %d documents of the second run; the message said %q:\n%s", held, m[0], r)
	}
	smallURI := []string{"--uri", uri, "--db", "oidkit", "--seed", "37", "-n", "500", "--collection", "users", "--quiet"}
	r = run(t, 2*time.Minute, nil, append([]string{"verify", "db", "--quiet"}, smallURI...)...)
	// The collection holds both runs: verify counts the others as
	// unexpected, but every document of the first must be there as it was.
	for _, row := range []string{`missing _ids +500 +0 +pass`, `documents equal \(BSON bytes\) +500 +0 +pass`} {
		if !regexp.MustCompile(row).MatchString(r.stdout) {
			t.Fatalf("verify db of the run stored before: want %q:\n%s", row, r)
		}
	}
}

// export --out onto a full file system: exit 1; no file under the output
// name nor a temporary one, and the message claims no document exported
// into a file that is not there.
func TestRefusalFullDiskExport(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	ok(t, "seed", "--data-dir", data, "--seed", "44", "-n", "20000", "--collection", "users", "--quiet")
	out := relTmpfs(t, "1m")
	path := filepath.Join(out, "users.ndjson")
	r := run(t, 2*time.Minute, nil, "export", "--data-dir", data, "--quiet", "-c", "users", "--out", path)
	t.Logf("%s", r)
	if r.code != 1 || !regexp.MustCompile(`no space left on device`).MatchString(r.stderr) {
		t.Fatalf("export onto a full disk: want exit 1 naming the error:\n%s", r)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("left under the output directory: %v", names)
	}
	if m := regexp.MustCompile(`exported (\d+)`).FindStringSubmatch(r.stderr + r.stdout); m != nil && m[1] != "0" {
		t.Fatalf("the message says %q, but no file is left:\n%s", m[0], r)
	}
	if !regexp.MustCompile(`\d+ of 20000 documents read, then: .*no space left on device; no file was written for users`).MatchString(r.stderr) {
		t.Fatalf("export onto a full disk: want how many documents were read and that no file was written:\n%s", r)
	}
}
