package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/internal/input"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// maxListed is how many bad documents load prints before "... and N more".
const maxListed = 100

func (a *App) loadCommand() *ucli.Command {
	flags := append(connFlags(),
		dbFlag(seed.DefaultDB),
		&ucli.StringFlag{Name: flagCollection, Aliases: []string{aliasCollection}, Usage: "load every file into this collection (default: each file's base name without .json/.ndjson/.jsonl)"},
		&ucli.StringFlag{Name: flagMode, Value: "insert", Usage: "insert (documents already stored as they are are skipped; a different one under the same _id is an error) or upsert (replace by _id; loading twice changes nothing)"},
		newCountFlag(flagBatch, 1000, "documents per write"),
		&ucli.BoolFlag{Name: flagDrop, Usage: "drop each collection before loading it (after every file is validated)"},
		&ucli.BoolFlag{Name: flagDryRun, Usage: "validate the files against the server's rules and report, write nothing"},
		inexactFlag(),
		quietFlag("no progress on stderr"),
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
	mode, err := fixtures.ParseLoadMode(c.String(flagMode))
	if err != nil {
		return usageErrorf("%s %q: expected insert or upsert", arg(flagMode), c.String(flagMode))
	}
	batch := c.Int(flagBatch)
	if batch < 1 || batch > 100000 {
		return usageErrorf("%s %d: expected 1 to 100000", arg(flagBatch), batch)
	}
	dbName := c.String(flagDB)
	if err := rules.CheckDatabaseName(dbName); err != nil {
		return usageErrorf("%s: %v", arg(flagDB), err)
	}
	only := c.String(flagCollection)
	if c.IsSet(flagCollection) {
		if err := rules.CheckCollectionName(only); err != nil {
			return usageErrorf("%s: %v", arg(flagCollection), err)
		}
	}

	// Group the files by collection, in the order they were given.
	var groups []*loadGroup
	byName := map[string]*loadGroup{}
	groupOf := func(name string) *loadGroup {
		g := byName[name]
		if g == nil {
			g = &loadGroup{name: name}
			byName[name] = g
			groups = append(groups, g)
		}
		return g
	}
	stdinUsed := false
	for _, file := range args {
		var src fixtures.Source
		name := only
		if file != "-" && indexes.IsSidecar(file) {
			// An index sidecar named on the command line (a glob such as
			// dump/*.json takes them in) is read for its collection.
			if name == "" {
				name = strings.TrimSuffix(filepath.Base(file), indexes.SidecarSuffix)
			}
			g := groupOf(name)
			g.sidecars = appendNew(g.sidecars, file)
			continue
		}
		if file == "-" {
			if only == "" {
				return usageErrorf("load -: standard input has no file name: expected %s NAME", arg(flagCollection))
			}
			if stdinUsed {
				return usageErrorf("load: - given twice: standard input can be read once")
			}
			stdinUsed = true
			src = fixtures.ReaderSource("stdin", input.NewReader(c.Context, a.stdin))
		} else {
			fi, err := os.Stat(file)
			if err != nil {
				return usageErrorf("load %q: %v", file, errors.Unwrap(err))
			}
			if fi.IsDir() {
				return usageErrorf("load %q: is a directory, expected fixture files (such as %s/*.ndjson)", file, file)
			}
			// Opened now, before the server and its data-dir lock: a FIFO
			// waits here for its writer, and SIGINT or SIGTERM ends the wait.
			if src, err = fixtures.OpenFile(c.Context, file); err != nil {
				return inputFailure(fmt.Sprintf("load %q", file), err)
			}
			defer src.Close()
			if name == "" {
				name = fixtures.CollectionName(file)
				if err := rules.CheckFileName(name); err != nil {
					return usageErrorf("load %q: from the file name, %v; expected %s", file, err, arg(flagCollection))
				}
			}
		}
		g := groupOf(name)
		g.sources = append(g.sources, src)
		if file != "-" {
			// The sidecar of the file's collection, next to it: the parts
			// of a collection share one.
			if side, ok := fixtures.SidecarNextTo(file); ok {
				g.sidecars = appendNew(g.sidecars, side)
			}
		}
	}
	// Every sidecar is read and checked before anything is written.
	for _, g := range groups {
		if err := g.readSidecars(); err != nil {
			return usageErrorf("load: %v; nothing was loaded", err)
		}
	}

	if c.Bool(flagDrop) && stdinUsed {
		return usageErrorf("%s with -: expected files (standard input cannot be validated before the drop and read again)", arg(flagDrop))
	}

	ctx := c.Context
	t, err := openTarget(ctx, c)
	if err != nil {
		return err
	}
	defer t.Close()
	if c.Bool(flagDryRun) {
		return a.dryRunLoad(ctx, t, dbName, groups, fixtures.ReadOptions{RequireID: mode == fixtures.Upsert, InexactNumbers: c.Bool(flagInexact)})
	}

	db := t.Client.Database(dbName)
	targets := make([]fixtures.Target, len(groups))
	for i, g := range groups {
		targets[i] = fixtures.Target{Collection: db.Collection(g.name), Sources: g.sources, Indexes: g.indexes}
	}
	opts := fixtures.LoadOptions{Mode: mode, Batch: batch, Drop: c.Bool(flagDrop), MaxProblems: maxListed, InexactNumbers: c.Bool(flagInexact)}
	opts.Profile, _ = t.Profile(ctx) // when the server cannot be asked, LoadAll asks and says why
	var bar *progress
	started := false
	start := time.Now()
	opts.Progress = func(written, total int64) {
		if !started {
			started = true
			// The first call comes when writing starts, after every file
			// was validated: the rate is the writing's.
			bar = a.newProgress(c, "load", total)
		}
		bar.Set(written)
	}
	res, err := fixtures.LoadAll(ctx, targets, opts)
	bar.Finish()
	if res != nil {
		for _, u := range res.Unchecked {
			a.say(msgWarning, "%s.%s: unique index %s not checked before writing (%s); the server refuses such documents while writing", dbName, u.Collection, u.Index, u.Reason)
		}
		a.printLoadResult(res, dbName, mode, t.Display, time.Since(start))
	}
	if err != nil {
		return a.loadError(err, dbName, t.Display, res)
	}
	for _, g := range groups {
		if len(g.indexes) > 0 {
			fmt.Fprintf(a.stdout, "%s.%s: %s (from %s)\n", dbName, g.name, indexNote(g.indexes), strings.Join(g.sidecars, ", "))
		}
	}
	return nil
}

// loadGroup is the files that go into one collection.
type loadGroup struct {
	name     string
	sources  []fixtures.Source
	sidecars []string        // index sidecar files
	indexes  []indexes.Index // read from them
}

// readSidecars reads the group's sidecars; two that disagree are an error
// too. The caller reports an error as bad input (exit 2).
func (g *loadGroup) readSidecars() (err error) {
	g.indexes, err = fixtures.ReadSidecars(g.name, g.sidecars)
	return err
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// dryRunLoad validates the groups with the profile of t's server and
// reports, writing nothing.
func (a *App) dryRunLoad(ctx context.Context, t *target, dbName string, groups []*loadGroup, ropts fixtures.ReadOptions) error {
	profile, err := t.Profile(ctx)
	if err != nil {
		return failuref("%s: %s", t.Display, mongowrite.ServerMessage(err.Error()))
	}
	var total int64
	var problems []*fixtures.LineError
	count := 0
	for _, g := range groups {
		n, err := fixtures.Validate(ctx, profile, g.sources, ropts)
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
		if len(g.indexes) > 0 {
			fmt.Fprintf(a.stdout, "%s.%s: %s valid (from %s)\n", dbName, g.name, indexNote(g.indexes), strings.Join(g.sidecars, ", "))
		}
	}
	if count > 0 {
		return a.reportInvalid(&fixtures.ValidationError{Problems: problems, Count: count, Documents: total})
	}
	fmt.Fprintf(a.stdout, "dry run: %s valid, nothing written\n", docCount(total))
	return nil
}

// reportInvalid prints the first maxListed bad documents on stderr and
// returns the usage error (exit 2).
func (a *App) reportInvalid(ve *fixtures.ValidationError) error {
	listed := ve.Problems[:min(len(ve.Problems), maxListed)]
	for _, p := range listed {
		a.say(msgError, "%v", p)
	}
	a.sayMore(ve.Count, len(listed))
	if slices.ContainsFunc(ve.Problems, func(p *fixtures.LineError) bool { return errors.Is(p, fixtures.ErrInexactNumber) }) {
		a.say(msgNote, "%s stores the nearest double instead of such a number", arg(flagInexact))
	}
	return usageErrorf("%d of %d documents are invalid (listed above); nothing was loaded", ve.Count, ve.Documents)
}

func (a *App) loadError(err error, db, display string, res *fixtures.Result) error {
	var ce *indexes.ConflictError
	var re *indexes.RefusedError
	if errors.As(err, &ce) || errors.As(err, &re) {
		written := "nothing was written"
		if res != nil {
			if tot := res.Total(); tot.Inserted+tot.Upserted > 0 {
				written = fmt.Sprintf("%d documents were written before", tot.Inserted+tot.Upserted)
			}
		}
		return failuref("%s; %s", mongowrite.ServerMessage(err.Error()), written)
	}
	var ve *fixtures.ValidationError
	var de *fixtures.DuplicateKeyError
	var we *mongowrite.WriteError
	var ue *fixtures.UniqueInputError
	var uc *fixtures.UniqueClashError
	switch {
	case errors.As(err, &ve):
		return a.reportInvalid(ve)
	case errors.As(err, &ue):
		for _, d := range ue.Listed {
			a.say(msgError, "%v", d)
		}
		a.sayMore(ue.Count, len(ue.Listed))
		return usageErrorf("%s.%s: %d documents repeat the key of a unique index (listed above); expected each key once; nothing was loaded", db, ue.Collection, ue.Count)
	case errors.As(err, &uc):
		for _, c := range uc.Listed {
			a.say(msgError, "%v", c)
		}
		a.sayMore(uc.Count, len(uc.Listed))
		return failuref("%s.%s on %s: %d documents clash in a unique index with documents already stored (listed above); nothing was loaded", db, uc.Collection, display, uc.Count)
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
		return failuref("%s.%s on %s: wrote %s%d of %d documents, then: %s", db, we.Collection, display, bound, we.Written, we.Total, mongowrite.ServerMessage(describeStop(we)))
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission):
		return usageErrorf("%v", err)
	}
	return failuref("%s: %s", display, mongowrite.ServerMessage(describeWriteError(err)))
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

// sayMore says how many of count problems were not listed.
func (a *App) sayMore(count, listed int) {
	if count > listed {
		a.say(msgError, "... and %d more", count-listed)
	}
}
