package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/seed"
)

func (a *App) seedCommand() *ucli.Command {
	flags := append(connFlags(), planFlags()...)
	flags = append(flags,
		&ucli.IntFlag{Name: "batch", Value: seed.DefaultBatch, Usage: "documents per bulk insert"},
		&ucli.IntFlag{Name: "workers", DefaultText: "1 into the embedded server or any FerretDB, 4 otherwise", Usage: "concurrent inserters (the embedded server's SQLite backend writes one batch at a time)"},
		&ucli.BoolFlag{Name: "drop", Usage: "drop each collection before writing it"},
		&ucli.BoolFlag{Name: "resume", Usage: "insert only what is missing after an interrupted run (needs --seed)"},
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar"},
	)
	return &ucli.Command{
		Name:      "seed",
		Usage:     "fill a database with realistic mock documents",
		UsageText: "oidkit seed [--uri URI] [--kind user|employee|product|order | --template FILE | --plan FILE|shop] [-n N] [--id objectid|int|uuid|field:NAME] [--seed S] ...",
		Description: "With no --uri the documents go to the embedded server (data under --data-dir).\n" +
			"With --seed the documents and IDs are identical on every run; the time base is\n" +
			"2024-01-01T00:00:00Z unless --at is given, and --span spreads the timestamps over\n" +
			"the window ending there. A summary is printed at the end; a progress bar is shown\n" +
			"on stderr when it is a terminal.",
		Flags:  flags,
		Action: a.runSeed,
	}
}

func (a *App) runSeed(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("seed: unexpected argument %q; see oidkit seed --help", c.Args().First())
	}
	ds, err := datasetFromFlags(c)
	if err != nil {
		return err
	}
	batch, workers := c.Int("batch"), c.Int("workers")
	if batch < 1 || batch > 100000 {
		return usageErrorf("--batch %d: expected 1 to 100000", batch)
	}
	if c.IsSet("workers") && (workers < 1 || workers > 64) {
		return usageErrorf("--workers %d: expected 1 to 64", workers)
	}
	if c.Bool("resume") && !ds.Seeded {
		return usageErrorf("--resume: expected --seed too (only a seeded run can be resumed: without a seed every run makes different documents)")
	}
	if c.Bool("resume") && c.Bool("drop") {
		return usageErrorf("--resume with --drop: expected one of them (--drop would delete what --resume keeps)")
	}

	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	t, err := openTarget(ctx, c)
	if err != nil {
		return err
	}
	defer t.Close()
	db := t.Client.Database(ds.DB)
	if !c.IsSet("workers") {
		// FerretDB's SQLite backend writes one batch at a time: more inserters
		// only queue behind it, and a queued batch can outlast --timeout.
		workers = 4
		if t.Embedded || t.IsFerretDB(ctx) {
			workers = 1
		}
	}

	showProgress := !c.Bool("quiet") && isTerminal(a.stderr)
	var total seed.InsertResult
	start := time.Now()
	written := ds.Written()
	for _, col := range written {
		coll := db.Collection(col.Name())
		if c.Bool("drop") {
			if err := coll.Drop(ctx); err != nil {
				return failure(fmt.Errorf("drop %s.%s on %s: %w", ds.DB, col.Name(), t.Display, err))
			}
		}
		opts := seed.InsertOptions{Batch: batch, Workers: workers, Resume: c.Bool("resume")}
		var bar *progressBar
		if showProgress {
			bar = &progressBar{w: a.stderr, label: col.Name()}
			opts.Progress = bar.update
		}
		res, err := seed.Insert(ctx, coll, col, opts)
		if bar != nil {
			bar.finish()
		}
		total.Inserted += res.Inserted
		total.Skipped += res.Skipped
		fmt.Fprintf(a.stdout, "%s.%s: %s\n", ds.DB, col.Name(), summary(res.Inserted, res.Skipped, res.Elapsed))
		if err != nil {
			var we *seed.WriteError
			if errors.As(err, &we) {
				return failure(fmt.Errorf("%s.%s on %s: inserted %d of %d; re-run with --resume: %s", ds.DB, col.Name(), t.Display, we.Written, we.Total, describeStop(we)))
			}
			return failure(fmt.Errorf("%s.%s on %s: %w", ds.DB, col.Name(), t.Display, err))
		}
	}
	total.Elapsed = time.Since(start)
	if len(written) > 1 {
		fmt.Fprintf(a.stdout, "total: %s\n", summary(total.Inserted, total.Skipped, total.Elapsed))
	}
	seedNote := fmt.Sprintf("seed %d", ds.Seed)
	if !ds.Seeded {
		seedNote = "unseeded"
	}
	fmt.Fprintf(a.stdout, "into %s (database %s; %s, time base %s)\n", t.Display, ds.DB, seedNote, ds.Base.Format(time.RFC3339))
	return nil
}

// describeStop is why a write stopped: the refused document, if any, and
// the cause.
func describeStop(we *seed.WriteError) string {
	if we.Doc != nil {
		return we.Doc.String() + ": " + describeWriteError(we.Err)
	}
	return describeWriteError(we.Err)
}

func describeWriteError(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out: " + err.Error()
	}
	return err.Error()
}

func summary(inserted, skipped int64, elapsed time.Duration) string {
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(inserted+skipped) / s
	}
	return fmt.Sprintf("inserted %d, skipped %d (already there), %s, %.0f docs/s",
		inserted, skipped, elapsed.Round(time.Millisecond), rate)
}
