package cli

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

func (a *App) seedCommand() *ucli.Command {
	flags := append(connFlags(), planFlags()...)
	flags = append(flags,
		newCountFlag(flagBatch, seed.DefaultBatch, "documents per bulk insert"),
		&countFlagType{GenericFlag: ucli.GenericFlag{Name: flagWorkers, DefaultText: "1 into the embedded server or any FerretDB, 4 otherwise", Usage: "concurrent inserters (the embedded server's SQLite backend writes one batch at a time)"}},
		&ucli.BoolFlag{Name: flagDrop, Usage: "drop each collection before writing it"},
		&ucli.BoolFlag{Name: flagResume, Usage: "insert only what an earlier run did not finish, as its run manifest in the database says"},
		partFlag("write only one part of the dataset, beside the other parts' workers"),
		quietFlag("no progress on stderr"),
	)
	return &ucli.Command{
		Name:      "seed",
		Usage:     "fill a database with realistic mock documents",
		UsageText: "oidkit seed [--uri URI] [--kind user|employee|product|order | --template FILE | --plan FILE|shop] [-n N] [--id objectid|int|uuid|field:NAME] [--seed S] ...",
		Description: "With no --uri the documents go to the embedded server (data under --data-dir).\n" +
			"With --seed the documents and IDs are identical on every run; the time base is\n" +
			"2024-01-01T00:00:00Z unless --at is given, and --span spreads the timestamps over\n" +
			"the window ending there. Without --seed a seed is drawn and the time base is now;\n" +
			"the summary prints the --seed and --at that repeat the run. A run manifest in\n" +
			"collection " + seed.ManifestCollection + " of the database records the plan and the acknowledged\n" +
			"documents: --resume finishes the run from it, verify db checks against it. Every\n" +
			"document is checked against the target's rules before it is sent (with --drop,\n" +
			"before the drop). Progress goes to stderr: a bar on a terminal, else a line every " + progressEvery.String() + ".",
		Flags:  flags,
		Action: a.runSeed,
	}
}

func (a *App) runSeed(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("seed: unexpected argument %q; see oidkit seed --help", c.Args().First())
	}
	batch, workers := c.Int(flagBatch), c.Int(flagWorkers)
	if batch < 1 || batch > 100000 {
		return usageErrorf("%s %d: expected 1 to 100000", arg(flagBatch), batch)
	}
	if c.IsSet(flagWorkers) && (workers < 1 || workers > 64) {
		return usageErrorf("%s %d: expected 1 to 64", arg(flagWorkers), workers)
	}
	resume, drop := c.Bool(flagResume), c.Bool(flagDrop) // not both: flagRules
	part, err := partFromFlags(c)
	if err != nil {
		return err
	}
	if !part.Whole() {
		if drop {
			return usageErrorf("%s with %s %s: expected one of them (the drop would delete what the other parts write)", arg(flagDrop), arg(flagPart), part)
		}
		if !resume && !c.IsSet(flagSeed) {
			return usageErrorf("%s %s without %s: expected %s S, the same in every part (each part would draw its own)", arg(flagPart), part, arg(flagSeed), arg(flagSeed))
		}
	}
	var ds *seed.Dataset
	drawn := false
	if !resume {
		p, err := planFromFlags(c)
		if err != nil {
			return err
		}
		drawn = drawSeed(p)
		if ds, err = p.Build(); err != nil {
			return usageError(planFlagError(c, err))
		}
	}

	ctx := c.Context
	t, err := openTarget(ctx, c)
	if err != nil {
		return err
	}
	defer t.Close()
	earlier := map[string]*seed.Manifest{}
	if resume {
		if ds, earlier, err = resumeDataset(ctx, c, t.Client.Database(c.String(flagDB)), part); err != nil {
			return err
		}
	}
	db := t.Client.Database(ds.DB)
	profile, err := t.Profile(ctx)
	if err != nil {
		return failure(fmt.Errorf("%s: %w", t.Display, err))
	}
	if !c.IsSet(flagWorkers) {
		workers = seed.WorkersFor(profile)
	}
	written := ds.Written()
	if err := checkBeforeWriting(ctx, c, db, ds, written, profile, batch, part); err != nil {
		return err
	}

	var total seed.InsertResult
	start := time.Now()
	run := fmt.Sprintf("%s seed %d", time.Now().UTC().Format(time.RFC3339Nano), ds.Seed)
	if !part.Whole() {
		// The parts' processes name one run without talking to each other.
		run = fmt.Sprintf("seed %d in %d parts", ds.Seed, part.N)
	}
	for _, col := range written {
		coll := db.Collection(col.Name())
		if drop {
			if err := coll.Drop(ctx); err != nil {
				return failure(fmt.Errorf("drop %s.%s on %s: %w", ds.DB, col.Name(), t.Display, err))
			}
		}
		want := col.Spec().Indexes
		first, err := indexesFirst(ctx, coll, want)
		if err != nil {
			return failure(fmt.Errorf("%s.%s on %s: %w", ds.DB, col.Name(), t.Display, err))
		}
		if first {
			if err := indexes.Create(ctx, coll, want); err != nil {
				return indexError(ds.DB, col.Name(), err, "no document was inserted")
			}
		}
		w := &collWrite{db: db, coll: coll, col: col, m: earlier[col.Name()]}
		if w.m == nil {
			w.m = seed.NewManifest(ds, col, run)
			w.m.Part = part
		}
		opts := seed.InsertOptions{Batch: batch, Workers: workers, Resume: resume, Check: profile.Check}
		// The clock starts here, after the checks: the rate is the writing's.
		bar := a.newProgress(c, col.Name(), rangesLen(w.m.Missing()))
		opts.Progress = func(p seed.Progress) {
			bar.SetTotal(p.Total)
			bar.Set(p.Inserted + p.Skipped)
		}
		res, err := w.insert(ctx, opts)
		bar.Finish()
		if err != nil {
			held, ferr := w.explain(ctx, err, t.Display, resume)
			if held >= 0 {
				res.Inserted = max(held-res.Skipped, 0) // the count the error gives
			}
			fmt.Fprintf(a.stdout, "%s.%s%s: %s\n", ds.DB, col.Name(), partNote(part), summary(res.Inserted, res.Skipped, res.Elapsed))
			return ferr
		}
		total.Inserted += res.Inserted
		total.Skipped += res.Skipped
		if len(want) > 0 {
			// Also after a resumed or finished run: what a killed run did
			// not index is indexed now.
			if err := indexes.Create(ctx, coll, want); err != nil {
				fmt.Fprintf(a.stdout, "%s.%s%s: %s\n", ds.DB, col.Name(), partNote(part), summary(res.Inserted, res.Skipped, res.Elapsed))
				return indexError(ds.DB, col.Name(), err, fmt.Sprintf("the %d documents are written (re-run with %s to retry the indexes)", res.Inserted+res.Skipped, arg(flagResume)))
			}
		}
		fmt.Fprintf(a.stdout, "%s.%s%s: %s\n", ds.DB, col.Name(), partNote(part), summary(res.Inserted, res.Skipped, res.Elapsed))
		if len(want) > 0 {
			fmt.Fprintf(a.stdout, "%s.%s: %s\n", ds.DB, col.Name(), indexNote(want))
		}
	}
	total.Elapsed = time.Since(start)
	if len(written) > 1 {
		fmt.Fprintf(a.stdout, "total: %s\n", summary(total.Inserted, total.Skipped, total.Elapsed))
	}
	fmt.Fprintf(a.stdout, "into %s (database %s; %s)\n", t.Display, ds.DB, runNote(ds, drawn))
	return nil
}

// drawSeed makes a plan without a seed repeatable: it draws one and takes
// the current second as the time base, unless a template reads the clock
// (then no seed could repeat it). It reports whether it drew.
func drawSeed(p *seed.Plan) bool {
	if p.Seeded {
		return false
	}
	for _, cs := range p.Collections {
		if cs.Template != nil && cs.Template.ReadsClock() {
			return false
		}
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	p.Seed, p.Seeded = binary.LittleEndian.Uint64(b[:]), true
	if p.At.IsZero() {
		p.At = time.Now().UTC().Truncate(time.Second)
	}
	return true
}

// runNote says how to repeat the run: its seed and time base.
func runNote(ds *seed.Dataset, drawn bool) string {
	at := ds.Base.Format(time.RFC3339)
	switch {
	case !ds.Seeded:
		return "unseeded: a template reads the clock, so the run cannot be repeated or resumed; time base " + at
	case drawn:
		return fmt.Sprintf("seed %d (drawn), time base %s; --seed %d --at %s repeats this run", ds.Seed, at, ds.Seed, at)
	}
	return seedNote(ds)
}

// resumeDataset is the run --resume continues, from the run manifests, and
// the manifests by collection. Data an earlier oidkit wrote without a
// manifest is resumed from the flags (with --seed) as a whole.
func resumeDataset(ctx context.Context, c *ucli.Context, db *mongo.Database, part seed.Part) (*seed.Dataset, map[string]*seed.Manifest, error) {
	ms, err := selectManifests(ctx, c, db, part)
	if errors.Is(err, seed.ErrNoManifest) && c.IsSet(flagSeed) {
		ds, err := datasetFromFlags(c)
		return ds, map[string]*seed.Manifest{}, err
	}
	if err != nil {
		return nil, nil, manifestUsage(err, flagResume)
	}
	for _, m := range ms {
		if m.Part != part {
			// Each part has its manifest and its worker: one process must not
			// take another's part.
			return nil, nil, usageErrorf("%s: %s.%s was written in %d parts: expected %s I/N with it, one part per process", arg(flagResume), m.DB, m.Collection, m.Part.N, arg(flagPart))
		}
	}
	p, err := planFromManifests(c, ms)
	if err != nil {
		return nil, nil, err
	}
	ds, err := p.Build()
	if err != nil {
		return nil, nil, usageErrorf("%s: %v", arg(flagResume), err)
	}
	byName := map[string]*seed.Manifest{}
	for _, m := range ms {
		byName[m.Collection] = m
	}
	return ds, byName, nil
}

// describeStop is why a write stopped: the refused document, if any, and
// the cause.
func describeStop(we *mongowrite.WriteError) string {
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
	return mongowrite.ServerMessage(err.Error())
}

// rangesLen is the number of documents in rs.
func rangesLen(rs []seed.Range) int64 {
	var n int64
	for _, r := range rs {
		n += r.Len()
	}
	return n
}

func summary(inserted, skipped int64, elapsed time.Duration) string {
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(inserted+skipped) / s
	}
	return fmt.Sprintf("inserted %d, skipped %d (already there), %s, %.0f docs/s",
		inserted, skipped, elapsed.Round(time.Millisecond), rate)
}
