package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

func (a *App) fixturesCommand() *ucli.Command {
	flags := append(planFlags(),
		modeFlag(),
		arrayFlag(),
		outFlag("output `FILE` (default: standard output); with --plan, a directory that gets one file per collection"),
		partFlag("write only one part of the dataset; in a directory, each collection goes to <collection>.part-0003-of-0016.ndjson"),
		quietFlag("no progress on stderr"),
	)
	return &ucli.Command{
		Name:      "fixtures",
		Usage:     "write mock documents as Extended JSON fixture files",
		UsageText: "oidkit fixtures [--kind K | --template FILE | --plan FILE|shop] [-n N] [--id ...] [--seed S] [--mode relaxed|canonical] [--array] [--out FILE|DIR]",
		Description: "Writes the documents `oidkit seed` would insert with the same flags, as Extended JSON v2:\n" +
			"one document per line (NDJSON, extension .ndjson) or, with --array, one indented JSON\n" +
			"array (extension .json). With --plan, --out is a directory and each collection goes to\n" +
			"<collection>.ndjson or <collection>.json there, ready for `oidkit load DIR/*`.\n" +
			"Files are written to a temporary name and renamed when complete: an interrupted or\n" +
			"failed run leaves no partial file. With --seed the output is identical on every run.",
		Flags:  flags,
		Action: a.runFixtures,
	}
}

func (a *App) runFixtures(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("fixtures: unexpected argument %q; see oidkit fixtures --help", c.Args().First())
	}
	mode, err := fixtures.ParseMode(c.String(flagMode))
	if err != nil {
		return usageErrorf("%s %q: expected relaxed or canonical", arg(flagMode), c.String(flagMode))
	}
	opts := fixtures.Options{Mode: mode}
	if c.Bool(flagArray) {
		opts.Layout = fixtures.Array
	}
	part, err := partFromFlags(c)
	if err != nil {
		return err
	}
	ds, err := datasetFromFlags(c)
	if err != nil {
		return err
	}
	if !part.Whole() && !ds.Seeded {
		return usageErrorf("%s %s without %s: expected %s S, the same in every part (each part would draw its own)", arg(flagPart), part, arg(flagSeed), arg(flagSeed))
	}
	cols := ds.Written()
	out := c.String(flagOut)
	if c.IsSet(flagOut) && strings.TrimSpace(out) == "" {
		// --out "$UNSET" would otherwise pour the documents onto the terminal.
		return usageErrorf("%s %q: expected a file or directory name (leave %[1]s out for standard output)", arg(flagOut), out)
	}
	if c.String(flagPlan) != "" && out == "" {
		return usageErrorf("%s %q writes one file per collection: expected %s DIR", arg(flagPlan), c.String(flagPlan), arg(flagOut))
	}

	ctx := c.Context

	if out == "" {
		if len(cols) != 1 {
			return usageErrorf("%d collections to write: expected %s DIR", len(cols), arg(flagOut))
		}
		w := fixtures.NewWriter(a.stdout, opts)
		if err := a.writeCollection(ctx, c, w, cols[0], part, !isTerminal(a.stdout), false); err != nil {
			return stdoutStopped(w, opts, err)
		}
		if err := w.Close(); err != nil {
			return failuref("writing to standard output: %v", err)
		}
		return nil
	}

	// Where each collection goes: --out is a directory with --plan, or when
	// it names an existing directory; otherwise it is the file.
	paths := make([]string, len(cols))
	fi, statErr := os.Stat(out)
	if c.String(flagPlan) != "" || (statErr == nil && fi.IsDir()) {
		if statErr == nil && !fi.IsDir() {
			return usageErrorf("%s %q: expected a directory for %s, found a file", arg(flagOut), out, arg(flagPlan))
		}
		suffix := ""
		if !part.Whole() {
			suffix = part.Suffix()
		}
		// Every name is checked before anything is created.
		for i, col := range cols {
			file, err := fixtures.FileName(col.Name(), suffix, opts.Layout)
			if err != nil {
				return usageErrorf("%s %q: %v; nothing was written", arg(flagOut), out, err)
			}
			paths[i] = filepath.Join(out, file)
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return failuref("%s %q: %v", arg(flagOut), out, err)
		}
	} else {
		if len(cols) != 1 {
			return usageErrorf("%s %q: %d collections to write: expected a directory", arg(flagOut), out, len(cols))
		}
		paths[0] = out
	}

	// Every file is complete before any is renamed into place.
	files := make([]*fixtures.File, 0, len(cols))
	defer func() {
		for _, f := range files {
			_ = f.Abort()
		}
	}()
	for _, p := range paths {
		f, err := fixtures.Create(p, opts)
		if err != nil {
			return usageErrorf("%s %q: %v", arg(flagOut), out, err)
		}
		files = append(files, f)
	}
	start := time.Now()
	for i, col := range cols {
		if err := a.writeCollection(ctx, c, files[i].Writer, col, part, true, true); err != nil {
			return err
		}
	}
	// The plan's indexes go beside the documents, in the sidecar load reads,
	// before the documents are renamed into place (and removed if that fails).
	var sidecars []string
	for i, col := range cols {
		want := col.Spec().Indexes
		if len(want) == 0 {
			sidecars = append(sidecars, "")
			continue
		}
		// Named after the collection the file loads into, as load finds it.
		side := indexes.SidecarPath(filepath.Dir(paths[i]), fixtures.CollectionName(paths[i]))
		if err := indexes.WriteSidecar(side, col.Name(), want); err != nil {
			removeAll(sidecars)
			return failuref("%s: %v", side, err)
		}
		sidecars = append(sidecars, side)
	}
	for _, f := range files {
		if err := f.Commit(); err != nil {
			removeAll(sidecars)
			return failuref("%v", err)
		}
	}
	elapsed := time.Since(start)
	var total int64
	for i, f := range files {
		total += f.Count()
		fmt.Fprintf(a.stdout, "%s: %s (%s)\n", paths[i], docCount(f.Count()), describeLayout(opts))
		if sidecars[i] != "" {
			fmt.Fprintf(a.stdout, "%s: %s\n", sidecars[i], indexNote(cols[i].Spec().Indexes))
		}
	}
	fmt.Fprintf(a.stdout, "wrote %s in %s (%s)\n", docCount(total), elapsed.Round(time.Millisecond), seedNote(ds))
	return nil
}

func docCount(n int64) string {
	if n == 1 {
		return "1 document"
	}
	return fmt.Sprintf("%d documents", n)
}

func describeLayout(o fixtures.Options) string {
	if o.Layout == fixtures.Array {
		return o.Mode.String() + " Extended JSON, JSON array"
	}
	return o.Mode.String() + " Extended JSON, one document per line"
}

func seedNote(ds *seed.Dataset) string {
	if !ds.Seeded {
		return fmt.Sprintf("unseeded, time base %s", ds.Base.Format(time.RFC3339))
	}
	return fmt.Sprintf("seed %d, time base %s", ds.Seed, ds.Base.Format(time.RFC3339))
}

// stdoutStopped completes the error of a write to standard output that
// stopped: what went out cannot be taken back, so the complete documents
// buffered before the stop go out too, and the message says how many.
func stdoutStopped(w *fixtures.Writer, opts fixtures.Options, err error) error {
	var we *mongowrite.WriteError
	if !errors.As(err, &we) {
		return err
	}
	if ferr := w.Flush(); ferr != nil {
		return failuref("interrupted after %d of %d documents of %s; writing to standard output: %v", we.Written, we.Total, we.Collection, ferr)
	}
	unclosed := ""
	if opts.Layout == fixtures.Array {
		unclosed = " (the JSON array is not closed)"
	}
	return failuref("interrupted after %d of %d documents of %s: %d complete documents went to standard output%s", we.Written, we.Total, we.Collection, w.Count(), unclosed)
}

// writeCollection streams the documents of part p of col into w, in order,
// showing progress on stderr when progress is set (not when the documents
// go to the terminal that would show it).
func (a *App) writeCollection(ctx context.Context, c *ucli.Context, w *fixtures.Writer, col *seed.Collection, p seed.Part, progress, toFile bool) error {
	var report func(written, total int64)
	if progress {
		r := p.Range(col.Len())
		bar := a.newProgress(c, col.Name(), r.Len())
		defer bar.Finish()
		report = func(written, total int64) {
			bar.SetTotal(total)
			bar.Set(written)
		}
	}
	// A file no server could load is refused here rather than by load.
	s := col.Stream(ctx, seed.StreamOptions{Ranges: []seed.Range{p.Range(col.Len())}, Check: rules.MongoDB.Check})
	defer s.Close()
	_, err := fixtures.WriteStream(w, col.Name(), s, report)
	var we *mongowrite.WriteError
	if !errors.As(err, &we) {
		return err
	}
	if errors.Is(we.Err, context.Canceled) && !toFile {
		return we // stdoutStopped says what went out
	}
	var de *seed.DocError
	var v *rules.Violation
	switch {
	case errors.As(we.Err, &v) && errors.As(we.Err, &de):
		return usageErrorf("%s document %d: %v; expected documents every MongoDB server can store; no file was written", we.Collection, de.Index, v)
	case errors.Is(we.Err, context.Canceled):
		return failuref("interrupted after %d of %d documents of %s; no file was written", we.Written, we.Total, we.Collection)
	case errors.As(we.Err, &de):
		return failuref("%v", de)
	case we.Doc != nil:
		return failuref("%s document %d: %v", we.Collection, we.Doc.Index, we.Err)
	case ctx.Err() != nil:
		return failure(we.Err)
	}
	return failuref("writing %s: %v", we.Collection, we.Err)
}

// removeAll removes the files named (empty names are skipped).
func removeAll(paths []string) {
	for _, p := range paths {
		if p != "" {
			_ = os.Remove(p)
		}
	}
}
