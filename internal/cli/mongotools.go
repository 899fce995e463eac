package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/oidkit/oidkit/fixtures"
)

// The flags of mongoimport and mongoexport that load and export take as
// typed, so that their command lines work here. Each name lives once, here.
const (
	flagFile            = "file"                // load: a file, like an argument
	flagJSONArray       = "jsonArray"           // load: accepted (arrays are detected); export: --array
	flagType            = "type"                // json only
	flagUpsertFields    = "upsertFields"        // load: _id only
	flagInsertWorkers   = "numInsertionWorkers" // load: accepted, writes are ordered batches
	flagQuery           = "query"               // export: --filter
	flagJSONFormat      = "jsonFormat"          // export: --mode
	aliasDB             = "d"
	aliasQuery          = "q" // export; load's -q stays --quiet
	typeJSON            = "json"
	maxInsertionWorkers = 1024
)

// foreignFlag is a flag of mongoimport or mongoexport with no meaning here:
// it is parsed so that the command can refuse it by name, saying what to
// use instead, rather than fail on the value that follows it.
type foreignFlag struct {
	name    string
	value   bool // takes a value
	instead string
}

// foreignFlags are refused on load and export (exit 2).
var foreignFlags = []foreignFlag{
	{"headerline", false, "CSV and TSV are not read: expected Extended JSON files (NDJSON or a JSON array)"},
	{"fieldFile", true, "CSV and TSV are not read: expected Extended JSON files (NDJSON or a JSON array)"},
	{"columnsHaveTypes", false, "CSV and TSV are not read: expected Extended JSON files (NDJSON or a JSON array)"},
	{"ignoreBlanks", false, "it applies to CSV and TSV, which are not read"},
	{"host", true, "expected " + arg(flagURI) + " mongodb://HOST:PORT"},
	{"port", true, "expected " + arg(flagURI) + " mongodb://HOST:PORT"},
	{"username", true, "expected the user in " + arg(flagURI) + " mongodb://USER:PASSWORD@HOST:PORT"},
	{"password", true, "expected the password in " + arg(flagURI) + " mongodb://USER:PASSWORD@HOST:PORT"},
	{"authenticationDatabase", true, "expected ?authSource=DB in " + arg(flagURI)},
	{"authenticationMechanism", true, "expected ?authMechanism=NAME in " + arg(flagURI)},
	{"ssl", false, "expected ?tls=true in " + arg(flagURI)},
	{"tls", false, "expected ?tls=true in " + arg(flagURI)},
	{"sslCAFile", true, "expected ?tlsCAFile=FILE in " + arg(flagURI)},
	{"tlsCAFile", true, "expected ?tlsCAFile=FILE in " + arg(flagURI)},
	{"readPreference", true, "expected ?readPreference=MODE in " + arg(flagURI)},
	{"writeConcern", true, "expected ?w=N in " + arg(flagURI)},
	{"gzip", false, "compressed files are not read or written: pipe through gzip and use standard input or output"},
	{"stopOnError", false, "every document is validated before anything is written, and any bad one stops the load"},
	{"maintainInsertionOrder", false, "documents are always written in the order of the files"},
	{"bypassDocumentValidation", false, "documents are checked with MongoDB's rules before writing, always"},
	{"parseGrace", true, "a document that cannot be read stops the load (listed as file:line)"},
	{"noDotsFields", false, "dotted field names are written as they are"},
	{"forceTableScan", false, "the server chooses how to read"},
	{"pretty", false, "documents are written one per line or as one array (" + arg(flagArray) + ")"},
	{"noHeaderLine", false, "CSV is not written: expected Extended JSON"},
	{"fields", true, "load reads Extended JSON, whose documents name their fields; export writes whole documents, so that load stores them back exactly: expected no " + arg("fields")},
	{"skip", true, "export writes whole collections or what " + arg(flagFilter) + " selects: expected a " + arg(flagFilter) + " (such as on _id) and " + arg(flagSort) + " instead"},
	{"assertExists", false, "not needed: a missing collection is refused by name"},
}

// foreignFlagDefs are the hidden flags that let foreignFlags be refused by
// name.
func foreignFlagDefs() []ucli.Flag {
	var flags []ucli.Flag
	for _, f := range foreignFlags {
		if f.value {
			flags = append(flags, &ucli.StringFlag{Name: f.name, Hidden: true})
		} else {
			flags = append(flags, &ucli.BoolFlag{Name: f.name, Hidden: true})
		}
	}
	return flags
}

// refuseForeign refuses the first foreign flag on the command line, and
// --type other than json.
func refuseForeign(c *ucli.Context, command string) error {
	for _, f := range foreignFlags {
		if c.IsSet(f.name) {
			return usageErrorf("%s: %s has no meaning here (it is mongo%s's): %s", command, arg(f.name), command, f.instead)
		}
	}
	if t := c.String(flagType); c.IsSet(flagType) && t != typeJSON {
		return usageErrorf("%s %s %q: only Extended JSON is read and written; expected %s %s (or no %s)", command, arg(flagType), t, arg(flagType), typeJSON, arg(flagType))
	}
	return nil
}

// typeFlag is --type of mongoimport and mongoexport.
func typeFlag() *ucli.StringFlag {
	return &ucli.StringFlag{Name: flagType, Value: typeJSON, Usage: "file type, as mongoimport's: json (the only one)"}
}

// synonyms are the names other MongoDB tools give a flag, for the "did you
// mean" of an unknown one that no edit distance finds.
var synonyms = map[string][]string{
	"database":   {flagDB},
	"port":       {flagListen, flagURI},
	"host":       {flagURI, flagListen},
	"dbpath":     {flagDataDir},
	"bind_ip":    {flagListen},
	"connection": {flagURI},
	"output":     {flagOut},
	"input":      {flagFile},
}

// synonymHint is the "did you mean" for name, an unknown flag, among the
// names cmd defines; "" if no synonym applies.
func synonymHint(cmd *ucli.Command, name string) string {
	have := map[string]bool{}
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			have[n] = true
		}
	}
	for _, s := range synonyms[strings.TrimLeft(name, "-")] {
		if have[s] {
			return fmt.Sprintf("unknown flag %s; did you mean %s?", arg(name), arg(s))
		}
	}
	return ""
}

// loadFiles is the files load reads: its arguments and --file, or
// standard input when there are none, as mongoimport reads it. A terminal
// on standard input would wait for typed documents: that is bad usage.
func (a *App) loadFiles(c *ucli.Context) ([]string, error) {
	files := slices.Clone(c.Args().Slice())
	if c.IsSet(flagFile) {
		files = append(files, c.String(flagFile))
	}
	if len(files) > 0 {
		return files, nil
	}
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return nil, usageErrorf("load: expected FILE arguments, %s FILE, or documents on standard input (such as < users.json); standard input is a terminal", arg(flagFile))
	}
	return []string{fixtures.StdinName}, nil
}
