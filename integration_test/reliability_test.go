package integration

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The reliability cases of docs/reliability.md that need real processes:
// kill -9 at several moments, two processes at once, a full disk. Each runs
// its own `oidkit server` (or the binary's embedded server over a data
// directory), whatever server the rest of the suite uses, and keeps -n small
// so that every case ends in seconds.

// relServe starts `oidkit server` over dir on a port the server picks itself
// and returns the connection string it prints once it listens; the server is
// killed when the test ends. The port is never chosen here and released
// first: in between, another test's process or a container's published port
// could take it, and the test would talk to that server.
func relServe(t *testing.T, dir string) string {
	t.Helper()
	p := start(t, 5*time.Minute, nil, "server", "--listen", "127.0.0.1:0", "--data-dir", dir)
	uri := serverURI(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pingUntil(ctx, uri); err != nil {
		t.Fatalf("oidkit server at %s does not answer: %v\n%s", uri, err, p.stderr.String())
	}
	return uri
}

// serverURI is the connection string `oidkit server` prints as its first
// line once it listens, or fails t if the process ends first.
func serverURI(t *testing.T, p *proc) string {
	t.Helper()
	var line string
	waitFor(t, p, func() bool {
		out := p.stdout.String()
		i := strings.IndexByte(out, '\n')
		if i < 0 {
			return false
		}
		line = strings.TrimSpace(out[:i])
		return true
	})
	if !strings.HasPrefix(line, "mongodb://") {
		t.Fatalf("oidkit server printed %q, want a connection string\n%s", line, p.stderr.String())
	}
	return line
}

// relClient connects to uri for the test's own reads.
func relClient(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disconnect(c) })
	return c
}

// waitForID returns once the document with _id id is in coll, or fails the
// test if p ends first (the kill would then come too late to test anything).
// Each probe is one round trip to the server; the loop waits on the server,
// not on a timer.
func waitForID(t *testing.T, coll *mongo.Collection, id any, p *proc) {
	t.Helper()
	waitForMatch(t, coll, bson.D{{Key: "_id", Value: id}}, p)
}

// waitForCount waits until coll holds at least n documents, as $collStats
// counts them (the table's cells, read without decoding a document: a find
// by an integer _id scans and decodes the collection on FerretDB, slowing
// the writer it waits for), or fails t if p ends first.
func waitForCount(t *testing.T, coll *mongo.Collection, n int64, p *proc) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			t.Fatalf("the process ended before %d documents were stored:\n%s", n, p.Wait())
		default:
		}
		cur, err := coll.Aggregate(context.Background(), bson.A{bson.D{{Key: "$collStats", Value: bson.D{{Key: "count", Value: bson.D{}}}}}})
		if err == nil {
			var res []struct {
				Count int64 `bson:"count"`
			}
			if cur.All(context.Background(), &res) == nil && len(res) == 1 && res[0].Count >= n {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%d documents not stored within a minute", n)
}

// waitForMatch is waitForID for any filter.
func waitForMatch(t *testing.T, coll *mongo.Collection, filter bson.D, p *proc) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			t.Fatalf("the process ended before %v was stored:\n%s", filter, p.Wait())
		default:
		}
		if coll.FindOne(context.Background(), filter).Err() == nil {
			return
		}
	}
	t.Fatalf("%v not stored within a minute", filter)
}

// fixtureDoc is document k (from 0) of an Extended JSON file, one per line.
func fixtureDoc(t *testing.T, file string, k int) bson.D {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if k >= len(lines) {
		t.Fatalf("%s has %d documents, not %d", file, len(lines), k+1)
	}
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(lines[k]), false, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// kill9 kills p with SIGKILL and waits for it.
func kill9(t *testing.T, p *proc) result {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	r := p.Wait()
	if r.code == 0 {
		t.Logf("the process finished before the kill reached it:\n%s", r)
	}
	return r
}

// passes runs verify db with args and fails the test unless it passes.
func passes(t *testing.T, args ...string) {
	t.Helper()
	r := run(t, 2*time.Minute, nil, append([]string{"verify", "db", "--quiet"}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "result: PASS") {
		t.Fatalf("verify db should pass:\n%s", r)
	}
}

// kill -9 of `oidkit seed` at three moments; seed --resume then leaves
// exactly the planned documents (verify db passes).
func TestReliabilityKillSeed(t *testing.T) {
	t.Parallel()
	// Large enough that the probes (FerretDB finds by _id with a scan)
	// see the run before it ends.
	const n = 30000
	plan := []string{"--seed", "31", "-n", strconv.Itoa(n), "--id", "int", "--collection", "k"}
	moments := []struct {
		name string
		at   int // the _id whose arrival triggers the kill; 0: at once
	}{
		{"at start", 0},
		{"a quarter in", n / 4},
		{"a third in", n / 3},
	}
	for _, m := range moments {
		t.Run(m.name, func(t *testing.T) {
			// Each moment has a server and a data directory of its own.
			t.Parallel()
			uri := relServe(t, t.TempDir())
			coll := relClient(t, uri).Database("oidkit").Collection("k")
			conn := []string{"--uri", uri, "--quiet", "--timeout", "30s", "--batch", "100"}
			p := start(t, 2*time.Minute, nil, append(append([]string{"seed"}, conn...), plan...)...)
			if m.at > 0 {
				waitForID(t, coll, int32(m.at), p)
			}
			kill9(t, p)
			r := run(t, 2*time.Minute, nil, append(append([]string{"seed", "--resume"}, conn...), plan...)...)
			if r.code != 0 {
				t.Fatalf("seed --resume after kill -9 %s:\n%s", m.name, r)
			}
			passes(t, append([]string{"--uri", uri}, plan...)...)
		})
	}
}

// kill -9 of `oidkit seed` into the embedded server mid-write: the
// journal and the data-dir lock of a dead process recover; --resume
// completes the run.
func TestReliabilityKillSeedEmbedded(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	plan := []string{"--data-dir", dir, "--seed", "32", "-n", "30000", "--quiet"}
	p := start(t, 2*time.Minute, nil, append([]string{"seed", "--batch", "100"}, plan...)...)
	// The journal grows as batches are acknowledged; 256 KiB is a few
	// batches of the 30,000 documents (under 1,000 users), so the kill
	// lands with nearly all of them still to write, and --resume and
	// verify db then write and read 30,000, not 100,000.
	waitFor(t, p, func() bool {
		fi, err := os.Stat(filepath.Join(dir, "journal"))
		return err == nil && fi.Size() > 256<<10
	})
	kill9(t, p)
	if r := run(t, 2*time.Minute, nil, append([]string{"seed", "--resume"}, plan...)...); r.code != 0 {
		t.Fatalf("seed --resume over the killed run's data dir:\n%s", r)
	}
	passes(t, plan...)
}

// waitFor polls cond until it holds, failing if p ends first. The condition
// is a file's state or a process's output, which have no notification to
// wait on.
func waitFor(t *testing.T, p *proc, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
	for !cond() {
		select {
		case <-p.done:
			t.Fatalf("the process ended before the moment waited for:\n%s", p.Wait())
		case <-deadline:
			t.Fatal("the moment waited for did not come within a minute")
		case <-tick.C:
		}
	}
}

// relFixture writes a fixture file with `oidkit fixtures`.
func relFixture(t *testing.T, file string, args ...string) {
	t.Helper()
	ok(t, append([]string{"fixtures", "--quiet", "--out", file}, args...)...)
}

// kill -9 of `oidkit load` mid-way; loading the file again finishes it:
// exactly the file's documents, verify db --fixture passes. The upsert case
// replaces every document of a full collection with a changed version, and
// is killed once a tenth of them are in.
func TestReliabilityKillLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, changed := filepath.Join(dir, "items.ndjson"), filepath.Join(dir, "changed", "items.ndjson")
	// Large enough that the load is still running when the moment comes.
	// The insert case loads the file the upsert case loads first (files
	// are only read): one fixtures run of the plan, not two.
	const n = 30000
	relFixture(t, first, "--seed", "33", "-n", strconv.Itoa(n), "--id", "int", "--collection", "items")
	if err := os.Mkdir(filepath.Dir(changed), 0o755); err != nil {
		t.Fatal(err)
	}
	relFixture(t, changed, "--seed", "133", "-n", strconv.Itoa(n), "--id", "int", "--collection", "items")
	for _, mode := range []string{"insert", "upsert"} {
		t.Run(mode, func(t *testing.T) {
			// Each mode has a server of its own; the files are only read.
			t.Parallel()
			uri := relServe(t, t.TempDir())
			db := relClient(t, uri).Database("oidkit")
			file := first
			if mode == "upsert" {
				if r := run(t, 2*time.Minute, nil, "load", "--uri", uri, "--quiet", first); r.code != 0 {
					t.Fatalf("first load:\n%s", r)
				}
				file = changed
			}
			args := []string{"load", "--uri", uri, "--quiet", "--mode", mode, "--batch", "100", file}
			p := start(t, 2*time.Minute, nil, args...)
			if mode == "insert" {
				waitForCount(t, db.Collection("items"), n/2, p)
			} else {
				waitForMatch(t, db.Collection("items"), fixtureDoc(t, changed, n/10), p)
			}
			kill9(t, p)
			if r := run(t, 2*time.Minute, nil, args...); r.code != 0 {
				t.Fatalf("load again after kill -9:\n%s", r)
			}
			passes(t, "--uri", uri, "--collection", "items", "--fixture", file)
		})
	}
}

// kill -9 of `oidkit fixtures` mid-write leaves no file under the output
// name; the next run removes the dead run's temporary file and writes the
// same bytes as an uninterrupted run.
func TestReliabilityKillFixtures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "users.ndjson")
	// 40,000 users are about 16 MiB: the kill comes once 1 MiB is written,
	// with most of the file still to write, and the run is repeated twice
	// more (the re-run and the clean run whose bytes it must equal).
	const n = "40000"
	args := []string{"fixtures", "--quiet", "--seed", "34", "-n", n, "--out", out}
	p := start(t, 2*time.Minute, nil, args...)
	waitFor(t, p, func() bool {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && fi.Size() > 1<<20 {
				return true
			}
		}
		return false
	})
	kill9(t, p)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a killed fixtures run left %s (stat: %v)", out, err)
	}
	ok(t, args...)
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("after the re-run the directory holds %v; want only users.ndjson", names(ents))
	}
	clean := filepath.Join(t.TempDir(), "users.ndjson")
	ok(t, "fixtures", "--quiet", "--seed", "34", "-n", n, "--out", clean)
	if fileSum(t, out) != fileSum(t, clean) {
		t.Error("the re-run after kill -9 wrote different bytes from an uninterrupted run")
	}
}

func names(ents []os.DirEntry) []string {
	var s []string
	for _, e := range ents {
		s = append(s, e.Name())
	}
	return s
}

func fileSum(t *testing.T, file string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// Two `oidkit load` processes at once into one `oidkit server`.
func TestReliabilityTwoLoadsAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson")
	relFixture(t, a, "--seed", "35", "-n", "5000", "--id", "int", "--collection", "shared")
	relFixture(t, b, "--seed", "36", "-n", "5000", "--id", "int", "--id-start", "5001", "--collection", "shared")
	uri := relServe(t, t.TempDir())

	t.Run("different files, one collection", func(t *testing.T) {
		load := func(f string) *proc {
			return start(t, 2*time.Minute, nil, "load", "--uri", uri, "--quiet", "--collection", "shared", "--batch", "250", f)
		}
		pa, pb := load(a), load(b)
		ra, rb := pa.Wait(), pb.Wait()
		if ra.code != 0 || rb.code != 0 {
			t.Fatalf("both loads should complete:\n%s\n\n%s", ra, rb)
		}
		passes(t, "--uri", uri, "--collection", "shared", "--fixture", a, "--fixture", b)
	})
	t.Run("one file twice", func(t *testing.T) {
		load := func() *proc {
			return start(t, 30*time.Second, nil, "load", "--uri", uri, "--quiet", "--collection", "twice", "--batch", "250", a)
		}
		pa, pb := load(), load()
		for _, r := range []result{pa.Wait(), pb.Wait()} {
			// The run that finds the other's documents mid-way must still
			// end soon with honest counts (at most the file's 5000).
			m := wroteKofN.FindStringSubmatch(r.stdout + r.stderr)
			over := m != nil && atoi(m[1]) > atoi(m[2])
			if over {
				t.Fatalf("a concurrent load of the same file counts more documents than the file holds:\n%s", r)
			}
			if r.code != 0 {
				t.Fatalf("a concurrent load of the same file: want exit 0:\n%s", r)
			}
		}
		passes(t, "--uri", uri, "--collection", "twice", "--fixture", a)
		if r := run(t, 2*time.Minute, nil, "load", "--uri", uri, "--quiet", "--collection", "twice", a); r.code != 0 {
			t.Fatalf("a third load of the same file should find everything stored:\n%s", r)
		}
	})
}

var wroteKofN = regexp.MustCompile(`wrote (\d+) of (\d+)`)

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// relTmpfs mounts a tmpfs of size bytes on a new directory (the sandbox runs
// tests as root); the test skips where mounting is not allowed.
func relTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("skipped: cannot mount a tmpfs to fill (%v: %s)", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

func resize(t *testing.T, dir, size string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,size="+size, dir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s: %v: %s", dir, err, out)
	}
}

// Seeding into a full data directory fails with exit 1 and the server's
// reason, keeps what was there intact, and resumes once space is freed.
func TestReliabilityFullDataDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(relTmpfs(t, "1m"), "data")
	small := []string{"--data-dir", dir, "--seed", "37", "-n", "200", "--collection", "before", "--quiet"}
	ok(t, append([]string{"seed"}, small...)...)
	big := []string{"--data-dir", dir, "--seed", "38", "-n", "20000", "--collection", "big", "--quiet"}
	r := run(t, 2*time.Minute, nil, append([]string{"seed"}, big...)...)
	if r.code != 1 || !strings.Contains(r.stderr, "disk is full") || !strings.Contains(r.stderr, "--resume") {
		t.Fatalf("seed into a full data dir: want exit 1 saying the disk is full and how to resume:\n%s", r)
	}
	passes(t, small...)
	resize(t, filepath.Dir(dir), "64m")
	if r := run(t, 2*time.Minute, nil, append([]string{"seed", "--resume"}, big...)...); r.code != 0 {
		t.Fatalf("seed --resume once space is freed:\n%s", r)
	}
	passes(t, big...)
	passes(t, small...)
}

// The summary a failed seed prints on stdout agrees with its error's count.
func TestReliabilityFullDataDirSummary(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(relTmpfs(t, "1m"), "data")
	r := run(t, 2*time.Minute, nil, "seed", "--data-dir", dir, "--seed", "38", "-n", "20000", "--quiet")
	m := insertedKofN.FindStringSubmatch(r.stderr)
	if r.code != 1 || m == nil {
		t.Fatalf("seed into a full data dir: want exit 1 saying inserted K of N:\n%s", r)
	}
	if !strings.Contains(r.stdout, "inserted "+m[1]+",") {
		t.Errorf("the summary on stdout does not say inserted %s, as the error does:\n%s", m[1], r)
	}
	if strings.Contains(r.stderr, ".go:") {
		t.Errorf("the error names source files:\n%s", r)
	}
}

// fixtures --out on a full file system: exit 1 naming the error, and
// neither the file nor a temporary one is left.
func TestReliabilityFullDiskFixtures(t *testing.T) {
	t.Parallel()
	dir := relTmpfs(t, "1m")
	for _, extra := range [][]string{nil, {"--array"}, {"--plan", "shop", "-n", "2000"}} {
		out := filepath.Join(dir, "users.ndjson")
		if len(extra) > 0 && extra[0] == "--plan" {
			out = filepath.Join(dir, "shop")
		}
		args := append([]string{"fixtures", "--quiet", "--seed", "39", "-n", "20000", "--out", out}, extra...)
		r := run(t, time.Minute, nil, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "no space left on device") {
			t.Errorf("fixtures into a full disk: want exit 1 naming the error:\n%s", r)
		}
		left := 0
		_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, _ error) error {
			if d != nil && !d.IsDir() {
				left++
			}
			return nil
		})
		if left != 0 {
			t.Errorf("%v left %d files on the full disk", extra, left)
		}
	}
}

// load - keeps the validated copy of standard input in memory up to 64 MiB
// and spools the rest to TMPDIR; a full TMPDIR fails before anything is
// written, and leaves no spool behind. 200,000 users are about 90 MiB.
func TestReliabilityFullDiskLoadSpool(t *testing.T) {
	t.Parallel()
	tmp := relTmpfs(t, "1m")
	file := filepath.Join(t.TempDir(), "u.ndjson")
	relFixture(t, file, "--seed", "40", "-n", "200000")
	uri := relServe(t, t.TempDir())
	in, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, suite.bin, "load", "--uri", uri, "--quiet", "--collection", "spooled", "-")
	cmd.Env = append(baseEnv(), "TMPDIR="+tmp)
	cmd.Stdin = in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if code != 1 || !strings.Contains(stderr.String(), "no space left on device") {
		t.Errorf("load - with a full TMPDIR: exit %d, stderr %q; want exit 1 naming the error", code, stderr.String())
	}
	n, err := relClient(t, uri).Database("oidkit").Collection("spooled").CountDocuments(ctx, bson.D{})
	if err != nil || n != 0 {
		t.Errorf("the collection holds %d documents (%v); want none written", n, err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("TMPDIR keeps %v", names(ents))
	}
}

// Writing documents or IDs to a full standard output (/dev/full) fails with
// exit 1 and the error.
func TestReliabilityDevFullStdout(t *testing.T) {
	t.Parallel()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("skipped: no /dev/full: %v", err)
	}
	defer full.Close()
	for _, args := range [][]string{
		{"gen", "-n", "100000"},
		{"fixtures", "--quiet", "--seed", "1", "-n", "1000"},
		{"inspect", "507f1f77bcf86cd799439011"},
		{"range", "--from", "2024-01-01T00:00:00Z"},
	} {
		cmd := exec.Command(suite.bin, args...)
		cmd.Env = baseEnv()
		cmd.Stdout = full
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%v > /dev/full: exit %d, stderr %q; want exit 1 naming the error", args, code, stderr.String())
		}
	}
}

// load into a collection that already holds documents, on a data directory
// that fills up mid-way: exit 1 naming the error, and the count it prints is
// what the server holds afterwards (the stored documents untouched, plus at
// least and at most what the message says was written).
func TestReliabilityFullDiskLoadIntoPopulated(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(relTmpfs(t, "6m"), "data")
	ok(t, "seed", "--data-dir", dir, "--seed", "41", "-n", "500", "--id", "int", "--id-start", "1", "--quiet")
	file := filepath.Join(t.TempDir(), "more.ndjson")
	relFixture(t, file, "--seed", "42", "-n", "20000", "--id", "int", "--id-start", "1000000")
	r := run(t, 2*time.Minute, nil, "load", "--data-dir", dir, "--quiet", "--collection", "users", file)
	m := regexp.MustCompile(`wrote (at least )?(\d+) of 20000 documents`).FindStringSubmatch(r.stderr)
	if r.code != 1 || m == nil {
		t.Fatalf("load into a full data dir: want exit 1 saying how many it wrote:\n%s", r)
	}
	resize(t, filepath.Dir(dir), "256m")
	uri := relServe(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	coll := relClient(t, uri).Database("oidkit").Collection("users")
	stored, err := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 1000000}}}})
	if err != nil || stored != 500 {
		t.Fatalf("the collection keeps %d of its 500 documents (%v)", stored, err)
	}
	loaded, err := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 1000000}}}})
	if err != nil {
		t.Fatal(err)
	}
	if said := int64(atoi(m[2])); loaded < said || (m[1] == "" && loaded != said) {
		t.Fatalf("the server holds %d loaded documents; the message said %q:\n%s", loaded, m[0], r)
	}
}
