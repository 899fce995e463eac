package infer_test

import (
	"context"
	"testing"

	"github.com/oidkit/oidkit/infer"
	"github.com/oidkit/oidkit/internal/golden"
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
	golden.Check(t, "testdata/golden/inferred.json", inf.JSON, func(b []byte) any { return string(b) })
}
