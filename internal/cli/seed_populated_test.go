package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// A seed whose _ids are already in the collection, without a run manifest
// (its documents loaded from the plan's fixture files): refused before
// the first write, nothing added. As generated: exit 1 pointing at
// --resume, which then adds the rest. With one of them changed: exit 1
// naming it, and --resume refused the same (it cannot help).
func TestSeedOverStoredIDsRefusedBeforeWriting(t *testing.T) {
	uri, client := mongotest.Start(t)
	users := client.Database("oidkit").Collection("users")
	file := filepath.Join(t.TempDir(), "users.ndjson")
	out := mustRun(t, "fixtures", "--seed", "3", "-n", "200", "--span", "0")
	lines := strings.SplitAfter(out, "\n")
	if err := os.WriteFile(file, []byte(strings.Join(lines[50:100], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "load", "--uri", uri, "--collection", "users", file)
	count := func() int64 {
		n, err := users.CountDocuments(t.Context(), bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	seed := []string{"seed", "--uri", uri, "--seed", "3", "-n", "200", "--span", "0"}
	_, errOut, code := runApp(t, t.Context(), "", seed...)
	if code != ExitFailure || !strings.Contains(errOut, "50 documents of this run are already stored as generated (first: document 50") || !strings.Contains(errOut, "re-run with --resume") || count() != 50 {
		t.Fatalf("seed over 50 of its documents: exit %d, %d stored\n%s", code, count(), errOut)
	}
	// Document 60 changed: another document under a generated _id.
	var doc bson.M
	if err := bson.UnmarshalExtJSON([]byte(lines[60]), false, &doc); err != nil {
		t.Fatal(err)
	}
	if _, err := users.UpdateOne(t.Context(), bson.D{{Key: "_id", Value: doc["_id"]}}, bson.D{{Key: "$set", Value: bson.D{{Key: "changed", Value: true}}}}); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--resume"}} {
		_, errOut, code := runApp(t, t.Context(), "", append(seed, extra...)...)
		if code != ExitFailure || !strings.Contains(errOut, "document 60: _id ") || !strings.Contains(errOut, "1 documents of the plan have the _id of another document already stored") || !strings.Contains(errOut, "--resume cannot help") || count() != 50 {
			t.Fatalf("seed %v over a changed document: exit %d, %d stored\n%s", extra, code, count(), errOut)
		}
	}
	if _, err := users.UpdateOne(t.Context(), bson.D{{Key: "_id", Value: doc["_id"]}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "changed", Value: ""}}}}); err != nil {
		t.Fatal(err)
	}
	out = mustRun(t, append(seed, "--resume")...)
	if !strings.Contains(out, "inserted 150, skipped 50 (already there)") || count() != 200 {
		t.Fatalf("seed --resume: %d stored\n%s", count(), out)
	}
}
