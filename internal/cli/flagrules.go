package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/internal/flagrules"
)

// Commands that share flags, for the rules.
var (
	planCommands = []string{"seed", "fixtures", "verify db"}
	connCommands = []string{"seed", "load", "verify db", "audit"}
)

// flagRules is every rule of the form "flag X needs Y / conflicts with Z",
// checked by checkFlagRules (package flagrules) before a command runs, in this order (the first
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
// built-in plan (seed.NewPlan), --collection with FILE arguments (audit).
// Accepted on purpose although they do nothing: verify db's --order-limit,
// kept so that existing scripts still run; --db of fixtures, since the plan
// flags are shared so that one set of flags serves seed, fixtures and verify
// db alike (fixtures still checks the name); --quiet where nothing would
// be drawn, since it only ever asks for less.
func flagRules() []flagrules.Rule {
	var rules []flagrules.Rule
	// verify db first: with --fixture no generation flag applies, and
	// without it each needs --seed, whatever else is wrong with it.
	for _, f := range generationFlags {
		rules = append(rules, rule([]string{"verify db"}, f, flagrules.Conflicts, flagFixture, "", "the fixture files are the expected documents; drop "+arg(f)))
	}
	for _, f := range generationFlags {
		if f != flagSeed {
			rules = append(rules, rule([]string{"verify db"}, f, flagrules.Needs, flagSeed, "", "expected "+arg(flagSeed)+" S (the seed the data was written with) or "+arg(flagFixture)+" FILE: without a seed the documents cannot be rebuilt"))
		}
	}
	rules = append(rules, []flagrules.Rule{
		rule(planCommands, flagKind, flagrules.Conflicts, flagPlan, "", "a plan names its kinds and templates; drop "+arg(flagKind)),
		rule(planCommands, flagTemplate, flagrules.Conflicts, flagPlan, "", "a plan names its kinds and templates; drop "+arg(flagTemplate)),
		rule(planCommands, flagKind, flagrules.Conflicts, flagTemplate, "", "expected one of them"),
		rule(planCommands, flagIDStart, flagrules.Conflicts, flagPlan, "", "a plan sets _id strategies per collection; drop "+arg(flagIDStart)),
		rule(planCommands, flagIDStart, flagrules.Needs, flagID, "int", arg(flagIDStart)+" is the first _id of "+arg(flagID)+" int"),
		rule([]string{"seed"}, flagResume, flagrules.Conflicts, flagDrop, "", "expected one of them ("+arg(flagDrop)+" would delete what "+arg(flagResume)+" keeps)"),
		rule([]string{"load"}, flagDrop, flagrules.Conflicts, flagDryRun, "", arg(flagDryRun)+" writes nothing, so nothing would be dropped"),
		rule([]string{"load"}, flagBatch, flagrules.Conflicts, flagDryRun, "", arg(flagDryRun)+" writes nothing, so there are no batches"),
		rule(connCommands, flagDataDir, flagrules.Conflicts, flagURI, "", arg(flagDataDir)+" is the embedded server's, and with "+arg(flagURI)+" there is none"),
		rule([]string{"verify db"}, flagInexact, flagrules.Needs, flagFixture, "", "it says how the "+arg(flagFixture)+" files are read; expected "+arg(flagFixture)+" FILE"),
		rule([]string{"range"}, flagTo, flagrules.Needs, flagFrom, "", "the window starts at "+arg(flagFrom)+"; expected "+arg(flagFrom)+" TIME "+arg(flagTo)+" TIME"),
	}...)
	for _, f := range []string{flagURI, flagDataDir, flagTimeout, flagDB} {
		rules = append(rules, rule([]string{"audit"}, f, flagrules.Needs, flagCollection, "", "only a collection is read from a server; files and - are read directly"))
	}
	for _, f := range []string{flagField, flagTimeField} {
		rules = append(rules, rule([]string{"audit"}, f, flagrules.Conflicts, flagrules.Stdin, "", "hex IDs on standard input have no fields"))
	}
	return rules
}

// checkFlagRules checks flagRules for the command c runs: a broken rule is
// bad usage.
func checkFlagRules(c *ucli.Context) error {
	if err := flagrules.Check(c, flagrules.CommandPath(c), flagRules(), flagURI); err != nil {
		return usageError(err)
	}
	return nil
}

// rule is one flagrules.Rule of flagRules.
func rule(cmds []string, flag string, kind flagrules.Kind, other, value, why string) flagrules.Rule {
	return flagrules.Rule{Cmds: cmds, Flag: flag, Kind: kind, Other: other, Value: value, Why: why}
}
