package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/seed"
)

func (a *App) loadCommand() *ucli.Command {
	flags := append(connFlags(),
		&ucli.StringFlag{Name: "db", EnvVars: []string{"OIDKIT_DB"}, Value: seed.DefaultDB, Usage: "database name"},
		&ucli.StringFlag{Name: "collection", Aliases: []string{"c"}, Usage: "load every file into this collection (default: each file's base name without .json/.ndjson/.jsonl)"},
		&ucli.StringFlag{Name: "mode", Value: "insert", Usage: "insert (documents already stored as they are are skipped; a different one under the same _id is an error) or upsert (replace by _id; loading twice changes nothing)"},
		&ucli.IntFlag{Name: "batch", Value: 1000, Usage: "documents per write"},
		&ucli.BoolFlag{Name: "drop", Usage: "drop each collection before loading it (after every file is validated)"},
		&ucli.BoolFlag{Name: "dry-run", Usage: "validate the files and report, write nothing"},
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar"},
	)
	return &ucli.Command{
		Name:      "load",
		Usage:     "load Extended JSON fixture files into a database",
		UsageText: "oidkit load [--uri URI] [--db DB] [--collection C] [--mode insert|upsert] [--batch N] FILE...",
		Description: "Reads NDJSON (one document per line) and JSON-array files, canonical or relaxed\n" +
			"Extended JSON; - reads standard input (with --collection). Every document of every\n" +
			"file is validated first: if any is bad, each bad one is reported as file:line: reason\n" +
			"and nothing is written (exit 2). Documents keep their exact BSON types and bytes.",
		Flags:  flags,
		Action: a.runLoad,
	}
}

func (a *App) runLoad(c *ucli.Context) error {
	args := c.Args().Slice()
	if len(args) == 0 {
		return usageErrorf("load: expected one or more FILE arguments (fixture files, or - for standard input)")
	}
	mode, err := fixtures.ParseLoadMode(c.String("mode"))
	if err != nil {
		return usageErrorf("--mode %q: expected insert or upsert", c.String("mode"))
	}
	batch := c.Int("batch")
	if batch < 1 || batch > 100000 {
		return usageErrorf("--batch %d: expected 1 to 100000", batch)
	}
	dbName := c.String("db")
	if dbName == "" || strings.ContainsAny(dbName, "/\\. \"$\x00") || len(dbName) > 63 {
		return usageErrorf("--db %q: expected a database name of 1 to 63 characters without /\\. \"$", dbName)
	}
	only := c.String("collection")
	if c.IsSet("collection") {
		if err := fixtures.CheckCollectionName(only); err != nil {
			return usageErrorf("--collection %q: %v", only, err)
		}
	}

	// Group the files by collection, in the order they were given.
	type group struct {
		name    string
		sources []fixtures.Source
	}
	var groups []*group
	byName := map[string]*group{}
	stdinUsed := false
	for _, arg := range args {
		var src fixtures.Source
		name := only
		if arg == "-" {
			if only == "" {
				return usageErrorf("load -: standard input has no file name: expected --collection NAME")
			}
			if stdinUsed {
				return usageErrorf("load: - given twice: standard input can be read once")
			}
			stdinUsed = true
			src = fixtures.ReaderSource("stdin", a.stdin)
		} else {
			fi, err := os.Stat(arg)
			if err != nil {
				return usageErrorf("load %q: %v", arg, errors.Unwrap(err))
			}
			if fi.IsDir() {
				return usageErrorf("load %q: is a directory, expected fixture files (such as %s/*.ndjson)", arg, arg)
			}
			src = fixtures.FileSource(arg)
			if name == "" {
				name = fixtures.CollectionName(arg)
				if err := fixtures.CheckCollectionName(name); err != nil {
					return usageErrorf("load %q: collection name from the file name: %v; expected --collection", arg, err)
				}
			}
		}
		g := byName[name]
		if g == nil {
			g = &group{name: name}
			byName[name] = g
			groups = append(groups, g)
		}
		g.sources = append(g.sources, src)
	}

	if c.Bool("drop") && stdinUsed {
		return usageErrorf("--drop with -: expected files (standard input cannot be validated before the drop and read again)")
	}

	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()

	if c.Bool("dry-run") {
		var total int64
		var problems []*fixtures.LineError
		count := 0
		for _, g := range groups {
			n, err := fixtures.Validate(ctx, g.sources, mode == fixtures.Upsert)
			var ve *fixtures.ValidationError
			switch {
			case errors.As(err, &ve):
				problems = append(problems, ve.Problems...)
				count += ve.Count
				total += ve.Documents
				continue
			case err != nil:
				return failuref("%v", err)
			}
			total += n
			fmt.Fprintf(a.stdout, "%s.%s: %s valid\n", dbName, g.name, docCount(n))
		}
		if count > 0 {
			return a.reportInvalid(&fixtures.ValidationError{Problems: problems, Count: count, Documents: total})
		}
		fmt.Fprintf(a.stdout, "dry run: %s valid, nothing written\n", docCount(total))
		return nil
	}

	t, err := openTarget(ctx, c)
	if err != nil {
		return err
	}
	defer t.Close()
	db := t.Client.Database(dbName)
	targets := make([]fixtures.Target, len(groups))
	for i, g := range groups {
		targets[i] = fixtures.Target{Collection: db.Collection(g.name), Sources: g.sources}
	}
	opts := fixtures.LoadOptions{Mode: mode, Batch: batch, Drop: c.Bool("drop")}
	var bar *progressBar
	start := time.Now()
	if !c.Bool("quiet") && isTerminal(a.stderr) {
		bar = &progressBar{w: a.stderr, label: "load"}
		opts.Progress = func(written, total int64) {
			bar.update(seed.Progress{Total: total, Inserted: written, Elapsed: time.Since(start)})
		}
	}
	res, err := fixtures.LoadAll(ctx, targets, opts)
	if bar != nil {
		bar.finish()
	}
	if res != nil {
		a.printLoadResult(res, dbName, mode, t.Display, time.Since(start))
	}
	if err != nil {
		return a.loadError(err, dbName, t.Display)
	}
	return nil
}

// reportInvalid prints every bad document on stderr and returns the usage
// error (exit 2).
func (a *App) reportInvalid(ve *fixtures.ValidationError) error {
	for _, p := range ve.Problems {
		fmt.Fprintf(a.stderr, "%v\n", p)
	}
	if ve.Count > len(ve.Problems) {
		fmt.Fprintf(a.stderr, "... and %d more\n", ve.Count-len(ve.Problems))
	}
	return usageErrorf("%d of %d documents are invalid (listed above); nothing was loaded", ve.Count, ve.Documents)
}

func (a *App) loadError(err error, db, display string) error {
	var ve *fixtures.ValidationError
	var de *fixtures.DuplicateKeyError
	var we *seed.WriteError
	switch {
	case errors.As(err, &ve):
		return a.reportInvalid(ve)
	case errors.As(err, &de):
		present := ""
		if de.Present > 0 {
			present = fmt.Sprintf(" (%d already there)", de.Present)
		}
		return failuref("inserted %d of %d documents%s; %d refused because a different document with the same _id is already in %s.%s (first: %s); use --mode upsert to replace them",
			de.Inserted, de.Total, present, de.Duplicates, db, de.Collection, de.First)
	case errors.As(err, &we):
		bound := ""
		if we.AtLeast {
			bound = "at least "
		}
		return failuref("%s.%s on %s: wrote %s%d of %d documents, then: %s", db, we.Collection, display, bound, we.Written, we.Total, seed.ServerMessage(describeStop(we)))
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission):
		return usageErrorf("%v", err)
	}
	return failuref("%s: %s", display, seed.ServerMessage(describeWriteError(err)))
}

func (a *App) printLoadResult(res *fixtures.Result, db string, mode fixtures.LoadMode, display string, elapsed time.Duration) {
	line := func(f fixtures.FileResult) string {
		if mode == fixtures.Upsert {
			return fmt.Sprintf("%s: upserted %d, matched %d (modified %d)", docCount(f.Documents), f.Upserted, f.Matched, f.Modified)
		}
		s := fmt.Sprintf("%s: inserted %d", docCount(f.Documents), f.Inserted)
		if f.Present > 0 {
			s += fmt.Sprintf(", %d already there", f.Present)
		}
		if f.Duplicates > 0 {
			s += fmt.Sprintf(", %d duplicate _id", f.Duplicates)
		}
		return s
	}
	for _, f := range res.Files {
		fmt.Fprintf(a.stdout, "%s -> %s.%s: %s\n", f.Source, db, f.Collection, line(f))
	}
	if len(res.Files) > 1 {
		fmt.Fprintf(a.stdout, "total: %s\n", line(res.Total()))
	}
	tot := res.Total()
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(tot.Inserted+tot.Present+tot.Upserted+tot.Matched) / s
	}
	fmt.Fprintf(a.stdout, "into %s in %s (%.0f docs/s)\n", display, elapsed.Round(time.Millisecond), rate)
}
