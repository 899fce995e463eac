package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v2"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/seed"
)

func (a *App) fixturesCommand() *ucli.Command {
	flags := append(planFlags(),
		&ucli.StringFlag{Name: "mode", Value: "relaxed", Usage: "Extended JSON mode: relaxed or canonical"},
		&ucli.BoolFlag{Name: "array", Usage: "write one JSON array (mongoimport --jsonArray) instead of one document per line"},
		&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output `FILE` (default: standard output); with --plan, a directory that gets one file per collection"},
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar"},
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
	mode, err := fixtures.ParseMode(c.String("mode"))
	if err != nil {
		return usageErrorf("--mode %q: expected relaxed or canonical", c.String("mode"))
	}
	opts := fixtures.Options{Mode: mode}
	if c.Bool("array") {
		opts.Layout = fixtures.Array
	}
	ds, err := datasetFromFlags(c)
	if err != nil {
		return err
	}
	cols := ds.Written()
	out := c.String("out")
	if c.IsSet("out") && strings.TrimSpace(out) == "" {
		// --out "$UNSET" would otherwise pour the documents onto the terminal.
		return usageErrorf("--out %q: expected a file or directory name (leave --out out for standard output)", out)
	}
	if c.String("plan") != "" && out == "" {
		return usageErrorf("--plan %q writes one file per collection: expected --out DIR", c.String("plan"))
	}

	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	showProgress := !c.Bool("quiet") && isTerminal(a.stderr)

	if out == "" {
		if len(cols) != 1 {
			return usageErrorf("%d collections to write: expected --out DIR", len(cols))
		}
		w := fixtures.NewWriter(a.stdout, opts)
		if err := a.writeCollection(ctx, w, cols[0], showProgress); err != nil {
			return err
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
	if c.String("plan") != "" || (statErr == nil && fi.IsDir()) {
		if statErr == nil && !fi.IsDir() {
			return usageErrorf("--out %q: expected a directory for --plan, found a file", out)
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return failuref("--out %q: %v", out, err)
		}
		for i, col := range cols {
			paths[i] = filepath.Join(out, col.Name()+opts.Layout.Ext())
		}
	} else {
		if len(cols) != 1 {
			return usageErrorf("--out %q: %d collections to write: expected a directory", out, len(cols))
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
			return usageErrorf("--out %q: %v", out, err)
		}
		files = append(files, f)
	}
	start := time.Now()
	for i, col := range cols {
		if err := a.writeCollection(ctx, files[i].Writer, col, showProgress); err != nil {
			return err
		}
	}
	for _, f := range files {
		if err := f.Commit(); err != nil {
			return failuref("%v", err)
		}
	}
	elapsed := time.Since(start)
	var total int64
	for i, f := range files {
		total += f.Count()
		fmt.Fprintf(a.stdout, "%s: %s (%s)\n", paths[i], docCount(f.Count()), describeLayout(opts))
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

// chunkDocs is how many documents a generator goroutine makes at a time.
const chunkDocs = 256

// writeCollection streams every document of col into w, in order. Documents
// are generated and marshaled by one goroutine per CPU, each taking every
// W-th chunk, and written by this one; at most two chunks per goroutine are
// held, so memory does not grow with the count.
func (a *App) writeCollection(ctx context.Context, w *fixtures.Writer, col *seed.Collection, progress bool) error {
	var bar *progressBar
	start := time.Now()
	if progress {
		bar = &progressBar{w: a.stderr, label: col.Name()}
		defer bar.finish()
	}
	n := col.Len()
	workers := int64(min(runtime.GOMAXPROCS(0), 8))
	if n < 2*chunkDocs {
		workers = 1
	}
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type chunk struct {
		docs []bson.Raw
		err  error
	}
	chans := make([]chan chunk, workers)
	for k := range workers {
		chans[k] = make(chan chunk, 2)
		go func() {
			defer close(chans[k])
			wk := col.NewWorker()
			for c := k; c*chunkDocs < n; c += workers {
				from, to := c*chunkDocs, min(n, (c+1)*chunkDocs)
				ch := chunk{docs: make([]bson.Raw, 0, to-from)}
				for i := from; i < to; i++ {
					raw, err := bson.Marshal(wk.Doc(i))
					if err != nil {
						ch.err = fmt.Errorf("document %d: %w", i, err)
						break
					}
					ch.docs = append(ch.docs, raw)
				}
				select {
				case chans[k] <- ch:
				case <-gctx.Done():
					return
				}
				if ch.err != nil {
					return
				}
			}
		}()
	}
	var done int64
	for c := int64(0); c*chunkDocs < n; c++ {
		if err := ctx.Err(); err != nil {
			if errors.Is(err, context.Canceled) {
				return failuref("interrupted after %d of %d documents of %s; no file was written", done, n, col.Name())
			}
			return failure(err)
		}
		if bar != nil {
			bar.update(seed.Progress{Total: n, Inserted: done, Elapsed: time.Since(start)})
		}
		ch, ok := <-chans[c%workers]
		if !ok {
			continue // cancelled: reported at the top of the loop
		}
		if ch.err != nil {
			return failuref("%s %v", col.Name(), ch.err)
		}
		for _, raw := range ch.docs {
			if err := w.Write(raw); err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) || errors.Is(err, io.ErrShortWrite) || errors.Is(err, syscall.EPIPE) {
					return failuref("writing %s: %v", col.Name(), err)
				}
				return failuref("%s document %d: %v", col.Name(), done, err)
			}
			done++
		}
	}
	if err := ctx.Err(); err != nil {
		return failuref("interrupted after %d of %d documents of %s; no file was written", done, n, col.Name())
	}
	if done != n {
		return failuref("%s: generated %d of %d documents", col.Name(), done, n)
	}
	return nil
}
