package mongowrite

import (
	"errors"
	"fmt"
	"testing"

	"github.com/oidkit/oidkit/rules"
)

// A stopped write has its cause's exit code when the cause says it (a
// document the rules refuse is bad input), else 1.
func TestWriteErrorExitCode(t *testing.T) {
	for _, tc := range []struct {
		cause error
		want  int
	}{
		{&rules.Violation{Profile: "MongoDB", Reason: rules.TooLarge}, 2},
		{fmt.Errorf("document 3: %w", &rules.Violation{Profile: "MongoDB", Reason: rules.TooLarge}), 2},
		{errors.New("connection reset"), 1},
		{nil, 1},
	} {
		we := &WriteError{Collection: "c", Err: tc.cause}
		if got := we.ExitCode(); got != tc.want {
			t.Errorf("WriteError{Err: %v}.ExitCode() = %d, want %d", tc.cause, got, tc.want)
		}
	}
}

// A collection the server failed: exit 1, and a message that names the
// operation and the collection, with its database when the caller named it.
func TestCollectionError(t *testing.T) {
	cause := errors.New("connection reset")
	for _, tc := range []struct {
		err  *CollectionError
		want string
	}{
		{&CollectionError{Collection: "users", Op: OpDrop, Err: cause}, "drop collection users: connection reset"},
		{&CollectionError{DB: "shop", Collection: "users", Op: OpDrop, Err: cause}, "drop shop.users: connection reset"},
		{&CollectionError{DB: "shop", Collection: "users", Op: OpScan, Err: cause}, "reading shop.users: connection reset"},
		{&CollectionError{DB: "shop", Collection: "users", Op: OpReadIDs, Err: cause}, "read _ids shop.users: connection reset"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		if got := tc.err.ExitCode(); got != 1 {
			t.Errorf("%v: ExitCode() = %d, want 1", tc.err, got)
		}
		if !errors.Is(tc.err, cause) {
			t.Errorf("%v does not wrap its cause", tc.err)
		}
	}
}
