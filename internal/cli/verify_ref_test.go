package cli

import (
	"strings"
	"testing"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// verify db from flags rebuilds a run whose references were drawn from
// stored documents when given the same --ref: it reads the stored _ids as
// seed read them. Without --ref the orders it expects point elsewhere; a
// --ref with nothing stored to draw from is bad usage naming it.
func TestVerifyDBFlagsWithStoredRef(t *testing.T) {
	uri, _ := mongotest.Start(t)
	ctx := t.Context()
	mustSeed(t, "--uri", uri, "--kind", "user", "-n", "100", "--seed", "5")
	mustSeed(t, "--uri", uri, "--kind", "order", "-n", "300", "--seed", "5", "--ref", "userId=users")
	flags := []string{"verify", "db", "--uri", uri, "--kind", "order", "-n", "300", "--seed", "5", "--quiet"}

	out, errOut, code := runApp(t, ctx, "", append(flags, "--ref", "userId=users")...)
	if code != ExitOK || !strings.Contains(out, "orders.userId: 300 of 300 resolve to users") || !strings.Contains(out, "result: PASS") {
		t.Fatalf("with --ref: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runApp(t, ctx, "", flags...)
	if code != ExitFailure || !strings.Contains(out, "result: FAIL") {
		t.Fatalf("without --ref: exit %d; want %d\n%s%s", code, ExitFailure, out, errOut)
	}
	out, errOut, code = runApp(t, ctx, "", append(flags, "--ref", "userId=nobody")...)
	if code != ExitUsage || !strings.Contains(errOut, `--ref "userId=nobody"`) || !strings.Contains(errOut, "oidkit.nobody holds no documents") {
		t.Fatalf("--ref to an empty collection: exit %d; want %d naming it\n%s%s", code, ExitUsage, out, errOut)
	}
	// --ref is a generation flag: it needs --seed and refuses --fixture.
	if _, errOut, code = runApp(t, ctx, "", "verify", "db", "--uri", uri, "--kind", "order", "--ref", "userId=users"); code != ExitUsage || !strings.Contains(errOut, "--seed") {
		t.Fatalf("--ref without --seed: exit %d\n%s", code, errOut)
	}
}
