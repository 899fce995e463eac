package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// The reliability cases of docs/reliability.md that run the app in-process
// against the embedded server: every BSON type, keys with dots and dollars,
// huge and deep documents, a password in OIDKIT_URI, output that cannot be
// written.

// loadLines writes lines into dir/name.ndjson and loads it with load into
// the server at uri; it returns the file's path and the app's result.
func loadLines(t *testing.T, uri, dir, name string, lines ...string) (file, stdout, stderr string, code int) {
	t.Helper()
	file = filepath.Join(dir, name+".ndjson")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runApp(t, t.Context(), "", "load", "--uri", uri, "--db", "rel", "--quiet", file)
	return file, stdout, stderr, code
}

func storedDocs(t *testing.T, c *mongo.Collection) []bson.Raw {
	t.Helper()
	cur, err := c.Find(t.Context(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	for cur.Next(t.Context()) {
		docs = append(docs, append(bson.Raw(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// ejsonBytes is what the driver makes of a line of canonical Extended JSON:
// the bytes a faithful load stores.
func ejsonBytes(t *testing.T, line string) bson.Raw {
	t.Helper()
	var d bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(line), true, &d); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return d
}

// Every BSON type FerretDB stores goes through load and comes back byte for
// byte.
func TestReliabilityLoadEveryAcceptedTypeRoundTrips(t *testing.T) {
	uri, client := mongotest.Start(t)
	cases := map[string]string{
		"double":          `{"$numberDouble":"1.5"}`,
		"string":          `"s"`,
		"empty string":    `""`,
		"document":        `{"a":{"$numberInt":"1"}}`,
		"empty document":  `{}`,
		"array":           `[{"$numberInt":"1"},"x"]`,
		"empty array":     `[]`,
		"binary generic":  `{"$binary":{"base64":"AQI=","subType":"00"}}`,
		"binary uuid":     `{"$binary":{"base64":"AAECAwQFBgcICQoLDA0ODw==","subType":"04"}}`,
		"binary user":     `{"$binary":{"base64":"AQI=","subType":"80"}}`,
		"objectid":        `{"$oid":"507f1f77bcf86cd799439011"}`,
		"bool":            `true`,
		"datetime":        `{"$date":{"$numberLong":"1700000000000"}}`,
		"datetime before": `{"$date":{"$numberLong":"-62135596800000"}}`,
		"null":            `null`,
		"regex":           `{"$regularExpression":{"pattern":"^a","options":"i"}}`,
		"int32":           `{"$numberInt":"-2147483648"}`,
		"timestamp":       `{"$timestamp":{"t":1,"i":2}}`,
		"int64":           `{"$numberLong":"9007199254740993"}`,
		"unicode string":  `"日本\u0000x"`,
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			coll := strings.ReplaceAll(name, " ", "_")
			line := `{"_id":{"$numberInt":"1"},"v":` + v + `}`
			_, out, errOut, code := loadLines(t, uri, t.TempDir(), coll, line)
			if code != ExitOK {
				t.Fatalf("load %s: exit %d\n%s%s", line, code, out, errOut)
			}
			got := storedDocs(t, client.Database("rel").Collection(coll))
			if len(got) != 1 || !bytesEqual(got[0], ejsonBytes(t, line)) {
				t.Fatalf("stored %v, want exactly %s", got, line)
			}
		})
	}
}

func bytesEqual(a, b bson.Raw) bool { return string(a) == string(b) }

// A document MongoDB's profile refuses is refused before anything is
// written: exit 2, file:line named, the collection untouched -- whatever
// comes before it.
func TestReliabilityLoadRefusedValuesWriteNothing(t *testing.T) {
	uri, client := mongotest.Start(t)
	cases := []struct {
		name, doc string
	}{
		{"dollar key", `{"$v":1}`},
		{"dollar key after others", `{"a":1,"b":{"c":2},"$v":1}`},
		{"duplicate key", `{"v":1,"v":2}`},
		{"nested duplicate key", `{"v":{"w":1,"w":2}}`},
		{"too deep", `{"v":` + strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 101)},
		{"too deep in arrays", `{"v":` + strings.Repeat(`[`, 100) + "1" + strings.Repeat("]", 100) + "}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			coll := strings.ReplaceAll(c.name, " ", "_")
			file, out, errOut, code := loadLines(t, uri, t.TempDir(), coll,
				`{"_id":0}`, `{"_id":1,`+c.doc[1:])
			stored := storedDocs(t, client.Database("rel").Collection(coll))
			failed := code != ExitUsage || !strings.Contains(errOut, file+":2:") || len(stored) != 0
			seen := fmt.Sprintf("exit %d, %d documents written, stderr %q", code, len(stored), firstLine(errOut))
			if failed {
				t.Fatalf("load of %s: %s; stdout %q; want exit 2 naming %s:2 and nothing written", c.doc, seen, out, file)
			}
		})
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// Keys as MongoDB 5.0+ takes them: a leading dollar at the top level or
// inside an _id document is refused before anything is written; dotted
// keys at any depth and dollar keys below the top level are stored as they
// are; a dollar inside a key is an ordinary key.
func TestReliabilityLoadKeysWithDotsAndDollars(t *testing.T) {
	uri, client := mongotest.Start(t)
	refused := map[string]string{
		"dollar top":    `{"_id":1,"$a":1}`,
		"dollar in _id": `{"_id":{"$a":1}}`,
	}
	for name, doc := range refused {
		t.Run(name, func(t *testing.T) {
			coll := strings.ReplaceAll(name, " ", "_")
			file, _, errOut, code := loadLines(t, uri, t.TempDir(), coll, `{"_id":0}`, doc)
			stored := storedDocs(t, client.Database("rel").Collection(coll))
			if code != ExitUsage || !strings.Contains(errOut, file+":2:") || len(stored) != 0 {
				t.Fatalf("load %s: exit %d, %d written, stderr %q; want exit 2 naming %s:2, nothing written", doc, code, len(stored), errOut, file)
			}
		})
	}
	stored := map[string]string{
		"dot top":        `{"_id":{"$numberInt":"1"},"a.b":{"$numberInt":"1"}}`,
		"dot depth 2":    `{"_id":{"$numberInt":"1"},"x":{"a.b":{"$numberInt":"1"}}}`,
		"dollar depth 2": `{"_id":{"$numberInt":"1"},"x":{"$a":{"$numberInt":"1"}}}`,
		"dot in array":   `{"_id":{"$numberInt":"1"},"x":[{"a.b":{"$numberInt":"1"}}]}`,
		"dollar depth 3": `{"_id":{"$numberInt":"1"},"x":{"y":{"$a":{"$numberInt":"1"}}}}`,
		"dot depth 4":    `{"_id":{"$numberInt":"1"},"x":{"y":{"z":{".":{"$numberInt":"1"}}}}}`,
	}
	for name, doc := range stored {
		t.Run(name, func(t *testing.T) {
			coll := strings.ReplaceAll(name, " ", "_")
			_, _, errOut, code := loadLines(t, uri, t.TempDir(), coll, doc)
			got := storedDocs(t, client.Database("rel").Collection(coll))
			if code != ExitOK || len(got) != 1 || !bytesEqual(got[0], ejsonBytes(t, doc)) {
				t.Fatalf("load %s: exit %d %q, stored %v; want it stored as it is", doc, code, errOut, got)
			}
		})
	}
	t.Run("dollar inside a key", func(t *testing.T) {
		line := `{"_id":{"$numberInt":"1"},"a$b":{"c$":{"$numberInt":"2"}}}`
		_, _, errOut, code := loadLines(t, uri, t.TempDir(), "inner_dollar", line)
		got := storedDocs(t, client.Database("rel").Collection("inner_dollar"))
		if code != ExitOK || len(got) != 1 || !bytesEqual(got[0], ejsonBytes(t, line)) {
			t.Fatalf("exit %d %q, stored %v; want %s stored as it is", code, errOut, got, line)
		}
	})
}

// nested is a document whose "a" holds levels-1 documents inside each other,
// so that it has exactly levels levels (the top-level document is level 1).
func nested(levels int) string {
	return `{"_id":1,"a":` + strings.Repeat(`{"a":`, levels-2) + `{"b":1}` + strings.Repeat(`}`, levels-2) + `}`
}

// MongoDB's nesting limit: 100 levels are stored as they are, 101 refused.
func TestReliabilityLoadDepth100And101(t *testing.T) {
	uri, client := mongotest.Start(t)
	dir := t.TempDir()
	_, _, errOut, code := loadLines(t, uri, dir, "depth100", nested(100))
	if code != ExitOK {
		t.Fatalf("load of a 100-level document: exit %d %q", code, errOut)
	}
	if got := storedDocs(t, client.Database("rel").Collection("depth100")); len(got) != 1 || !bytesEqual(got[0], ejsonBytes(t, nested(100))) {
		t.Fatalf("the 100-level document is not stored byte for byte")
	}
	file, _, errOut, code := loadLines(t, uri, dir, "depth101", `{"_id":0}`, nested(101))
	stored := storedDocs(t, client.Database("rel").Collection("depth101"))
	failed := code != ExitUsage || !strings.Contains(errOut, file+":2:") || len(stored) != 0
	if failed {
		t.Fatalf("load of a 101-level document: exit %d, %d written, %q; want exit 2 naming %s:2", code, len(stored), errOut, file)
	}
}

// A document over 16 MiB is refused before anything is written.
func TestReliabilityLoad17MiBDocument(t *testing.T) {
	t.Parallel() // its own server; the 17 MiB are the point (over MaxBSONSize)
	uri, client := mongotest.Start(t)
	big := `{"_id":1,"s":"` + strings.Repeat("x", 17<<20) + `"}`
	file, _, errOut, code := loadLines(t, uri, t.TempDir(), "big", `{"_id":0}`, big)
	stored := storedDocs(t, client.Database("rel").Collection("big"))
	failed := code != ExitUsage || !strings.Contains(errOut, file+":2:") || len(stored) != 0
	if failed {
		t.Fatalf("load of a 17 MiB document: exit %d, %d written, %q; want exit 2 naming %s:2", code, len(stored), errOut, file)
	}
}

// OIDKIT_URI goes through the same masking as --uri for every command that
// connects.
func TestReliabilityPasswordInEnvironmentURI(t *testing.T) {
	fixture := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(fixture, []byte(`{"_id":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	uris := []string{
		"mongodb://admin:" + secretPassword + "@localhost:99999/",
		"mongodb://admin:" + secretPassword + "@127.0.0.1:1/",
		"mongodb://admin:" + secretPassword + "@host/?authMechanism=NOPE",
	}
	for _, uri := range uris {
		t.Setenv("OIDKIT_URI", uri)
		for _, args := range [][]string{
			{"seed", "-n", "1", "--timeout", "300ms"},
			{"load", "--timeout", "300ms", fixture},
			{"verify", "db", "--seed", "1", "--timeout", "300ms"},
		} {
			out, errOut, code := runApp(t, t.Context(), "", args...)
			if code == ExitOK || strings.Contains(out+errOut, leakMark) || !strings.Contains(errOut, "****") {
				t.Errorf("%v with OIDKIT_URI=%s: exit %d, output %q %q; want a failure with the password masked", args, uri, code, out, errOut)
			}
		}
	}
}

// Standard output that cannot be written (failWriter, of gen_test.go) fails the command with exit 1 and
// a message, for every command that writes documents or IDs to it.
func TestReliabilityStdoutWriteFails(t *testing.T) {
	for _, args := range [][]string{
		{"fixtures", "--seed", "1", "-n", "100", "--quiet"},
		{"fixtures", "--seed", "1", "-n", "100", "--array", "--quiet"},
		{"inspect", "507f1f77bcf86cd799439011"},
	} {
		var errb strings.Builder
		code := NewApp(strings.NewReader(""), failWriter{}, &errb).RunContext(context.Background(), append([]string{"oidkit"}, args...))
		if code != ExitFailure || !strings.Contains(errb.String(), "disk full") {
			t.Errorf("%v into a failing stdout: exit %d, stderr %q; want exit 1 naming the write error", args, code, errb.String())
		}
	}
}
