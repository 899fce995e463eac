package flagrules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/internal/count"
	"github.com/oidkit/oidkit/internal/suggest"
)

// badFlagValue matches the flag package's message for a value it could not
// parse, which names neither the flag as typed (--name) nor what was expected.
var badFlagValue = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([^:]+): `)

// badEnvValue matches the CLI library's message for a bad value in a flag's
// environment variable.
var badEnvValue = regexp.MustCompile(`^could not parse ("(?:[^"\\]|\\.)*") as \w+ value from environment variable "(\w+)" for flag (\S+): `)

// unknownFlag matches the flag package's message for a flag that is not
// defined; it names the flag with one dash whatever was typed.
var unknownFlag = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)

// missingValue matches the flag package's message for a flag given last
// without its value.
var missingValue = regexp.MustCompile(`^flag needs an argument: -+(.+)$`)

// Explain is explainValue, and names an unknown flag as typed
// with the nearest defined one. command is the command's name, "" for the
// root.
func Explain(flags []ucli.Flag, command string, err error) error {
	if m := missingValue.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%s: expected a value after it", Arg(m[1]))
	}
	m := unknownFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return explainValue(flags, err)
	}
	var names []string
	for _, f := range flags {
		for _, n := range f.Names() {
			names = append(names, Arg(n))
		}
	}
	hint := suggest.DidYouMean(Arg(m[1]), names)
	if hint == "" {
		hint = "; see oidkit --help"
		if command != "" {
			hint = "; see oidkit " + command + " --help"
		}
	}
	return fmt.Errorf("unknown flag %s%s", Arg(m[1]), hint)
}

// explainValue rewrites a flag parse error into the contract's form: the
// flag, the value and what was expected. Other errors pass through unchanged.
func explainValue(flags []ucli.Flag, err error) error {
	m := badFlagValue.FindStringSubmatch(err.Error())
	source := ""
	if m == nil {
		if m = badEnvValue.FindStringSubmatch(err.Error()); m == nil {
			return err
		}
		source = fmt.Sprintf(" (from %s)", m[2])
		m = []string{m[0], m[1], m[3]}
	}
	value, name := m[1], m[2]
	reason := err.Error()[len(m[0]):]
	expected := ""
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			switch f.(type) {
			case *count.Flag:
				expected = count.Expected + " (" + reason + ")"
			case *ucli.IntFlag, *ucli.Int64Flag:
				expected = "a whole number such as 10"
			case *ucli.UintFlag, *ucli.Uint64Flag:
				expected = "a whole number >= 0 such as 10"
			case *ucli.Float64Flag:
				expected = "a number such as 1.5"
			case *ucli.DurationFlag:
				expected = "a duration such as 10s, 5m or 1h30m"
			case *ucli.BoolFlag:
				expected = "true or false"
			}
		}
	}
	if expected == "" {
		return err
	}
	return fmt.Errorf("%s %s%s: expected %s", Arg(name), value, source, expected)
}

// UnknownFlag is the name of the flag err says is not defined, if it does.
func UnknownFlag(err error) (string, bool) {
	m := unknownFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return "", false
	}
	return m[1], true
}

// SubcommandFlag is the hint for a flag that cmd does not define but some of
// its subcommands do ("--collection is a flag of 'oidkit verify db'"), or ""
// when none does. name is the flag as the flag package reports it, without
// dashes.
func SubcommandFlag(cmd *ucli.Command, path, name string) string {
	var owners []string
	for _, sub := range cmd.Subcommands {
		if slices.ContainsFunc(sub.Flags, func(f ucli.Flag) bool { return slices.Contains(f.Names(), name) }) {
			owners = append(owners, path+" "+sub.Name)
		}
	}
	if len(owners) == 0 {
		return ""
	}
	return fmt.Sprintf("%s is a flag of 'oidkit %s'; expected the subcommand before it: oidkit %s %s ...",
		Arg(name), strings.Join(owners, "' and 'oidkit "), owners[0], Arg(name))
}
