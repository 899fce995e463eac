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
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// stdoutName is the --out value that writes to standard output.
const stdoutName = "-"

func (a *App) exportCommand() *ucli.Command {
	flags := append(connFlags(),
		dbFlag(seed.DefaultDB),
		&ucli.StringSliceFlag{Name: flagCollection, Aliases: []string{aliasCollection}, Usage: "collection to export; repeatable (default: every collection of the database but oidkit's own)"},
		&ucli.StringFlag{Name: flagFilter, Usage: "export only the documents this Extended JSON query `FILTER` matches, such as '{\"age\":{\"$gte\":18}}'"},
		&ucli.StringFlag{Name: flagSort, Usage: "order the documents by this `SORT` document, such as '{\"createdAt\":-1}' (default: the server's natural order)"},
		newCountFlag(flagLimit, 0, "export at most `N` documents per collection"),
		newCountFlag(flagSample, 0, "export `N` documents per collection drawn at random ($sample)"),
		newCountFlag(flagBatch, fixtures.DefaultExportBatch, "documents per cursor batch (memory holds one batch)"),
		modeFlag(),
		arrayFlag(),
		outFlag("output directory, one file per collection (<collection>.ndjson, or .json with --array); with one --collection, a `FILE`; - or nothing for standard output"),
		quietFlag("no progress bar"),
	)
	return &ucli.Command{
		Name:      "export",
		Usage:     "write the documents of existing collections as Extended JSON fixture files",
		UsageText: "oidkit export [--uri URI] [--db DB] [--collection C]... [--filter JSON] [--sort JSON] [--limit N | --sample N] [--mode relaxed|canonical] [--array] [--out DIR|FILE|-]",
		Description: "Reads collections with a cursor, batch by batch, and writes the same files `oidkit fixtures`\n" +
			"writes: one document per line (.ndjson) or, with --array, one JSON array (.json), in\n" +
			"relaxed or canonical Extended JSON, exact to the byte: `oidkit load` of the files stores\n" +
			"the same BSON. Without --collection, every collection of the database is exported but\n" +
			"oidkit's own (" + seed.ManifestCollection + " and *" + fixtures.PendingSuffix + "). Every document is checked with\n" +
			"MongoDB's rules first, as load checks it: one no server could load stops the export.\n" +
			"Each file is written to a temporary name and renamed when complete: an interrupted or\n" +
			"failed export leaves no partial file, and an existing file is replaced only on success.",
		Flags:  flags,
		Action: a.runExport,
	}
}

// exportJob is one collection to export and where it goes ("" for
// standard output).
type exportJob struct {
	name string
	path string
}

func (a *App) runExport(c *ucli.Context) error {
	err := a.export(c)
	return redactError(err, strings.TrimSpace(c.String(flagURI)))
}

func (a *App) export(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("export: unexpected argument %q; collections are given with %s C", c.Args().First(), arg(flagCollection))
	}
	mode, err := fixtures.ParseMode(c.String(flagMode))
	if err != nil {
		return usageErrorf("%s %q: expected relaxed or canonical", arg(flagMode), c.String(flagMode))
	}
	wopts := fixtures.Options{Mode: mode}
	if c.Bool(flagArray) {
		wopts.Layout = fixtures.Array
	}
	eopts, err := exportOptionsFromFlags(c)
	if err != nil {
		return err
	}
	dbName := c.String(flagDB)
	if err := rules.CheckDatabaseName(dbName); err != nil {
		return usageErrorf("%s: %v", arg(flagDB), err)
	}
	named := c.StringSlice(flagCollection)
	for i, name := range named {
		if err := rules.CheckCollectionName(name); err != nil {
			return usageErrorf("%s %q: %v", arg(flagCollection), name, err)
		}
		if slices.Contains(named[:i], name) {
			return usageErrorf("%s %q given twice: expected each collection once", arg(flagCollection), name)
		}
	}
	out := c.String(flagOut)
	if c.IsSet(flagOut) && strings.TrimSpace(out) == "" {
		return usageErrorf("%s %q: expected a directory, a file name, or - for standard output", arg(flagOut), out)
	}
	toStdout := out == "" || out == stdoutName
	if toStdout && len(named) != 1 {
		what := "every collection of the database"
		if len(named) > 1 {
			what = fmt.Sprintf("%d collections", len(named))
		}
		return usageErrorf("standard output takes one collection, and %s would go there: expected %s DIR, or one %s C", what, arg(flagOut), arg(flagCollection))
	}
	// --out is a directory when it names one, ends with a separator, or
	// several collections (or all) are exported; otherwise, the file.
	toDir := false
	if !toStdout {
		fi, statErr := os.Stat(out)
		toDir = len(named) != 1 || strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) || (statErr == nil && fi.IsDir())
		if toDir && statErr == nil && !fi.IsDir() {
			return usageErrorf("%s %q: expected a directory for one file per collection, found a file", arg(flagOut), out)
		}
	}

	ctx := c.Context
	t, err := openTarget(ctx, c, existingDataDir)
	if err != nil {
		return err
	}
	defer t.Close()
	db := t.Client.Database(dbName)
	names, err := exportNames(ctx, db, named)
	if err != nil {
		return err
	}

	jobs := make([]exportJob, len(names))
	for i, name := range names {
		jobs[i].name = name
		switch {
		case toStdout:
		case toDir:
			file, err := fixtures.FileName(name, "", wopts.Layout)
			if err != nil {
				return usageErrorf("%v; export it alone with %s %q %s FILE", err, arg(flagCollection), name, arg(flagOut))
			}
			jobs[i].path = filepath.Join(out, file)
		default:
			jobs[i].path = out
		}
	}
	if toDir {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return usageErrorf("%s %q: %v", arg(flagOut), out, errors.Unwrap(err))
		}
	}

	if toStdout {
		return a.exportToStdout(ctx, c, db, jobs[0].name, eopts, wopts)
	}
	start := time.Now()
	var total int64
	var done []string
	for _, job := range jobs {
		n, idx, err := a.exportToFile(ctx, c, db, job, eopts, wopts, done)
		if err != nil {
			return err
		}
		done = append(done, job.path)
		total += n
		fmt.Fprintf(a.stdout, "%s: %s (%s)\n", job.path, docCount(n), describeLayout(wopts))
		if idx != "" {
			fmt.Fprintln(a.stdout, idx)
		}
	}
	fmt.Fprintf(a.stdout, "exported %s of %s from %s in %s\n", docCount(total), collectionCount(len(jobs)), dbName, time.Since(start).Round(time.Millisecond))
	return nil
}

func collectionCount(n int) string {
	if n == 1 {
		return "1 collection"
	}
	return fmt.Sprintf("%d collections", n)
}

// exportOptionsFromFlags reads --filter, --sort, --limit, --sample and
// --batch, refusing bad values before anything is read or written.
func exportOptionsFromFlags(c *ucli.Context) (fixtures.ExportOptions, error) {
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
	if batch < 1 || batch > 100000 {
		return o, usageErrorf("%s %d: expected 1 to 100000", arg(flagBatch), batch)
	}
	o.Batch = int32(batch)
	return o, nil
}

// exportNames is the collections to export: the named ones, each of which
// must exist, or every collection of db but oidkit's own bookkeeping
// (run manifests, pending replacements), system collections and views, by
// name.
func exportNames(ctx context.Context, db *mongo.Database, named []string) ([]string, error) {
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{})
	if err != nil {
		return nil, failuref("listing the collections of %s: %v", db.Name(), err)
	}
	var all []string
	for _, s := range specs {
		if s.Type != "" && s.Type != "collection" {
			continue
		}
		all = append(all, s.Name)
	}
	slices.Sort(all)
	if len(named) > 0 {
		for _, n := range named {
			if !slices.Contains(all, n) {
				return nil, usageErrorf("%s %q: database %s has no such collection; expected one of: %s", arg(flagCollection), n, db.Name(), listOrNone(all))
			}
		}
		return named, nil
	}
	var names []string
	for _, n := range all {
		if n == seed.ManifestCollection || strings.HasSuffix(n, fixtures.PendingSuffix) || strings.HasPrefix(n, "system.") {
			continue
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, usageErrorf("%s %q has no collection to export; expected the database of an earlier seed or load", arg(flagDB), db.Name())
	}
	return names, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// exportProgress returns the progress callback of one collection's export
// and the function that ends it; nils with --quiet. The total is counted
// first only where a bar shows it (a count is a scan on FerretDB): the
// plain lines of a log show the count and the rate. It sets
// eopts.Uncounted to match.
func (a *App) exportProgress(c *ucli.Context, name string, eopts *fixtures.ExportOptions) (func(written, total int64), func()) {
	if c.Bool(flagQuiet) {
		return nil, func() {}
	}
	eopts.Uncounted = !isTerminal(a.stderr)
	var p *progress
	started := false
	return func(written, total int64) {
			if !started {
				started = true
				if eopts.Uncounted {
					total = unknownTotal
				}
				p = a.newProgress(c, name, total)
			}
			if !eopts.Uncounted {
				p.SetTotal(total)
			}
			p.Set(written)
		}, func() {
			p.Finish()
		}
}

// exportToFile exports one collection into job.path, atomically: the file
// appears only once complete. done lists the files committed before, for
// the message of a stop.
func (a *App) exportToFile(ctx context.Context, c *ucli.Context, db *mongo.Database, job exportJob, eopts fixtures.ExportOptions, wopts fixtures.Options, done []string) (n int64, sidecarLine string, err error) {
	f, err := fixtures.Create(job.path, wopts)
	if err != nil {
		return 0, "", usageErrorf("%s %q: %v", arg(flagOut), job.path, err)
	}
	defer func() { _ = f.Abort() }()
	coll := db.Collection(job.name)
	progress, finish := a.exportProgress(c, job.name, &eopts)
	n, err = fixtures.Export(ctx, coll, f.Writer, eopts, progress)
	finish()
	if err != nil {
		before := ""
		if len(done) > 0 {
			before = "; complete before it: " + strings.Join(done, ", ")
		}
		return n, "", exportStopped(ctx, db.Name(), err, fmt.Sprintf("no file was written for %s%s", job.name, before))
	}
	// The sidecar goes first, so that the data file never appears
	// without it; it is removed again if the data file cannot be renamed.
	sidecar, wrote, err := writeIndexSidecar(ctx, coll, job.path)
	if err != nil {
		return n, "", err
	}
	if err := f.Commit(); err != nil {
		if len(wrote) > 0 {
			_ = os.Remove(sidecar)
		}
		return n, "", failuref("%v", err)
	}
	if len(wrote) == 0 {
		// A sidecar of an earlier export would give the file indexes
		// the collection no longer has.
		if err := os.Remove(sidecar); err != nil && !errors.Is(err, os.ErrNotExist) {
			return n, "", failuref("removing the earlier %s: %v", sidecar, err)
		}
		return n, "", nil
	}
	return n, sidecar + ": " + indexNote(wrote), nil
}

// writeIndexSidecar writes the indexes of coll (but _id's) beside the data
// file at dataPath, as the <collection>.metadata.json that load reads for
// that file (named after the collection the file loads into). It returns
// the sidecar's path and the indexes it wrote there: none, and no file,
// when coll has no other index.
func writeIndexSidecar(ctx context.Context, coll *mongo.Collection, dataPath string) (string, []indexes.Index, error) {
	path := indexes.SidecarPath(filepath.Dir(dataPath), fixtures.CollectionName(filepath.Base(dataPath)))
	list, err := indexes.List(ctx, coll)
	if err != nil {
		return path, nil, failuref("listing the indexes of %s: %v", coll.Name(), err)
	}
	if len(list) == 0 {
		return path, nil, nil
	}
	if err := indexes.WriteSidecar(path, coll.Name(), list); err != nil {
		return path, nil, failuref("the indexes of %s: %v", coll.Name(), err)
	}
	return path, list, nil
}

// exportToStdout exports one collection to standard output. What went out
// cannot be taken back: on a stop, the complete documents buffered go out
// too, and the message says how many did.
func (a *App) exportToStdout(ctx context.Context, c *ucli.Context, db *mongo.Database, name string, eopts fixtures.ExportOptions, wopts fixtures.Options) error {
	w := fixtures.NewWriter(a.stdout, wopts)
	progress, finish := a.exportProgress(c, name, &eopts)
	_, err := fixtures.Export(ctx, db.Collection(name), w, eopts, progress)
	finish()
	if err != nil {
		var we *mongowrite.WriteError
		if !errors.As(err, &we) {
			return exportStopped(ctx, db.Name(), err, "")
		}
		note := ""
		if ferr := w.Flush(); ferr != nil {
			note = fmt.Sprintf("writing to standard output: %v", ferr)
		} else {
			unclosed := ""
			if wopts.Layout == fixtures.Array && w.Count() > 0 {
				unclosed = " (the JSON array is not closed)"
			}
			note = fmt.Sprintf("%d complete documents went to standard output%s", w.Count(), unclosed)
		}
		return exportStopped(ctx, db.Name(), err, note)
	}
	if err := w.Close(); err != nil {
		return failuref("writing to standard output: %v", err)
	}
	return nil
}

// exportStopped turns the error of fixtures.Export into the command's,
// with its exit code; note says what became of the output.
func exportStopped(ctx context.Context, db string, err error, note string) error {
	if note != "" {
		note = "; " + note
	}
	var we *mongowrite.WriteError
	if !errors.As(err, &we) {
		if errors.Is(err, fixtures.ErrExportOptions) {
			return usageErrorf("%v", err)
		}
		return failuref("%v%s", err, note)
	}
	var v *rules.Violation
	switch {
	case we.Doc != nil && (errors.As(we.Err, &v) || errors.Is(we.Err, fixtures.ErrNotRepresentable)):
		return usageErrorf("%s.%s %v: %v; expected documents every MongoDB server can store and load reads back exactly%s", db, we.Collection, we.Doc, we.Err, note)
	case we.Doc != nil:
		return failuref("%s.%s %v: %v%s", db, we.Collection, we.Doc, we.Err, note)
	case errors.Is(we.Err, fixtures.ErrQueryRefused):
		return usageErrorf("%s.%s: %s; expected a query the server accepts (see %s and %s)", db, we.Collection, mongowrite.ServerMessage(we.Err.Error()), arg(flagFilter), arg(flagSort))
	case errors.Is(we.Err, context.Canceled) || ctx.Err() != nil && errors.Is(we.Err, ctx.Err()):
		return failuref("interrupted after %s of %s.%s%s", ofTotal(we), db, we.Collection, note)
	}
	if we.Written == 0 {
		return failuref("%s.%s: %s%s", db, we.Collection, mongowrite.ServerMessage(we.Err.Error()), note)
	}
	return failuref("%s.%s: exported %s, then: %s%s", db, we.Collection, ofTotal(we), mongowrite.ServerMessage(we.Err.Error()), note)
}

// ofTotal is "K of N documents", or "K documents" when N is not known.
func ofTotal(we *mongowrite.WriteError) string {
	if we.Total < 0 {
		return docCount(we.Written)
	}
	return fmt.Sprintf("%d of %d documents", we.Written, we.Total)
}
