package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/internal/progress"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
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

// fixturesOptions is what the flags of oidkit fixtures ask for.
type fixturesOptions struct {
	write    fixtures.Options
	part     parts.Part
	ds       *seed.Dataset
	out      string // "" for standard output
	dir      bool   // out is a directory, one file per collection
	progress func(label string, total int64) *progress.Meter
}

// fixturesOptionsFrom reads the flags of oidkit fixtures and checks their
// rules: where each collection goes is decided here, before anything is
// written.
func (a *App) fixturesOptionsFrom(c *ucli.Context) (o fixturesOptions, err error) {
	if c.NArg() > 0 {
		return o, usageErrorf("fixtures: unexpected argument %q; see oidkit fixtures --help", c.Args().First())
	}
	if o.write, err = writeOptions(c.String(flagMode), c.Bool(flagArray)); err != nil {
		return o, err
	}
	o.progress = func(label string, total int64) *progress.Meter { return a.newProgress(c.Bool(flagQuiet), label, total) }
	if o.part, err = partFromFlags(c); err != nil {
		return o, err
	}
	if o.ds, err = datasetFrom(planOptions(c)); err != nil {
		return o, err
	}
	if !o.part.Whole() && !o.ds.Seeded {
		return o, usageErrorf("%s %s without %s: expected %s S, the same in every part (each part would draw its own)", arg(flagPart), o.part, arg(flagSeed), arg(flagSeed))
	}
	o.out = c.String(flagOut)
	if c.IsSet(flagOut) && strings.TrimSpace(o.out) == "" {
		// --out "$UNSET" would otherwise pour the documents onto the terminal.
		return o, usageErrorf("%s %q: expected a file or directory name (leave %[1]s out for standard output)", arg(flagOut), o.out)
	}
	plan := c.String(flagPlan)
	if plan != "" && o.out == "" {
		return o, usageErrorf("%s %q writes one file per collection: expected %s DIR", arg(flagPlan), plan, arg(flagOut))
	}
	return o, o.where(plan != "")
}

// where decides whether out is a directory (with --plan, or when it names
// an existing directory) or the one file.
func (o *fixturesOptions) where(plan bool) error {
	n := len(o.ds.Written())
	if o.out == "" {
		if n != 1 {
			return usageErrorf("%d collections to write: expected %s DIR", n, arg(flagOut))
		}
		return nil
	}
	fi, statErr := os.Stat(o.out)
	o.dir = plan || (statErr == nil && fi.IsDir())
	switch {
	case o.dir && statErr == nil && !fi.IsDir():
		return usageErrorf("%s %q: expected a directory for %s, found a file", arg(flagOut), o.out, arg(flagPlan))
	case !o.dir && n != 1:
		return usageErrorf("%s %q: %d collections to write: expected a directory", arg(flagOut), o.out, n)
	}
	return nil
}

func (a *App) runFixtures(c *ucli.Context) error {
	o, err := a.fixturesOptionsFrom(c)
	if err != nil {
		return err
	}
	if o.out == "" {
		return a.fixturesToStdout(c.Context, o)
	}
	wo := fixtures.WriteFilesOptions{Collections: o.ds.Written(), Part: o.part, Write: o.write, File: o.out, Progress: o.barOf}
	if o.dir {
		wo.Dir, wo.File = o.out, ""
	}
	start := time.Now()
	res, err := fixtures.WriteFiles(c.Context, wo)
	if err != nil {
		return explain(err, o.filesWording(c.Context, nil))
	}
	elapsed := time.Since(start)
	var total int64
	for _, f := range res.Files {
		total += f.Documents
		fmt.Fprintf(a.stdout, "%s: %s (%s)\n", f.Path, mongowrite.Documents(f.Documents), describeLayout(o.write))
		if f.Sidecar != "" {
			fmt.Fprintf(a.stdout, "%s: %s\n", f.Sidecar, indexNote(f.Indexes))
		}
	}
	fmt.Fprintf(a.stdout, "wrote %s in %s (%s)\n", mongowrite.Documents(total), elapsed.Round(time.Millisecond), o.ds.SeedNote())
	return nil
}

// barOf is the progress of one collection, as fixtures.WriteFiles asks.
func (o fixturesOptions) barOf(name string, total int64) (func(written, total int64), func()) {
	bar := o.progress(name, total)
	return func(written, total int64) {
		bar.SetTotal(total)
		bar.Set(written)
	}, bar.Finish
}

// filesWording words what fixtures.WriteFiles or WritePart returned: the
// --out it could not write, or the collection whose writing stopped. w is
// the writer of standard output, nil for files.
func (o fixturesOptions) filesWording(ctx context.Context, w *fixtures.Writer) wording {
	return func(err error, lib exitCoder) error {
		switch e := lib.(type) {
		case *rules.NameError:
			return fmt.Errorf("%s %q: %v; nothing was written", arg(flagOut), o.out, err)
		case *fixtures.CreateError:
			if !e.Sidecar { // a sidecar's names its path
				return fmt.Errorf("%s %q: %v", arg(flagOut), o.out, e.Err)
			}
		case *mongowrite.WriteError:
			if w != nil && errors.Is(e.Err, context.Canceled) {
				return stdoutStopped(w, e)
			}
			return writeStopped(ctx, e)
		}
		return nil
	}
}

// stdoutStopped says how much of an interrupted write went out to
// standard output: what went out cannot be taken back.
func stdoutStopped(w *fixtures.Writer, we *mongowrite.WriteError) error {
	note, ferr := w.StopNote()
	if ferr != nil {
		return failuref("interrupted after %s of %s; %s", we.Reached(), we.Collection, note)
	}
	return failuref("interrupted after %s of %s: %s", we.Reached(), we.Collection, note)
}

// fixturesToStdout writes the one collection to standard output, with
// progress on stderr unless the documents go to the terminal that would
// show it.
func (a *App) fixturesToStdout(ctx context.Context, o fixturesOptions) error {
	w := fixtures.NewWriter(a.stdout, o.write)
	var report func(written, total int64)
	done := func() {}
	col := o.ds.Written()[0]
	if !progress.IsTerminal(a.stdout) {
		report, done = o.barOf(col.Name(), o.part.Range(col.Len()).Len())
	}
	_, err := fixtures.WritePart(ctx, w, col, o.part, report)
	done()
	if err != nil {
		return explain(err, o.filesWording(ctx, w))
	}
	if err := w.Close(); err != nil {
		return failuref("writing to standard output: %v", err)
	}
	return nil
}

func describeLayout(o fixtures.Options) string {
	if o.Layout == fixtures.Array {
		return o.Mode.String() + " Extended JSON, JSON array"
	}
	return o.Mode.String() + " Extended JSON, one document per line"
}

// writeStopped is the command's error for a collection whose writing
// stopped into a file (which was not written): a generated document the
// rules refuse is bad input, anything else a failure.
func writeStopped(ctx context.Context, we *mongowrite.WriteError) error {
	de, doc := libError(we.Err).(*parts.DocError)
	switch {
	case doc && de.Violation() != nil:
		return usageErrorf("%s document %d: %v; expected documents every MongoDB server can store; no file was written", we.Collection, de.Index, de.Violation())
	case errors.Is(we.Err, context.Canceled):
		return failuref("interrupted after %s of %s; no file was written", we.Reached(), we.Collection)
	case doc:
		return failuref("%v", de)
	case we.Doc != nil:
		return failuref("%s document %d: %v", we.Collection, we.Doc.Index, we.Err)
	case ctx.Err() != nil:
		return failure(we.Err)
	}
	return failuref("writing %s: %v", we.Collection, we.Err)
}

// writeOptions is how --mode and --array ask fixture files to be written.
func writeOptions(mode string, array bool) (fixtures.Options, error) {
	m, err := fixtures.ParseMode(mode)
	if err != nil {
		return fixtures.Options{}, usageErrorf("%s %q: expected relaxed or canonical", arg(flagMode), mode)
	}
	o := fixtures.Options{Mode: m}
	if array {
		o.Layout = fixtures.Array
	}
	return o, nil
}
