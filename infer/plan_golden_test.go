package infer_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/oidkit/oidkit/infer"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// The plan file infer writes is the bytes earlier versions wrote from the
// same source (testdata/golden/inferred.json, taken from them), key order
// included. OIDKIT_GOLDEN=write rewrites the file.
func TestInferredPlanBytesArePinned(t *testing.T) {
	_, client := mongotest.Start(t)
	src := client.Database("src")
	writeSource(t, src, 300, 300)
	profiles, err := infer.Collect(context.Background(), src, []string{"users", "orders"}, 1<<30, infer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inf, err := infer.Plan("copy", profiles)
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/golden/inferred.json"
	if os.Getenv("OIDKIT_GOLDEN") == "write" {
		if err := os.WriteFile(path, inf.JSON, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(inf.JSON, want) {
		t.Errorf("the inferred plan's bytes changed:\n got %s\nwant %s", inf.JSON, want)
	}
}
