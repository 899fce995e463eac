// Package cli builds the oidkit command-line application: one constructor per
// command, no package-level state, so tests run the whole app into buffers.
package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/internal/flagrules"
	"github.com/oidkit/oidkit/internal/message"
	"github.com/oidkit/oidkit/internal/suggest"
	"github.com/oidkit/oidkit/oidkittest/tplcache"
)

// Exit codes of the CLI contract.
const (
	ExitOK      = 0
	ExitFailure = 1 // a failure at run time: mismatch, server unreachable
	ExitUsage   = 2 // bad usage or bad input
)

// App is the oidkit application bound to its standard streams.
type App struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	app    *ucli.App

	// notFound is set when a command or subcommand name was not found: the
	// CLI library prints help and returns no error, but the contract says
	// exit 2.
	notFound bool

	// progressEvery and redrawEvery, when not zero, replace the periods of
	// progress.go: tests shorten them to see every line and redraw.
	progressEvery, redrawEvery time.Duration
}

// NewApp builds the application. Nothing is written to package variables of
// the CLI library (but its help flag, once: helpFlag), so several apps can
// run side by side in tests.
func NewApp(stdin io.Reader, stdout, stderr io.Writer) *App {
	a := &App{stdin: stdin, stdout: stdout, stderr: stderr}
	a.app = &ucli.App{
		Name:  "oidkit",
		Usage: "MongoDB ObjectIDs and realistic test data",
		Description: "Run 'oidkit COMMAND --help' for the flags of a command.\n\n" +
			"Environment (a flag given on the command line wins):\n" +
			envLine(envURI, flagURI, "of seed, load, verify db (empty: the embedded server)") +
			envLine(envDataDir, flagDataDir, "of the embedded server (default .oidkit)") +
			envLine(envTimeout, flagTimeout, "for reaching the server (default 10s)") +
			envLine(envDB, flagDB, "of seed, fixtures, load, verify db, audit (default oidkit)") +
			envLine(envListen, flagListen, "of server (default 127.0.0.1:27017)") +
			envLine(envWebListen, flagListen, "of web (default 127.0.0.1:8080)") +
			envLine(envPart, flagPart, "of seed, fixtures, verify db (I/N, I from 0)") +
			fmt.Sprintf("   %-18s with %s=N: %s I/N (a Kubernetes Indexed Job)\n", envJobIndex, envParts, arg(flagPart)) +
			fmt.Sprintf("   %s, %s, %s: oidkittest's template cache ('oidkit cache --help')\n", tplcache.DirEnv, tplcache.MaxEnv, tplcache.ModeEnv) + "\n" +
			"Exit status: 0 success, 1 a failure at run time (mismatch, server unreachable),\n" +
			"2 bad usage or bad input.",
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		// The library's --version is a package variable; oidkit has its own.
		HideVersion:          true,
		EnableBashCompletion: false,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: flagVersion, Usage: "print the version of oidkit and of the modules it is built with"},
		},
		Before: func(c *ucli.Context) error {
			if c.Bool(flagVersion) && c.Args().Present() {
				return usageErrorf("%s with %q: expected %[1]s alone", arg(flagVersion), c.Args().First())
			}
			return nil
		},
		Action: a.runRoot,
		// The app never calls os.Exit itself: Run maps errors to exit codes.
		ExitErrHandler: func(*ucli.Context, error) {},
		CommandNotFound: func(c *ucli.Context, name string) {
			a.commandNotFound(c, name)
		},
		Commands: append(a.commands(), a.versionCommand()),
	}
	a.app.OnUsageError = func(_ *ucli.Context, err error, _ bool) error {
		return usageError(flagrules.Explain(a.app.Flags, "", err))
	}
	for _, c := range a.app.Commands {
		classifyErrors(c)
	}
	return a
}

// runRoot is oidkit without a command: --version, or the list of commands.
// An unknown command reaches it too, since the root has an action.
func (a *App) runRoot(c *ucli.Context) error {
	if c.Bool(flagVersion) {
		return a.runVersion(c)
	}
	if c.Args().Present() {
		a.commandNotFound(c, c.Args().First())
		return nil
	}
	return ucli.ShowAppHelp(c)
}

// commandNotFound reports a command or subcommand name that does not exist,
// with the nearest one; Run then exits 2.
func (a *App) commandNotFound(c *ucli.Context, name string) {
	a.notFound = true
	cmds := a.app.Commands
	if c.Command != nil && len(c.Command.Subcommands) > 0 {
		cmds = c.Command.Subcommands
	}
	var names []string
	for _, cmd := range cmds {
		names = append(names, cmd.Names()...)
	}
	hint := suggest.DidYouMean(name, names)
	if hint == "" {
		hint = "; run 'oidkit help' for the list"
	}
	a.say(message.Error, "unknown command %q%s", name, hint)
}

// envLine is one line of the environment section of the root help.
func envLine(env, flag, what string) string {
	return fmt.Sprintf("   %-18s %s %s\n", env, arg(flag), what)
}

// classifyErrors gives every error of c and its subcommands an exit code
// where it is made: a flag the CLI library could not parse is bad usage, and
// an error an action returns without one has the code of the library's
// error it wraps (explain), or is a run-time failure. An error that reaches
// Run without a code therefore comes from the CLI library's own argument
// checks (a missing required flag, a bad flag of its built-in help
// command), which are bad usage too.
func classifyErrors(c *ucli.Command) {
	c.OnUsageError = func(ctx *ucli.Context, err error, _ bool) error {
		if name, ok := flagrules.UnknownFlag(err); ok {
			if hint := synonymHint(c, name); hint != "" {
				return usageError(fmt.Errorf("%s: %s", c.Name, hint))
			}
			if hint := flagrules.SubcommandFlag(c, flagrules.CommandPath(ctx), name); hint != "" {
				return usageError(fmt.Errorf("%s: %s", c.Name, hint))
			}
		}
		return usageError(fmt.Errorf("%s: %w", c.Name, flagrules.Explain(c.Flags, flagrules.CommandPath(ctx), err)))
	}
	if action := c.Action; action != nil {
		c.Action = func(ctx *ucli.Context) error {
			if err := checkFlagRules(ctx); err != nil {
				return err
			}
			return explain(action(ctx), nil)
		}
	}
	for _, sub := range c.Subcommands {
		classifyErrors(sub)
	}
}

// Run is RunContext without a deadline or cancellation.
func (a *App) Run(args []string) int {
	return a.RunContext(context.Background(), args)
}

// RunContext runs the app with os.Args-style arguments and returns the exit
// code. Commands stop when ctx is done (main cancels it on SIGINT and
// SIGTERM). Errors are printed to stderr by say.
func (a *App) RunContext(ctx context.Context, args []string) int {
	a.notFound = false
	err := a.app.RunContext(ctx, args)
	if err == nil {
		if a.notFound {
			return ExitUsage // CommandNotFound has printed the message
		}
		return ExitOK
	}
	a.say(message.Error, "%v", err)
	return exitCode(err)
}

// codedError carries an exit code with its message.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// usageError marks err as bad usage or bad input (exit 2).
func usageError(err error) error { return &codedError{code: ExitUsage, err: err} }

// usageErrorf formats a bad-usage error (exit 2).
func usageErrorf(format string, args ...any) error {
	return usageError(fmt.Errorf(format, args...))
}

// failure marks err as a run-time failure (exit 1).
func failure(err error) error { return &codedError{code: ExitFailure, err: err} }

// failuref formats a run-time failure (exit 1).
func failuref(format string, args ...any) error {
	return failure(fmt.Errorf(format, args...))
}

func exitCode(err error) int {
	if code, ok := codeOf(err); ok {
		return code
	}
	return ExitUsage // see classifyErrors
}

// codeOf is the exit code the command gave err where it was made; ok is
// false when it has none.
func codeOf(err error) (code int, ok bool) {
	if ce, ok := libError(err).(*codedError); ok {
		return ce.code, true
	}
	return 0, false
}
