// Package golden holds tests' pinned outputs: bytes an earlier version
// wrote, kept in a file, that a test's output must equal.
package golden

import (
	"bytes"
	"os"
	"testing"
)

// Env set to "write" makes Check rewrite the files instead of comparing.
const Env = "OIDKIT_GOLDEN"

// Check compares got with the file at path, or with OIDKIT_GOLDEN=write
// rewrites the file with it. It returns the file's bytes (got when
// rewritten), and reports a difference with show, which formats either
// side for the message.
func Check(t testing.TB, path string, got []byte, show func([]byte) any) []byte {
	t.Helper()
	if os.Getenv(Env) == "write" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: the bytes changed:\n got %v\nwant %v", path, show(got), show(want))
	}
	return want
}
