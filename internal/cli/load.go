package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/internal/count"
	"github.com/oidkit/oidkit/internal/input"
	"github.com/oidkit/oidkit/internal/message"
	"github.com/oidkit/oidkit/internal/progress"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/target"
)

// maxListed is how many bad documents load prints before "... and N more".
const maxListed = 100

func (a *App) loadCommand() *ucli.Command {
	flags := append(connFlags(),
		withAlias(dbFlag(seed.DefaultDB), aliasDB),
		&ucli.StringFlag{Name: flagCollection, Aliases: []string{aliasCollection}, Usage: "load every file into this collection (default: each file's base name without .json/.ndjson/.jsonl)"},
		&ucli.StringFlag{Name: flagFile, Usage: "a fixture `FILE` to load, as mongoimport's --file (with FILE arguments, loaded after them)"},
		&ucli.BoolFlag{Name: flagJSONArray, Usage: "accepted for mongoimport's command lines: a JSON array is detected in any file"},
		typeFlag(),
		&ucli.StringFlag{Name: flagMode, Value: "insert", Usage: "insert (documents already stored as they are are skipped; a different one under the same _id is an error) or upsert (replace by _id; loading twice changes nothing)"},
		&ucli.StringFlag{Name: flagUpsertFields, Usage: "as mongoimport's: the fields that identify a document to replace; only _id, and it implies --mode upsert"},
		&ucli.IntFlag{Name: flagInsertWorkers, Value: 1, Usage: fmt.Sprintf("accepted for mongoimport's command lines (1 to %d): batches are written in order", maxInsertionWorkers)},
		count.NewFlag(flagBatch, mongowrite.DefaultBatch, "documents per write"),
		&ucli.BoolFlag{Name: flagDrop, Usage: "drop each collection before loading it (after every file is validated)"},
		&ucli.BoolFlag{Name: flagDryRun, Usage: "validate the files against the server's rules and report, write nothing"},
		inexactFlag(),
		quietFlag("no progress on stderr"),
	)
	flags = append(flags, foreignFlagDefs()...)
	return &ucli.Command{
		Name:      "load",
		Usage:     "load Extended JSON fixture files into a database",
		UsageText: "oidkit load [--uri URI] [--db DB] [--collection C] [--mode insert|upsert] [--batch N] [FILE... | --file FILE]",
		Description: "Reads NDJSON (one document per line) and JSON-array files, canonical or relaxed\n" +
			"Extended JSON; - or no file reads standard input (with --collection). Every document of every\n" +
			"file is validated first: if any is bad, each bad one is reported as file:line: reason\n" +
			"and nothing is written (exit 2). Documents keep their exact BSON types and bytes.",
		Flags:  flags,
		Action: a.runLoad,
	}
}

// loadOptions is what the flags and arguments of oidkit load ask for.
type loadOptions struct {
	files      []string
	db         string
	collection string // every file into it; "" names each by its file
	mode       fixtures.LoadMode
	batch      int
	drop       bool
	dryRun     bool
	inexact    bool
	progress   func(label string, total int64) *progress.Meter
}

// loadOptionsFrom reads the flags and arguments of oidkit load and checks
// their rules.
func (a *App) loadOptionsFrom(c *ucli.Context) (loadOptions, error) {
	if err := refuseForeign(c, "import"); err != nil {
		return loadOptions{}, err
	}
	files, err := a.loadFiles(c)
	if err != nil {
		return loadOptions{}, err
	}
	o := loadOptions{files: files, db: c.String(flagDB), collection: c.String(flagCollection),
		batch: c.Int(flagBatch), drop: c.Bool(flagDrop), dryRun: c.Bool(flagDryRun), inexact: c.Bool(flagInexact),
		progress: func(label string, total int64) *progress.Meter { return a.newProgress(c.Bool(flagQuiet), label, total) }}
	if c.IsSet(flagFile) && strings.TrimSpace(c.String(flagFile)) == "" {
		return o, usageErrorf("%s %q: expected a fixture file, or - for standard input", arg(flagFile), c.String(flagFile))
	}
	mode, err := loadMode(c)
	if err != nil {
		return o, err
	}
	o.mode = mode
	if w := c.Int(flagInsertWorkers); w < 1 || w > maxInsertionWorkers {
		return o, usageErrorf("%s %d: expected 1 to %d", arg(flagInsertWorkers), w, maxInsertionWorkers)
	}
	if err := mongowrite.CheckBatch(o.batch); err != nil {
		return o, usageErrorf("%s %v", arg(flagBatch), err)
	}
	if err := rules.CheckDatabaseName(o.db); err != nil {
		return o, usageErrorf("%s: %v", arg(flagDB), err)
	}
	if c.IsSet(flagCollection) {
		if err := rules.CheckCollectionName(o.collection); err != nil {
			return o, usageErrorf("%s: %v", arg(flagCollection), err)
		}
	}
	return o, nil
}

func (a *App) runLoad(c *ucli.Context) error {
	o, err := a.loadOptionsFrom(c)
	if err != nil {
		return err
	}
	ctx := c.Context
	open := fixtures.OpenOptions{Collection: o.collection}
	if slices.Contains(o.files, fixtures.StdinName) {
		open.Stdin = input.NewReader(ctx, a.stdin)
	}
	// Every file is opened, before the server and its data-dir lock (a FIFO
	// waits for its writer, and SIGINT or SIGTERM ends the wait), and every
	// sidecar read and checked, before anything is written.
	set, err := fixtures.OpenSet(ctx, o.files, open)
	if err != nil {
		return explain(err, setWording)
	}
	defer set.Close()
	if o.drop && set.Stdin {
		return usageErrorf("%s with standard input: expected files (standard input cannot be validated before the drop and read again); load it into a new collection, or from a file", arg(flagDrop))
	}
	t, err := a.openTarget(ctx, targetOptions(c, false))
	if err != nil {
		return err
	}
	defer t.Close()
	if o.dryRun {
		return a.dryRunLoad(ctx, t, o, set)
	}
	return a.load(ctx, t, o, set)
}

// loadMode is the mode --mode and --upsertFields ask for. mongoimport's
// merge and delete modes, and upsert fields other than _id, are refused by
// name.
func loadMode(c *ucli.Context) (fixtures.LoadMode, error) {
	name := c.String(flagMode)
	if c.IsSet(flagUpsertFields) {
		if f := strings.TrimSpace(c.String(flagUpsertFields)); f != "_id" {
			return 0, usageErrorf("%s %q: documents are matched by _id only; expected %s _id, or no %s", arg(flagUpsertFields), c.String(flagUpsertFields), arg(flagUpsertFields), arg(flagUpsertFields))
		}
		if !c.IsSet(flagMode) {
			name = "upsert" // as mongoimport: upsert fields imply upsert
		}
	}
	switch name {
	case "merge":
		return 0, usageErrorf("%s merge: a stored document is replaced whole, never merged field by field; expected %s upsert (replace by _id) or insert", arg(flagMode), arg(flagMode))
	case "delete":
		return 0, usageErrorf("%s delete: load only writes; expected %s insert or upsert", arg(flagMode), arg(flagMode))
	}
	mode, err := fixtures.ParseLoadMode(name)
	if err != nil {
		return 0, usageErrorf("%s %q: expected insert or upsert", arg(flagMode), name)
	}
	if c.IsSet(flagUpsertFields) && mode != fixtures.Upsert {
		return 0, usageErrorf("%s with %s %s: upsert fields say which document to replace; expected %s upsert", arg(flagUpsertFields), arg(flagMode), name, arg(flagMode))
	}
	return mode, nil
}

// setWording words a fixture set that cannot be opened (a
// *fixtures.SetError): the file as given, and the flag that names a
// collection.
func setWording(err error, lib exitCoder) error {
	se, ok := lib.(*fixtures.SetError)
	if !ok {
		return failure(err)
	}
	switch se.Op {
	case fixtures.OpStat:
		return fmt.Errorf("load %q: %v", se.Path, errors.Unwrap(se.Err))
	case fixtures.OpDir:
		return fmt.Errorf("load %q: is a directory, expected fixture files (such as %s/*.ndjson)", se.Path, se.Path)
	case fixtures.OpOpen:
		return inputFailure(fmt.Sprintf("load %q", se.Path), se.Err)
	case fixtures.OpName:
		return fmt.Errorf("load %q: from the file name, %v; expected %s", se.Path, se.Err, arg(flagCollection))
	case fixtures.OpStdin:
		if errors.Is(se.Err, fixtures.ErrStdinTwice) {
			return errors.New("load: - given twice: standard input can be read once")
		}
		return fmt.Errorf("load -: standard input has no file name: expected %s NAME", arg(flagCollection))
	}
	return fmt.Errorf("load: %v; nothing was loaded", se.Err)
}

// load loads set into t with fixtures.LoadAll and reports.
func (a *App) load(ctx context.Context, t *target.Target, o loadOptions, set *fixtures.Set) error {
	opts := fixtures.LoadOptions{Mode: o.mode, Batch: o.batch, Drop: o.drop, MaxProblems: maxListed, InexactNumbers: o.inexact}
	opts.Profile, _ = t.Profile(ctx) // when the server cannot be asked, LoadAll asks and says why
	// The first report comes when writing starts, after every file was
	// validated: the rate is the writing's.
	bar := progress.NewLazy(func(total int64) *progress.Meter { return o.progress("load", total) })
	start := time.Now()
	opts.Progress = bar.Report
	res, err := fixtures.LoadAll(ctx, set.Targets(t.Client.Database(o.db)), opts)
	bar.Finish()
	if res != nil {
		for _, u := range res.Unchecked {
			a.say(message.Warning, "%s.%s: unique index %s not checked before writing (%s); the server refuses such documents while writing, or the index created after them", o.db, u.Collection, u.Index, u.Reason)
		}
		res.WriteSummary(a.stdout, o.db, o.mode, t.Display, time.Since(start))
	}
	if err != nil {
		return explain(err, a.loadWording(o.db, t.Display, res))
	}
	for _, g := range set.Groups {
		if len(g.Indexes) > 0 {
			fmt.Fprintf(a.stdout, "%s.%s: %s (from %s)\n", o.db, g.Collection, indexNote(g.Indexes), strings.Join(g.Sidecars, ", "))
		}
	}
	return nil
}

// dryRunLoad validates the set with the profile of t's server and
// reports, writing nothing.
func (a *App) dryRunLoad(ctx context.Context, t *target.Target, o loadOptions, set *fixtures.Set) error {
	profile, err := t.Profile(ctx)
	if err != nil {
		return failuref("%s: %s", t.Display, mongowrite.ServerMessage(err.Error()))
	}
	valid, err := set.Validate(ctx, profile, fixtures.ReadOptions{RequireID: o.mode == fixtures.Upsert, InexactNumbers: o.inexact})
	var total int64
	for i, n := range valid {
		if g := set.Groups[i]; n >= 0 {
			total += n
			fmt.Fprintf(a.stdout, "%s.%s: %s valid\n", o.db, g.Collection, mongowrite.Documents(n))
			if len(g.Indexes) > 0 {
				fmt.Fprintf(a.stdout, "%s.%s: %s valid (from %s)\n", o.db, g.Collection, indexNote(g.Indexes), strings.Join(g.Sidecars, ", "))
			}
		}
	}
	if err != nil {
		return explain(err, func(err error, lib exitCoder) error {
			if ve, ok := lib.(*fixtures.ValidationError); ok {
				return a.reportInvalid(ve)
			}
			return failure(err)
		})
	}
	fmt.Fprintf(a.stdout, "dry run: %s valid, nothing written\n", mongowrite.Documents(total))
	return nil
}

// reportInvalid prints the first maxListed bad documents on stderr and
// returns the message (the error's exit code is 2).
func (a *App) reportInvalid(ve *fixtures.ValidationError) error {
	listed := ve.Problems[:min(len(ve.Problems), maxListed)]
	sayEach(a, listed, ve.Count)
	if slices.ContainsFunc(ve.Problems, func(p *fixtures.LineError) bool { return errors.Is(p, fixtures.ErrInexactNumber) }) {
		a.say(message.Note, "%s stores the nearest double instead of such a number", arg(flagInexact))
	}
	return fmt.Errorf("%d of %d documents are invalid (listed above); nothing was loaded", ve.Count, ve.Documents)
}

// loadWording words what fixtures.LoadAll returned, into database db of
// the server display: the documents listed on stderr, what was written
// (res) and what to do.
func (a *App) loadWording(db, display string, res *fixtures.Result) wording {
	return func(err error, lib exitCoder) error {
		switch e := lib.(type) {
		case *mongowrite.IndexError:
			return loadIndexError(e, db, display)
		case *fixtures.ValidationError:
			return a.reportInvalid(e)
		case *fixtures.UniqueInputError:
			sayEach(a, e.Listed, e.Count)
			return fmt.Errorf("%s.%s: %d documents repeat the key of a unique index (listed above); expected each key once; nothing was loaded", db, e.Collection, e.Count)
		case *fixtures.UniqueClashError:
			sayEach(a, e.Listed, e.Count)
			return fmt.Errorf("%s.%s on %s: %d documents clash in a unique index with documents already stored (listed above); nothing was loaded", db, e.Collection, display, e.Count)
		case *fixtures.DuplicateKeyError:
			present := ""
			if e.Present > 0 {
				present = fmt.Sprintf(" (%d already there)", e.Present)
			}
			return fmt.Errorf("inserted %d of %d documents%s; %d refused because a different document with the same _id is already in %s.%s (first: %s); use --mode upsert to replace them",
				e.Inserted, e.Total, present, e.Duplicates, db, e.Collection, e.First)
		case *mongowrite.WriteError:
			// A document the server refused while loading: the load stopped.
			return failuref("%s.%s on %s: wrote %s, then: %s", db, e.Collection, display, e.Reached(), mongowrite.ServerMessage(e.Cause()))
		}
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return usageErrorf("%v", err)
		}
		return failuref("%s: %s", display, mongowrite.ServerMessage(mongowrite.Describe(err)))
	}
}

// loadIndexError words a target's indexes that a load could not create:
// the server's or the collection's refusal, then what was written: before
// the documents nothing (every index is checked, and those of collections
// that hold documents created, before the first write); after them
// (IndexAfter), that they are there without the index, and how to have it.
func loadIndexError(e *mongowrite.IndexError, db, display string) error {
	written := "nothing was written"
	if e.Stage == mongowrite.IndexAfter {
		written = fmt.Sprintf("the %d documents of %s.%s are written, without this index (load again to create it)", e.Written, db, e.Collection)
		if mongo.IsDuplicateKeyError(e.Err) {
			written = fmt.Sprintf("the %d documents of %s.%s are written, without this index: they repeat its key (load files whose keys are unique with %s)", e.Written, db, e.Collection, arg(flagDrop))
		}
	}
	if indexes.ServerRefused(e.Err) {
		// The server's message without its source locations.
		return failuref("%s; %s", mongowrite.ServerMessage(e.Err.Error()), written)
	}
	if e.Stage == mongowrite.IndexAfter {
		return failuref("%s: %s; %s", display, mongowrite.ServerMessage(mongowrite.Describe(e.Err)), written)
	}
	return failuref("%s: %s", display, mongowrite.ServerMessage(mongowrite.Describe(e.Err)))
}

// sayEach says each listed problem, then how many of count were not
// listed.
func sayEach[T any](a *App, listed []T, count int) {
	for _, p := range listed {
		a.say(message.Error, "%v", p)
	}
	if count > len(listed) {
		a.say(message.Error, "... and %d more", count-len(listed))
	}
}
