package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/internal/message"
	"github.com/oidkit/oidkit/target"
)

// flagValues is what the options parsers and the readers they share
// (targetOptions, planOptions, partFromFlags, ...) read flags with:
// *ucli.Context has these methods. They see named values, never the CLI
// library's context (its arguments, its app, its lineage).
type flagValues interface {
	String(name string) string
	Int(name string) int
	Int64(name string) int64
	Duration(name string) time.Duration
	IsSet(name string) bool
	StringSlice(name string) []string
}

// targetOptions is the target --uri, --data-dir and --timeout name. A
// command that only reads asks for an existing data directory.
func targetOptions(f flagValues, existingDataDir bool) target.Options {
	return target.Options{URI: f.String(flagURI), DataDir: f.String(flagDataDir), Timeout: f.Duration(flagTimeout), ExistingDataDir: existingDataDir}
}

// openTarget opens the target (target.Open), its errors said with the
// flags that name it. No error it returns shows a password of the
// connection string. A data directory held by a running oidkit server is
// reached through that server, and a note on stderr says so.
func (a *App) openTarget(ctx context.Context, o target.Options) (*target.Target, error) {
	t, err := openTargetOnce(ctx, o)
	le := lockedBy(err)
	if err == nil || o.URI != "" || le == nil || le.URI == "" || !heldByServer(le.Command) {
		return t, err
	}
	through := o
	through.URI, through.DataDir, through.ExistingDataDir = le.URI, "", false
	t, serr := openTargetOnce(ctx, through)
	if serr != nil {
		return nil, err // the server went away or does not answer: say who holds the directory
	}
	a.say(message.Note, "data directory %s is held by oidkit server (process %d); using it at %s", le.Dir, le.PID, le.URI)
	return t, nil
}

// heldByServer tells whether command, the holder's command line, runs
// oidkit server: its first word after the program is "server". Another
// command's in-process server ends with that command, so it is not used.
func heldByServer(command string) bool {
	words := strings.Fields(command)
	for _, w := range words[min(1, len(words)):] {
		if !strings.HasPrefix(w, "-") {
			return w == "server"
		}
	}
	return false
}

func openTargetOnce(ctx context.Context, o target.Options) (*target.Target, error) {
	if o.Timeout == 0 {
		// Zero is target's default; on the command line it is a mistake.
		return nil, usageError(timeoutError(o.Timeout.String(), target.ErrTimeout))
	}
	t, err := target.Open(ctx, o)
	if err != nil {
		return nil, target.RedactError(explain(err, connectWording), strings.TrimSpace(o.URI))
	}
	return t, nil
}

// connectWording words target.Open's errors: an option it cannot use names
// the flag (bad usage), a data directory held by another process its
// holder, a server not reached the flag that bounds the wait; anything
// else is a failure.
func connectWording(err error, lib exitCoder) error {
	switch e := lib.(type) {
	case *target.OptionError:
		flag := map[string]string{target.OptionURI: flagURI, target.OptionDataDir: flagDataDir, target.OptionTimeout: flagTimeout}[e.Option]
		if e.Option == target.OptionTimeout {
			return timeoutError(e.Value, e.Err)
		}
		return fmt.Errorf("%s %q: %v", arg(flag), e.Value, e.Err)
	case *target.ConnectError:
		if e.Reason == target.Unreachable && lockedBy(err) == nil {
			return fmt.Errorf("server %s unreachable within %s %v: %v", e.Display, arg(flagTimeout), e.Timeout, e.Err)
		}
	}
	if le := lockedBy(err); le != nil {
		return failure(lockedMessage(le))
	}
	return failure(err)
}

// timeoutError is a --timeout of value that cannot be used, and why.
func timeoutError(value string, why error) error {
	return fmt.Errorf("%s %s: %v", arg(flagTimeout), value, why)
}

// lockedBy is the *embedded.LockedError of err: a data directory another
// process holds. nil for any other error.
func lockedBy(err error) *embedded.LockedError {
	var le *embedded.LockedError
	if errors.As(err, &le) {
		return le
	}
	return nil
}

// lockedMessage names the holder of a data directory and the two ways on.
func lockedMessage(le *embedded.LockedError) error {
	reach := "the " + arg(flagURI) + " mongodb://HOST:PORT printed by a running oidkit server over it"
	if le.URI != "" {
		reach = arg(flagURI) + " " + le.URI + " if that is a running oidkit server"
	}
	return fmt.Errorf("%w; only one server may use a data directory at a time: use %s, or another %s", le, reach, arg(flagDataDir))
}
