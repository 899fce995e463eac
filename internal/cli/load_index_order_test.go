package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A unique index of a sidecar is created after the documents of an empty
// collection. Keys it could not check before writing (arrays) that repeat
// make the server refuse it then: exit 1, naming the index and the
// server's reason, and saying that the documents are written without it.
// Loaded again with --drop and keys that do not repeat, the collection
// ends with the index.
func TestLoadUniqueIndexRefusedAfterDocuments(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "people.ndjson")
	if err := os.WriteFile(data, []byte("{\"_id\":1,\"k\":[\"a\"]}\n{\"_id\":2,\"k\":[\"b\"]}\n{\"_id\":3,\"k\":[\"a\"]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "people.metadata.json"), []byte(`{"indexes":[{"v":2,"key":{"k":1},"name":"k_1","unique":true}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runApp(t, ctx, "", "load", "--uri", uri, "--db", "after", "--quiet", data)
	if code != ExitFailure || !strings.Contains(errOut, `index "k_1" on after.people: the server refused`) ||
		!strings.Contains(errOut, "; the 3 documents of after.people are written, without this index: they repeat its key (load files whose keys are unique with --drop)") ||
		!strings.Contains(errOut, "unique index k_1 not checked before writing") || strings.Contains(errOut, ".go:") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	coll := client.Database("after").Collection("people")
	if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 3 {
		t.Errorf("%d documents stored; want the 3 written", n)
	}
	if _, ok := serverIndexes(t, ctx, coll)["k_1"]; ok {
		t.Error("k_1 exists")
	}
	if err := os.WriteFile(data, []byte("{\"_id\":1,\"k\":[\"a\"]}\n{\"_id\":2,\"k\":[\"b\"]}\n{\"_id\":3,\"k\":[\"c\"]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runApp(t, ctx, "", "load", "--uri", uri, "--db", "after", "--quiet", "--drop", data)
	if code != ExitOK || !strings.Contains(serverIndexes(t, ctx, coll)["k_1"], "unique") {
		t.Fatalf("--drop: exit %d\n%s\n%s", code, out, errOut)
	}
}
