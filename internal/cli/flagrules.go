package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/internal/count"
)

// ruleKind says how a flag depends on another.
type ruleKind int

const (
	// conflicts: the flag does nothing with the other, or contradicts it.
	conflicts ruleKind = iota
	// needs: the flag does nothing without the other (with value, when the
	// rule names one).
	needs
)

// argStdin stands for the argument - (standard input) where a rule names a
// flag.
const argStdin = "-"

// flagRule is one rule of flagRules: in the commands cmds, flag needs or
// conflicts with other, because why.
type flagRule struct {
	cmds  []string // full command names: "seed", "verify db"
	flag  string
	kind  ruleKind
	other string // a flag name, or argStdin
	value string // needs: the value other must have ("" = given at all)
	why   string
}

// Commands that share flags, for the rules.
var (
	planCommands = []string{"seed", "fixtures", "verify db"}
	connCommands = []string{"seed", "load", "verify db", "audit"}
)

// flagRules is every rule of the form "flag X needs Y / conflicts with Z",
// checked by checkFlagRules before a command runs, in this order (the first
// broken rule is reported). A flag that would be silently ignored, or that
// contradicts another, is bad usage (exit 2) rather than a surprise.
//
// The flag a rule is about counts only when it is on the command line: a
// value that comes from its environment variable (OIDKIT_DATA_DIR,
// OIDKIT_DB, ...) is a default for every command, and is left alone where it
// does nothing. The other flag of a rule counts however it was set, so
// OIDKIT_URI with --data-dir on the command line is refused, naming the
// variable.
//
// Rules that depend on a flag's value rather than its presence stay with
// their command: --part with --drop or without --seed (seed, fixtures),
// --part with --fixture (verify db), -n with a plan file rather than a
// built-in plan (planFromFlags), --collection with FILE arguments (audit).
// Accepted on purpose although they do nothing: verify db's --order-limit,
// kept so that existing scripts still run; --db of fixtures, since the plan
// flags are shared so that one set of flags serves seed, fixtures and verify
// db alike (fixtures still checks the name); --quiet where nothing would
// be drawn, since it only ever asks for less.
func flagRules() []flagRule {
	var rules []flagRule
	// verify db first: with --fixture no generation flag applies, and
	// without it each needs --seed, whatever else is wrong with it.
	for _, f := range generationFlags {
		rules = append(rules, flagRule{[]string{"verify db"}, f, conflicts, flagFixture, "", "the fixture files are the expected documents; drop " + arg(f)})
	}
	for _, f := range generationFlags {
		if f != flagSeed {
			rules = append(rules, flagRule{[]string{"verify db"}, f, needs, flagSeed, "", "expected " + arg(flagSeed) + " S (the seed the data was written with) or " + arg(flagFixture) + " FILE: without a seed the documents cannot be rebuilt"})
		}
	}
	rules = append(rules, []flagRule{
		{planCommands, flagKind, conflicts, flagPlan, "", "a plan names its kinds and templates; drop " + arg(flagKind)},
		{planCommands, flagTemplate, conflicts, flagPlan, "", "a plan names its kinds and templates; drop " + arg(flagTemplate)},
		{planCommands, flagKind, conflicts, flagTemplate, "", "expected one of them"},
		{planCommands, flagID, conflicts, flagPlan, "", "a plan sets _id strategies per collection; drop " + arg(flagID)},
		{planCommands, flagIDStart, conflicts, flagPlan, "", "a plan sets _id strategies per collection; drop " + arg(flagIDStart)},
		{planCommands, flagIDStart, needs, flagID, "int", arg(flagIDStart) + " is the first _id of " + arg(flagID) + " int"},
		{[]string{"seed"}, flagResume, conflicts, flagDrop, "", "expected one of them (" + arg(flagDrop) + " would delete what " + arg(flagResume) + " keeps)"},
		{[]string{"load"}, flagDrop, conflicts, flagDryRun, "", arg(flagDryRun) + " writes nothing, so nothing would be dropped"},
		{[]string{"load"}, flagBatch, conflicts, flagDryRun, "", arg(flagDryRun) + " writes nothing, so there are no batches"},
		{connCommands, flagDataDir, conflicts, flagURI, "", arg(flagDataDir) + " is the embedded server's, and with " + arg(flagURI) + " there is none"},
		{[]string{"verify db"}, flagInexact, needs, flagFixture, "", "it says how the " + arg(flagFixture) + " files are read; expected " + arg(flagFixture) + " FILE"},
		{[]string{"range"}, flagTo, needs, flagFrom, "", "the window starts at " + arg(flagFrom) + "; expected " + arg(flagFrom) + " TIME " + arg(flagTo) + " TIME"},
	}...)
	for _, f := range []string{flagURI, flagDataDir, flagTimeout, flagDB} {
		rules = append(rules, flagRule{[]string{"audit"}, f, needs, flagCollection, "", "only a collection is read from a server; files and - are read directly"})
	}
	for _, f := range []string{flagField, flagTimeField} {
		rules = append(rules, flagRule{[]string{"audit"}, f, conflicts, argStdin, "", "hex IDs on standard input have no fields"})
	}
	return rules
}

// checkFlagRules checks flagRules for the command c runs.
func checkFlagRules(c *ucli.Context) error {
	return checkRules(c, commandPath(c), flagRules())
}

// checkRules reports the first rule for command cmd that c's flags break.
func checkRules(c *ucli.Context, cmd string, rules []flagRule) error {
	for _, r := range rules {
		if !slices.Contains(r.cmds, cmd) || !onCommandLine(c, r.flag) {
			continue
		}
		switch r.kind {
		case conflicts:
			if given(c, r.other) {
				return usageErrorf("%s with %s: %s", showFlag(c, r.flag), showFlag(c, r.other), r.why)
			}
		case needs:
			if !given(c, r.other) || (r.value != "" && strings.TrimSpace(c.String(r.other)) != r.value) {
				want := arg(r.other)
				if r.value != "" {
					want += " " + r.value
				}
				return usageErrorf("%s without %s: %s", showFlag(c, r.flag), want, r.why)
			}
		}
	}
	return nil
}

// commandPath is the full name of the command c runs: "seed", "verify db".
func commandPath(c *ucli.Context) string {
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
// nothing), or for argStdin whether - is an argument. A needed value may also
// be the flag's default (--id objectid).
func given(c *ucli.Context, name string) bool {
	if name == argStdin {
		return slices.Contains(c.Args().Slice(), argStdin)
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

// showFlag is a flag as a message names it: as typed, with its value (a
// connection string with its password masked; none for a switch), and the
// environment variable it came from.
func showFlag(c *ucli.Context, name string) string {
	if name == argStdin {
		return "- (standard input)"
	}
	s := arg(name)
	switch lookupFlag(c, name).(type) {
	case *ucli.StringFlag:
		v := c.String(name)
		if name == flagURI {
			v = MaskURI(v)
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
