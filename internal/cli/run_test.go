package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runApp runs the whole app into buffers, as main does, with ctx as the
// context main cancels on a signal. args follow the program name. Tests that
// run the app are not parallel: the CLI library's help command and flag are
// package variables that every run sets up again.
func runApp(t testing.TB, ctx context.Context, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = NewApp(strings.NewReader(stdin), &out, &errb).RunContext(ctx, append([]string{"oidkit"}, args...))
	return out.String(), errb.String(), code
}
