// Package flagrules owns the rules between the flags of a command line:
// which flag needs another (or one value of it) and which conflicts with
// another, checked before a command runs, and how a message names a flag as
// it was given (its value, a connection string's password masked, and the
// environment variable it came from), and the flag library's parse errors
// said the same way (Explain).
package flagrules

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/internal/count"
	"github.com/oidkit/oidkit/internal/redact"
)

// Kind says how a flag depends on another.
type Kind int

const (
	// Conflicts: the flag does nothing with the other, or contradicts it.
	Conflicts Kind = iota
	// Needs: the flag does nothing without the other (with Value, when the
	// rule names one).
	Needs
)

// Stdin stands for the argument - (standard input) where a rule names a
// flag.
const Stdin = "-"

// Rule is one rule: in the commands Cmds, Flag needs or conflicts with
// Other, because Why.
type Rule struct {
	Cmds  []string // full command names: "seed", "verify db"
	Flag  string
	Kind  Kind
	Other string // a flag name, or Stdin
	Value string // Needs: the value Other must have ("" = given at all)
	Why   string
}

// Arg is a flag name as typed: -n, --count.
func Arg(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Check reports the first of rules for command cmd that c's flags break.
// The flag a rule is about counts only when it is on the command line (a
// value from its environment variable is a default, left alone where it does
// nothing); the other flag counts however it was set. The values of the
// flags named in secret are connection strings: messages mask their
// password.
func Check(c *ucli.Context, cmd string, rules []Rule, secret ...string) error {
	for _, r := range rules {
		if !slices.Contains(r.Cmds, cmd) || !onCommandLine(c, r.Flag) {
			continue
		}
		switch r.Kind {
		case Conflicts:
			if given(c, r.Other) {
				return fmt.Errorf("%s with %s: %s", Show(c, r.Flag, secret...), Show(c, r.Other, secret...), r.Why)
			}
		case Needs:
			if !given(c, r.Other) || (r.Value != "" && strings.TrimSpace(c.String(r.Other)) != r.Value) {
				want := Arg(r.Other)
				if r.Value != "" {
					want += " " + r.Value
				}
				return fmt.Errorf("%s without %s: %s", Show(c, r.Flag, secret...), want, r.Why)
			}
		}
	}
	return nil
}

// CommandPath is the full name of the command c runs: "seed", "verify db".
func CommandPath(c *ucli.Context) string {
	var names []string
	for _, x := range c.Lineage() {
		if x.Command != nil && x.Command.Name != "" && x.Command.Name != x.App.Name {
			names = append(names, x.Command.Name)
		}
	}
	slices.Reverse(names)
	return strings.Join(names, " ")
}

// given reports whether a flag is set, on the command line or by its
// environment variable (an empty variable, such as OIDKIT_URI=, sets
// nothing), or for Stdin whether - is an argument. A needed value may also
// be the flag's default (--id objectid).
func given(c *ucli.Context, name string) bool {
	if name == Stdin {
		return slices.Contains(c.Args().Slice(), Stdin)
	}
	if _, fromEnv := flagEnv(c, name); fromEnv && c.String(name) == "" {
		return false
	}
	return c.IsSet(name)
}

// onCommandLine reports whether a flag is set on the command line: set, and
// not only by its environment variable.
func onCommandLine(c *ucli.Context, name string) bool {
	if !c.IsSet(name) {
		return false
	}
	_, fromEnv := flagEnv(c, name)
	return !fromEnv
}

// flagEnv is the environment variable a flag's value comes from, if it
// does: the variable is set and its value is the flag's (a command-line
// value equal to the environment's cannot be told apart, and is taken as the
// environment's).
func flagEnv(c *ucli.Context, name string) (string, bool) {
	f := lookupFlag(c, name)
	ef, ok := f.(interface{ GetEnvVars() []string })
	if !ok {
		return "", false
	}
	for _, env := range ef.GetEnvVars() {
		v, ok := os.LookupEnv(env)
		if !ok {
			continue
		}
		if _, isDur := f.(*ucli.DurationFlag); isDur {
			d, err := time.ParseDuration(v)
			return env, err == nil && d == c.Duration(name)
		}
		return env, v == c.String(name)
	}
	return "", false
}

// lookupFlag is the definition of the flag name in c's command.
func lookupFlag(c *ucli.Context, name string) ucli.Flag {
	if c.Command == nil {
		return nil
	}
	for _, f := range c.Command.Flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// Show is a flag as a message names it: as typed, with its value (a
// connection string with its password masked; none for a switch), and the
// environment variable it came from.
func Show(c *ucli.Context, name string, secret ...string) string {
	if name == Stdin {
		return "- (standard input)"
	}
	s := Arg(name)
	switch lookupFlag(c, name).(type) {
	case *ucli.StringFlag:
		v := c.String(name)
		if slices.Contains(secret, name) {
			v = redact.URI(v)
		}
		s += fmt.Sprintf(" %q", v)
	case *ucli.StringSliceFlag:
		if vs := c.StringSlice(name); len(vs) > 0 {
			s += fmt.Sprintf(" %q", vs[0])
		}
	case *ucli.IntFlag:
		s += fmt.Sprintf(" %d", c.Int(name))
	case *ucli.Int64Flag, *count.Flag:
		s += fmt.Sprintf(" %d", c.Int64(name))
	case *ucli.DurationFlag:
		s += " " + c.Duration(name).String()
	}
	if env, ok := flagEnv(c, name); ok {
		s += " (from " + env + ")"
	}
	return s
}
