package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// bgResult is what a command run in the background printed on stderr, and
// its exit code.
type bgResult struct {
	stderr string
	code   int
}

// interruptAtTemp runs the app with args in the background and cancels its
// context once the one temporary file of base in dir exists (and, with
// nonEmpty, holds something): a stop in the middle of writing. It fails the
// test if the command finishes first or no such file appears within a
// minute, and returns what the interrupted command printed.
func interruptAtTemp(t *testing.T, dir, base string, nonEmpty bool, args ...string) bgResult {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan bgResult, 1)
	go func() {
		_, stderr, code := runApp(t, ctx, "", args...)
		done <- bgResult{stderr, code}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(dir, "."+base+".tmp-*")); len(m) == 1 {
			if fi, err := os.Stat(m[0]); err == nil && (!nonEmpty || fi.Size() > 0) {
				break
			}
		}
		select {
		case r := <-done:
			t.Fatalf("finished before it was interrupted: exit %d, stderr %q", r.code, r.stderr)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no temporary file appeared")
		}
	}
	cancel()
	return <-done
}
