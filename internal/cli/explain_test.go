package cli

import (
	"errors"
	"fmt"
	"testing"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/target"
)

// explain gives an error the exit code of the library's error it wraps (1
// when there is none) and the message its wording gives, or its own; an
// error the command already gave a code keeps it.
func TestExplain(t *testing.T) {
	words := func(err error, lib exitCoder) error {
		if ce, ok := lib.(*fixtures.CreateError); ok {
			return fmt.Errorf("--out %q: %v", ce.Path, ce.Err)
		}
		if _, ok := lib.(*target.ConnectError); ok {
			return usageErrorf("reworded with the command's code")
		}
		return nil
	}
	for _, tc := range []struct {
		err  error
		code int
		msg  string
	}{
		{&fixtures.CreateError{Path: "out.ndjson", Err: errors.New("permission denied")}, ExitUsage, `--out "out.ndjson": permission denied`},
		{fmt.Errorf("writing: %w", &fixtures.CreateError{Path: "d", Dir: true, Err: errors.New("read-only file system")}), ExitFailure, `--out "d": read-only file system`},
		{&fixtures.NoCollectionError{Database: "d"}, ExitUsage, "database d has no collection to export"},
		{&target.ConnectError{Display: "s", Err: errors.New("x")}, ExitUsage, "reworded with the command's code"},
		{errors.New("plain"), ExitFailure, "plain"},
		{usageErrorf("already said"), ExitUsage, "already said"},
		{fmt.Errorf("wrapped: %w", failuref("already said")), ExitFailure, "wrapped: already said"},
	} {
		got := explain(tc.err, words)
		if code := exitCode(got); code != tc.code || got.Error() != tc.msg {
			t.Errorf("explain(%v) = %q (exit %d), want %q (exit %d)", tc.err, got, code, tc.msg, tc.code)
		}
	}
	if explain(nil, words) != nil {
		t.Error("explain(nil) is not nil")
	}
}
