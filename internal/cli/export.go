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
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/internal/count"
	"github.com/oidkit/oidkit/internal/progress"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/target"
)

// stdoutName is the --out value that writes to standard output.
const stdoutName = "-"

func (a *App) exportCommand() *ucli.Command {
	flags := append(connFlags(),
		withAlias(dbFlag(seed.DefaultDB), aliasDB),
		&ucli.StringSliceFlag{Name: flagCollection, Aliases: []string{aliasCollection}, Usage: "collection to export; repeatable (default: every collection of the database but oidkit's own)"},
		&ucli.StringFlag{Name: flagFilter, Aliases: []string{flagQuery, aliasQuery}, Usage: "export only the documents this Extended JSON query `FILTER` matches, such as '{\"age\":{\"$gte\":18}}'"},
		&ucli.StringFlag{Name: flagSort, Usage: "order the documents by this `SORT` document, such as '{\"createdAt\":-1}' (default: the server's natural order)"},
		count.NewFlag(flagLimit, 0, "export at most `N` documents per collection"),
		count.NewFlag(flagSample, 0, "export `N` documents per collection drawn at random ($sample)"),
		count.NewFlag(flagBatch, fixtures.DefaultExportBatch, "documents per cursor batch (memory holds one batch)"),
		withAlias(modeFlag(), flagJSONFormat),
		withBoolAlias(arrayFlag(), flagJSONArray),
		typeFlag(),
		outFlag("output directory, one file per collection (<collection>.ndjson, or .json with --array); with one --collection, a `FILE`; - or nothing for standard output"),
		// -q is the query, as mongoexport's: --quiet has no short name here.
		&ucli.BoolFlag{Name: flagQuiet, Usage: "no progress bar"},
	)
	flags = append(flags, foreignFlagDefs()...)
	return &ucli.Command{
		Name:      "export",
		Usage:     "write the documents of existing collections as Extended JSON fixture files",
		UsageText: "oidkit export [--uri URI] [--db DB] [--collection C]... [--filter JSON] [--sort JSON] [--limit N | --sample N] [--mode relaxed|canonical] [--array] [--out DIR|FILE|-]",
		Description: "Reads collections with a cursor, batch by batch, and writes the same files `oidkit fixtures`\n" +
			"writes: one document per line (.ndjson) or, with --array, one JSON array (.json), in\n" +
			"relaxed or canonical Extended JSON, exact to the byte: `oidkit load` of the files stores\n" +
			"the same BSON. Without --collection, every collection of the database is exported but\n" +
			"oidkit's own (" + mongowrite.ManifestCollection + " and *" + mongowrite.PendingSuffix + "). Every document is checked with\n" +
			"MongoDB's rules first, as load checks it: one no server could load stops the export.\n" +
			"Each file is written to a temporary name and renamed when complete: an interrupted or\n" +
			"failed export leaves no partial file, and an existing file is replaced only on success.",
		Flags: flags,
		Action: func(c *ucli.Context) error {
			return target.RedactError(a.runExport(c), strings.TrimSpace(c.String(flagURI)))
		},
	}
}

// exportOptions is what the flags of oidkit export ask for.
type exportOptions struct {
	db       string
	named    []string // --collection, in order; none for every collection
	out      string
	toStdout bool
	toDir    bool // out is a directory, one file per collection
	export   fixtures.ExportOptions
	write    fixtures.Options
	quiet    bool
	progress func(label string, total int64) *progress.Meter
}

func (a *App) runExport(c *ucli.Context) error {
	o, err := a.exportOptionsFrom(c)
	if err != nil {
		return err
	}
	ctx := c.Context
	t, err := a.openTarget(ctx, targetOptions(c, true))
	if err != nil {
		return err
	}
	defer t.Close()
	db := t.Client.Database(o.db)
	names, err := fixtures.ExportCollections(ctx, db, o.named)
	if err != nil {
		return explain(err, namesWording)
	}
	if o.toStdout {
		return a.exportToStdout(ctx, db, names[0], o)
	}
	return a.exportFiles(ctx, db, names, o)
}

// exportOptionsFrom reads the flags of oidkit export and checks their
// rules, before anything is read or written.
func (a *App) exportOptionsFrom(c *ucli.Context) (o exportOptions, err error) {
	if err := refuseForeign(c, "export"); err != nil {
		return o, err
	}
	if c.NArg() > 0 {
		return o, usageErrorf("export: unexpected argument %q; collections are given with %s C", c.Args().First(), arg(flagCollection))
	}
	if o.write, err = writeOptions(c.String(flagMode), c.Bool(flagArray)); err != nil {
		return o, err
	}
	if o.export, err = exportQueryFrom(c); err != nil {
		return o, err
	}
	o.db, o.named, o.out, o.quiet = c.String(flagDB), c.StringSlice(flagCollection), c.String(flagOut), c.Bool(flagQuiet)
	o.progress = func(label string, total int64) *progress.Meter { return a.newProgress(c.Bool(flagQuiet), label, total) }
	if err := rules.CheckDatabaseName(o.db); err != nil {
		return o, usageErrorf("%s: %v", arg(flagDB), err)
	}
	for i, name := range o.named {
		if err := rules.CheckCollectionName(name); err != nil {
			return o, usageErrorf("%s %q: %v", arg(flagCollection), name, err)
		}
		if slices.Contains(o.named[:i], name) {
			return o, usageErrorf("%s %q given twice: expected each collection once", arg(flagCollection), name)
		}
	}
	if c.IsSet(flagOut) && strings.TrimSpace(o.out) == "" {
		return o, usageErrorf("%s %q: expected a directory, a file name, or - for standard output", arg(flagOut), o.out)
	}
	return o, o.where()
}

// where decides where the documents go: standard output (one collection),
// a directory when --out names one, ends with a separator, or several
// collections (or all) are exported; otherwise, the file.
func (o *exportOptions) where() error {
	o.toStdout = o.out == "" || o.out == stdoutName
	if o.toStdout {
		if len(o.named) == 1 {
			return nil
		}
		what := "every collection of the database"
		if len(o.named) > 1 {
			what = fmt.Sprintf("%d collections", len(o.named))
		}
		return usageErrorf("standard output takes one collection, and %s would go there: expected %s DIR, or one %s C", what, arg(flagOut), arg(flagCollection))
	}
	fi, statErr := os.Stat(o.out)
	o.toDir = len(o.named) != 1 || strings.HasSuffix(o.out, "/") || strings.HasSuffix(o.out, string(filepath.Separator)) || (statErr == nil && fi.IsDir())
	if o.toDir && statErr == nil && !fi.IsDir() {
		return usageErrorf("%s %q: expected a directory for one file per collection, found a file", arg(flagOut), o.out)
	}
	return nil
}

// namesWording words fixtures.ExportCollections' errors with the flag
// that names the collection or the database.
func namesWording(_ error, lib exitCoder) error {
	e, ok := lib.(*fixtures.NoCollectionError)
	switch {
	case !ok:
		return nil
	case e.Collection == "":
		return fmt.Errorf("%s %q has no collection to export; expected the database of an earlier seed or load", arg(flagDB), e.Database)
	}
	return fmt.Errorf("%s %q: database %s has no such collection; expected one of: %s", arg(flagCollection), e.Collection, e.Database, listOrNone(e.Have))
}

// exportFiles exports each collection into its file (fixtures.ExportFile),
// every file name checked before anything is written.
func (a *App) exportFiles(ctx context.Context, db *mongo.Database, names []string, o exportOptions) error {
	paths := make([]string, len(names))
	for i, name := range names {
		paths[i] = o.out
		if o.toDir {
			file, err := fixtures.FileName(name, "", o.write.Layout)
			if err != nil {
				return usageErrorf("%v; export it alone with %s %q %s FILE", err, arg(flagCollection), name, arg(flagOut))
			}
			paths[i] = filepath.Join(o.out, file)
		}
	}
	if o.toDir {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return usageErrorf("%s %q: %v", arg(flagOut), o.out, errors.Unwrap(err))
		}
	}
	start := time.Now()
	var total int64
	for i, name := range names {
		eopts := o.export
		progress, finish := a.exportProgress(o, name, &eopts)
		res, err := fixtures.ExportFile(ctx, db.Collection(name), paths[i], fixtures.ExportFileOptions{Export: eopts, Write: o.write, Progress: progress})
		finish()
		if err != nil {
			before := ""
			if i > 0 {
				before = "; complete before it: " + strings.Join(paths[:i], ", ")
			}
			return explain(err, exportStop{ctx: ctx, db: db.Name(), discarded: true, noteOf: func() string { return fmt.Sprintf("no file was written for %s%s", name, before) }}.word)
		}
		total += res.Documents
		fmt.Fprintf(a.stdout, "%s: %s (%s)\n", paths[i], mongowrite.Documents(res.Documents), describeLayout(o.write))
		if res.Sidecar != "" {
			fmt.Fprintf(a.stdout, "%s: %s\n", res.Sidecar, indexNote(res.Indexes))
		}
	}
	fmt.Fprintf(a.stdout, "exported %s of %s from %s in %s\n", mongowrite.Documents(total), collectionCount(len(names)), db.Name(), time.Since(start).Round(time.Millisecond))
	return nil
}

func collectionCount(n int) string {
	if n == 1 {
		return "1 collection"
	}
	return fmt.Sprintf("%d collections", n)
}

// exportQueryFrom, part of exportOptionsFrom, reads --filter, --sort, --limit, --sample and
// --batch, refusing bad values before anything is read or written.
func exportQueryFrom(c flagValues) (fixtures.ExportOptions, error) {
	var o fixtures.ExportOptions
	if c.IsSet(flagFilter) {
		f, err := fixtures.ParseQuery(c.String(flagFilter))
		if err != nil {
			return o, usageErrorf("%s %q: %v; expected one JSON object such as '{\"age\":{\"$gte\":18}}'", arg(flagFilter), c.String(flagFilter), err)
		}
		o.Filter = f
	}
	if c.IsSet(flagSort) {
		s, err := fixtures.ParseSort(c.String(flagSort))
		if err != nil {
			return o, usageErrorf("%s %q: %v; expected a JSON object such as '{\"createdAt\":-1,\"_id\":1}'", arg(flagSort), c.String(flagSort), err)
		}
		o.Sort = s
	}
	for _, f := range []string{flagLimit, flagSample} {
		if c.IsSet(f) && c.Int64(f) < 1 {
			return o, usageErrorf("%s %d: expected a positive number of documents", arg(f), c.Int64(f))
		}
	}
	if c.IsSet(flagLimit) && c.IsSet(flagSample) {
		return o, usageErrorf("%s with %s: a sample of N is already at most N documents; expected one of them", arg(flagLimit), arg(flagSample))
	}
	o.Limit, o.Sample = c.Int64(flagLimit), c.Int64(flagSample)
	batch := c.Int(flagBatch)
	if err := mongowrite.CheckBatch(batch); err != nil {
		return o, usageErrorf("%s %v", arg(flagBatch), err)
	}
	o.Batch = int32(batch)
	return o, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// exportProgress returns the progress callback of one collection's export
// and the function that ends it; nils with --quiet. The total is counted
// first only where a bar shows it (a count is a scan on some servers): the
// plain lines of a log show the count and the rate. It sets
// eopts.Uncounted to match.
func (a *App) exportProgress(o exportOptions, name string, eopts *fixtures.ExportOptions) (func(written, total int64), func()) {
	if o.quiet {
		return nil, func() {}
	}
	eopts.Uncounted = !progress.IsTerminal(a.stderr)
	p := progress.NewLazy(func(total int64) *progress.Meter { return o.progress(name, total) })
	return func(written, total int64) {
		if eopts.Uncounted {
			total = progress.UnknownTotal
		}
		p.Report(written, total)
	}, p.Finish
}

// exportToStdout exports one collection to standard output. What went out
// cannot be taken back: on a stop, the complete documents buffered go out
// too, and the message says how many did.
func (a *App) exportToStdout(ctx context.Context, db *mongo.Database, name string, o exportOptions) error {
	w := fixtures.NewWriter(a.stdout, o.write)
	eopts := o.export
	progress, finish := a.exportProgress(o, name, &eopts)
	_, err := fixtures.Export(ctx, db.Collection(name), w, eopts, progress)
	finish()
	if err != nil {
		return explain(err, exportStop{ctx: ctx, db: db.Name(), noteOf: func() string { note, _ := w.StopNote(); return note }}.word)
	}
	if err := w.Close(); err != nil {
		return failuref("writing to standard output: %v", err)
	}
	return nil
}

// exportStop words what fixtures.Export or ExportFile returned from
// database db: noteOf, asked only once a write stopped, says what became of
// the output, and discarded that nothing of it was kept (the documents were
// read, not exported).
type exportStop struct {
	ctx       context.Context
	db        string
	noteOf    func() string
	discarded bool
}

func (s exportStop) word(err error, lib exitCoder) error {
	switch e := lib.(type) {
	case *mongowrite.WriteError:
		return s.stopped(e)
	case *fixtures.CreateError:
		switch {
		case !e.Sidecar:
			return usageErrorf("%s %q: %v", arg(flagOut), e.Path, e.Err)
		case !e.Stale:
			return failuref("the indexes of %s: %v", e.Collection, e.Err)
		}
	}
	if errors.Is(err, fixtures.ErrExportOptions) {
		return usageErrorf("%v", err)
	}
	return failure(err)
}

// stopped words a write that stopped: a document no server could load is
// bad input, anything else a failure saying how far the export got.
func (s exportStop) stopped(we *mongowrite.WriteError) error {
	note := s.noteOf()
	if note != "" {
		note = "; " + note
	}
	db := s.db
	switch {
	case we.Doc != nil && (we.ExitCode() == ExitUsage || errors.Is(we.Err, fixtures.ErrNotRepresentable)):
		// The target's rules refuse it, or Extended JSON cannot carry it.
		return usageErrorf("%s.%s %v: %v; expected documents every MongoDB server can store and load reads back exactly%s", db, we.Collection, we.Doc, we.Err, note)
	case we.Doc != nil:
		return failuref("%s.%s %v: %v%s", db, we.Collection, we.Doc, we.Err, note)
	case errors.Is(we.Err, fixtures.ErrQueryRefused):
		return usageErrorf("%s.%s: %s; expected a query the server accepts (see %s and %s)", db, we.Collection, mongowrite.ServerMessage(we.Err.Error()), arg(flagFilter), arg(flagSort))
	case errors.Is(we.Err, context.Canceled) || s.ctx.Err() != nil && errors.Is(we.Err, s.ctx.Err()):
		return failuref("interrupted after %s of %s.%s%s", we.Reached(), db, we.Collection, note)
	}
	if we.Written == 0 {
		return failuref("%s.%s: %s%s", db, we.Collection, mongowrite.ServerMessage(we.Err.Error()), note)
	}
	if s.discarded {
		return failuref("%s.%s: %s read, then: %s%s", db, we.Collection, we.Reached(), mongowrite.ServerMessage(we.Err.Error()), note)
	}
	return failuref("%s.%s: exported %s, then: %s%s", db, we.Collection, we.Reached(), mongowrite.ServerMessage(we.Err.Error()), note)
}
