package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/internal/count"
	"github.com/oidkit/oidkit/internal/flagrules"
	"github.com/oidkit/oidkit/target"
)

// Flag names: every command reads and defines its flags through these, and
// messages name them through arg, so a flag is spelled in one place.
const (
	flagURI        = "uri"
	flagDataDir    = "data-dir"
	flagTimeout    = "timeout"
	flagDB         = "db"
	flagCollection = "collection"
	flagKind       = "kind"
	flagTemplate   = "template"
	flagPlan       = "plan"
	flagCount      = "n"
	flagID         = "id"
	flagRef        = "ref"
	flagIDStart    = "id-start"
	flagSeed       = "seed"
	flagAt         = "at"
	flagSpan       = "span"
	flagFormat     = "format"
	flagJSON       = "json"
	flagFrom       = "from"
	flagTo         = "to"
	flagFilter     = "filter"
	flagListen     = "listen"
	flagMode       = "mode"
	flagArray      = "array"
	flagOut        = "out"
	flagQuiet      = "quiet"
	flagBatch      = "batch"
	flagWorkers    = "workers"
	flagDrop       = "drop"
	flagResume     = "resume"
	flagDryRun     = "dry-run"
	flagInexact    = "inexact-numbers"
	flagFixture    = "fixture"
	flagOrderLimit = "order-limit" // ignored, accepted for compatibility
	flagField      = "field"
	flagTimeField  = "time-field"
	flagHTML       = "html"
	flagPart       = "part"
	flagSort       = "sort"
	flagLimit      = "limit"
	flagSample     = "sample"
	flagMinCount   = "min-count"     // infer, compare
	flagAgainst    = "against"       // compare: the second server
	flagToDB       = "to-db"         // compare: the second database
	flagToColl     = "to-collection" // compare: the second collection
)

// Aliases of flags.
const (
	aliasCount      = "count"
	aliasSeed       = "s"
	aliasFormat     = "f"
	aliasOut        = "o"
	aliasQuiet      = "q"
	aliasCollection = "c"
)

// Environment variables a flag also reads; the command line wins.
const (
	envURI       = "OIDKIT_URI"
	envDataDir   = "OIDKIT_DATA_DIR"
	envTimeout   = "OIDKIT_TIMEOUT"
	envDB        = "OIDKIT_DB"
	envListen    = "OIDKIT_LISTEN"
	envWebListen = "OIDKIT_WEB_LISTEN"
	envPart      = "OIDKIT_PART"
	// A Kubernetes Indexed Job gives each pod its index (from 0) in
	// envJobIndex; the number of parts comes from envParts.
	envJobIndex = "JOB_COMPLETION_INDEX"
	envParts    = "OIDKIT_PARTS"
)

// arg is a flag as typed on the command line: -n, --uri.
func arg(name string) string { return flagrules.Arg(name) }

// connFlags are the flags of every command that talks to a database. Each
// reads an environment variable too.
func connFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: flagURI, EnvVars: []string{envURI}, Usage: "MongoDB connection string; empty means the embedded server"},
		dataDirFlag("data directory of the embedded server"),
		&ucli.DurationFlag{Name: flagTimeout, EnvVars: []string{envTimeout}, Value: target.DefaultTimeout, Usage: "give up on an unreachable or unresponsive server after this long"},
	}
}

// dataDirFlag is --data-dir of the embedded server.
func dataDirFlag(usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: flagDataDir, EnvVars: []string{envDataDir}, Value: embedded.DefaultDataDir, Usage: usage}
}

// dbFlag is --db, the database a command writes or reads.
func dbFlag(def string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: flagDB, EnvVars: []string{envDB}, Value: def, Usage: "database name"}
}

// withAlias gives f another name.
func withAlias(f *ucli.StringFlag, alias string) *ucli.StringFlag {
	f.Aliases = append(f.Aliases, alias)
	return f
}

// withBoolAlias gives f another name.
func withBoolAlias(f *ucli.BoolFlag, alias string) *ucli.BoolFlag {
	f.Aliases = append(f.Aliases, alias)
	return f
}

// quietFlag is --quiet, which turns off progress on stderr.
func quietFlag(usage string) *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: flagQuiet, Aliases: []string{aliasQuiet}, Usage: usage}
}

// jsonFlag is --json of the commands that print a report.
func jsonFlag(usage string) *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: flagJSON, Usage: usage}
}

// countFlag is -n (alias --count).
func countFlag(def int64, usage string) *count.Flag {
	f := count.NewFlag(flagCount, def, usage)
	f.Aliases = []string{aliasCount}
	return f
}

// listenFlag is --listen of the commands that serve.
func listenFlag(env, def, usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: flagListen, EnvVars: []string{env}, Value: def, Usage: usage}
}

// modeFlag is --mode of the commands that write Extended JSON.
func modeFlag() *ucli.StringFlag {
	return &ucli.StringFlag{Name: flagMode, Value: "relaxed", Usage: "Extended JSON mode: relaxed or canonical"}
}

// arrayFlag is --array of the commands that write fixture files.
func arrayFlag() *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: flagArray, Usage: "write one JSON array (mongoimport --jsonArray) instead of one document per line"}
}

// outFlag is --out (alias -o) of the commands that write files.
func outFlag(usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: flagOut, Aliases: []string{aliasOut}, Usage: usage}
}

// inexactFlag is --inexact-numbers of the commands that read fixture files.
func inexactFlag() *ucli.BoolFlag {
	return &ucli.BoolFlag{Name: flagInexact, Usage: "take the nearest double for an integer beyond int64 and 0 for a number below the smallest double (load stores it, verify db expects it), instead of refusing the document"}
}
