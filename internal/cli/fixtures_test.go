package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/seed"
)

// `oidkit fixtures --seed 1 -n 100` prints valid Extended JSON, the same on
// every run, and nothing else.
func TestFixturesDeterministic(t *testing.T) {
	first, errOut, code := runApp(t, t.Context(), "", "fixtures", "--seed", "1", "-n", "100")
	if code != ExitOK || beyondProgress(errOut) != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	second, _, _ := runApp(t, t.Context(), "", "fixtures", "--seed", "1", "-n", "100")
	if first != second {
		t.Fatal("two runs with --seed 1 differ")
	}
	lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
	if len(lines) != 100 {
		t.Fatalf("%d lines", len(lines))
	}
	ids := map[string]bool{}
	for i, l := range lines {
		var d bson.D
		if err := bson.UnmarshalExtJSON([]byte(l), false, &d); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		if d[0].Key != "_id" {
			t.Fatalf("line %d: first field %q", i+1, d[0].Key)
		}
		ids[d[0].Value.(bson.ObjectID).Hex()] = true
	}
	if len(ids) != 100 {
		t.Errorf("%d distinct _id values", len(ids))
	}
	other, _, _ := runApp(t, t.Context(), "", "fixtures", "--seed", "2", "-n", "100")
	if other == first {
		t.Error("--seed 2 gives the same documents as --seed 1")
	}
	unseeded1, _, _ := runApp(t, t.Context(), "", "fixtures", "-n", "5")
	unseeded2, _, _ := runApp(t, t.Context(), "", "fixtures", "-n", "5")
	if unseeded1 == unseeded2 {
		t.Error("two unseeded runs are identical")
	}
}

// Each kind, strategy, mode and layout writes what seed generates, and reads
// back to the same BSON.
func TestFixturesMatchSeedDocuments(t *testing.T) {
	for _, args := range [][]string{
		{"--kind", "user", "--id", "uuid"},
		{"--kind", "employee", "--id", "int", "--id-start", "10", "--mode", "canonical"},
		{"--kind", "product", "--id", "field:code", "--array"},
		{"--kind", "order", "--array", "--mode", "canonical", "--span", "30d"},
	} {
		// 1500 documents: more than one batch of the stream, so more than one
		// generator.
		base := append([]string{"fixtures", "--seed", "7", "-n", "1500"}, args...)
		out, errOut, code := runApp(t, t.Context(), "", base...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		// The same flags through planOptions give the expected documents.
		var want []bson.Raw
		ds := datasetFor(t, base)
		col := ds.Written()[0]
		for i := range col.Len() {
			raw, err := bson.Marshal(col.Doc(i))
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, raw)
		}
		r := fixtures.NewReader(strings.NewReader(out), "stdout")
		for i, w := range want {
			d, err := r.Next()
			if err != nil {
				t.Fatalf("%v: document %d: %v", args, i, err)
			}
			if !bytes.Equal(d.Raw, w) {
				t.Fatalf("%v: document %d:\n got %s\nwant %s", args, i, d.Raw, w)
			}
		}
		if wantArray := strings.Contains(strings.Join(args, " "), "--array"); wantArray != (r.Layout() == fixtures.Array) {
			t.Errorf("%v: layout %v", args, r.Layout())
		}
	}
}

func TestFixturesOutFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "people.ndjson")
	out, errOut, code := runApp(t, t.Context(), "", "fixtures", "--seed", "1", "-n", "30", "--out", file)
	if code != ExitOK || !strings.Contains(out, file+": 30 documents") || beyondProgress(errOut) != "" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	stdout, _, _ := runApp(t, t.Context(), "", "fixtures", "--seed", "1", "-n", "30")
	if b, _ := os.ReadFile(file); string(b) != stdout {
		t.Error("--out file differs from standard output")
	}

	plan := filepath.Join(dir, "shop")
	out, errOut, code = runApp(t, t.Context(), "", "fixtures", "--plan", "shop", "-n", "20", "--seed", "3", "--array", "--out", plan)
	if code != ExitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	names := listDir(t, plan)
	if strings.Join(names, ",") != "orders.json,orders.metadata.json,products.json,products.metadata.json,users.json,users.metadata.json" {
		t.Fatalf("plan directory holds %v", names)
	}
	// An existing directory as --out gets <collection>.ndjson.
	_, errOut, code = runApp(t, t.Context(), "", "fixtures", "--kind", "product", "-n", "3", "--out", dir)
	if code != ExitOK {
		t.Fatalf("dir: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "products.ndjson")); err != nil {
		t.Fatal(err)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestFixturesErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.json")
	_ = os.WriteFile(file, []byte("x"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "strict"}, `--mode "strict": expected relaxed or canonical`},
		{[]string{"--plan", "shop"}, `--plan "shop" writes one file per collection: expected --out DIR`},
		{[]string{"--plan", "shop", "--out", file}, "expected a directory for --plan, found a file"},
		{[]string{"--kind", "nope"}, `--kind "nope"`},
		{[]string{"-n", "-1"}, "-n -1"},
		{[]string{"--out", filepath.Join(dir, "missing", "x.ndjson")}, "--out"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-n", "2", "--out", ""}, `--out "": expected a file or directory name`},
		{[]string{"-n", "2", "-o", " "}, `--out " "`},
	}
	for _, c := range cases {
		out, errOut, code := runApp(t, t.Context(), "", append([]string{"fixtures"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
	if names := listDir(t, dir); len(names) != 1 {
		t.Errorf("failed runs left files: %v", names)
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Error("a failed run changed an existing file")
	}
}

// datasetFor builds the dataset that fixtures args describe, through the
// same flags and planOptions.
func datasetFor(t *testing.T, args []string) *seed.Dataset {
	t.Helper()
	a := NewApp(strings.NewReader(""), new(bytes.Buffer), new(bytes.Buffer))
	cmd := a.fixturesCommand()
	var ds *seed.Dataset
	var err error
	cmd.Action = func(c *ucli.Context) error {
		ds, err = datasetFrom(planOptions(c))
		return err
	}
	app := &ucli.App{Name: "oidkit", Commands: []*ucli.Command{cmd}, Writer: new(bytes.Buffer), ErrWriter: new(bytes.Buffer)}
	if rerr := app.Run(append([]string{"oidkit"}, args...)); rerr != nil || err != nil {
		t.Fatalf("%v: %v %v", args, rerr, err)
	}
	return ds
}

// An interrupted run (main cancels the context on SIGINT and SIGTERM) fails
// with exit 1 and leaves neither the file nor its temporary file.
func TestFixturesInterrupted(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "big.ndjson")
	if err := os.WriteFile(out, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := interruptAtTemp(t, dir, "big.ndjson", true, "fixtures", "--seed", "1", "-n", "100000000", "--out", out)
	if r.code != ExitFailure || !strings.Contains(r.stderr, "interrupted after") {
		t.Fatalf("exit %d, stderr %q; want exit 1 and \"interrupted after\"", r.code, r.stderr)
	}
	if names := listDir(t, dir); len(names) != 1 || names[0] != "big.ndjson" {
		t.Fatalf("directory holds %v", names)
	}
	if b, _ := os.ReadFile(out); string(b) != "previous\n" {
		t.Fatal("the existing file changed")
	}
}

// BenchmarkFixturesCommand is `oidkit fixtures --seed 1 -n 20000` to a
// discarded stdout: generation on every CPU, marshaling and writing.
func BenchmarkFixturesCommand(b *testing.B) {
	const n = 20000
	for _, kind := range seed.Kinds() {
		b.Run(kind, func(b *testing.B) {
			for b.Loop() {
				code := NewApp(strings.NewReader(""), io.Discard, io.Discard).Run([]string{"oidkit", "fixtures", "--seed", "1", "-n", "20000", "--kind", kind})
				if code != ExitOK {
					b.Fatal(code)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// A template nested deeper than MongoDB allows would make a file that no
// server loads: fixtures refuses it, names the document and the field, and
// leaves no file behind. The top-level document is level 1, so with k
// nested documents under "deep" the innermost field is at level k+1.
func TestFixturesRefusesDocumentsNoServerStores(t *testing.T) {
	dir := t.TempDir()
	template := func(k int) string {
		inner := `{"v":"{number:1,5}"}`
		for range k - 1 {
			inner = `{"a":` + inner + `}`
		}
		path := filepath.Join(dir, fmt.Sprintf("deep%d.json", k))
		if err := os.WriteFile(path, []byte(`{"name":"{name}","deep":`+inner+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	out := filepath.Join(dir, "deep.ndjson")
	_, errOut, code := runApp(t, t.Context(), "", "fixtures", "--template", template(100), "-n", "3", "--seed", "1", "--out", out)
	if code != ExitUsage {
		t.Fatalf("exit %d; want %d; stderr %s", code, ExitUsage, errOut)
	}
	for _, want := range []string{"deep100 document 0", `"deep.a.a.a`, "level 101", "no file was written"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stat %s: %v; want no file", out, err)
	}
	// One level less is within the limit and is written.
	if _, errOut, code := runApp(t, t.Context(), "", "fixtures", "--template", template(99), "-n", "3", "--seed", "1", "--out", out); code != ExitOK {
		t.Fatalf("level 100: exit %d; stderr %s", code, errOut)
	}
}

// cancelAfter is standard output that cancels the run once it has received
// its first bytes, as a Ctrl-C while documents stream to a pipe does.
type cancelAfter struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelAfter) Write(p []byte) (int, error) {
	defer w.cancel()
	return w.Buffer.Write(p)
}

// An interrupted write to standard output cannot take back what went out:
// it says how many complete documents did, and every line out is one whole
// document.
func TestFixturesInterruptedStdoutCountsWhatWentOut(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := &cancelAfter{cancel: cancel}
	var errb bytes.Buffer
	code := NewApp(strings.NewReader(""), out, &errb).RunContext(ctx, []string{"oidkit", "fixtures", "--seed", "1", "-n", "100000000"})
	if code != ExitFailure {
		t.Fatalf("exit %d; want %d; stderr %s", code, ExitFailure, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := fmt.Sprintf(": %d complete documents went to standard output", len(lines))
	if !strings.Contains(errb.String(), "interrupted after") || !strings.Contains(errb.String(), want) || strings.Contains(errb.String(), "no file was written") {
		t.Fatalf("stderr %q; want \"interrupted after\" and %q", errb.String(), want)
	}
	for k, line := range lines {
		if _, err := fixtures.NewReader(strings.NewReader(line), "stdout").Next(); err != nil {
			t.Fatalf("line %d of standard output is not a whole document: %v", k+1, err)
		}
	}
}

// A plan means the same documents from the command line and from Go: the
// command's defaults (the time base and window among them) are a zero
// seed.Plan's, so a Go test can assert against fixtures the command made.
func TestFixturesMatchGoPlan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shop")
	if out, errOut, code := runApp(t, t.Context(), "", "fixtures", "--plan", "shop", "-n", "1000", "--seed", "7", "--out", dir); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	plan, err := seed.BuiltinPlan("shop", 1000)
	if err != nil {
		t.Fatal(err)
	}
	plan.Seed, plan.Seeded = 7, true
	ds, err := plan.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range ds.Written() {
		f, err := os.Open(filepath.Join(dir, col.Name()+".ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		r := fixtures.NewReader(f, f.Name())
		for i := range col.Len() {
			want, err := bson.Marshal(col.Doc(i))
			if err != nil {
				t.Fatal(err)
			}
			d, err := r.Next()
			if err != nil {
				t.Fatalf("%s: document %d: %v", col.Name(), i, err)
			}
			if !bytes.Equal(d.Raw, want) {
				t.Fatalf("%s: document %d:\n got %s\nwant %s", col.Name(), i, d.Raw, bson.Raw(want))
			}
		}
		if _, err := r.Next(); err == nil {
			t.Errorf("%s: more documents than the Go plan's %d", col.Name(), col.Len())
		}
		f.Close()
	}
}
