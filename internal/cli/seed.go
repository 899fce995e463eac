package cli

import (
	"context"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/internal/count"
	"github.com/oidkit/oidkit/internal/progress"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/target"
)

func (a *App) seedCommand() *ucli.Command {
	flags := append(connFlags(), planFlags()...)
	flags = append(flags,
		count.NewFlag(flagBatch, mongowrite.DefaultBatch, "documents per bulk insert"),
		&count.Flag{GenericFlag: ucli.GenericFlag{Name: flagWorkers, DefaultText: fmt.Sprintf("%d, or %d into a server that writes one batch at a time", mongowrite.ConcurrentWriteWorkers, mongowrite.SerialWriteWorkers), Usage: "concurrent inserters"}},
		&ucli.BoolFlag{Name: flagDrop, Usage: "drop each collection before writing it"},
		refFlag(),
		&ucli.BoolFlag{Name: flagResume, Usage: "insert only what an earlier run did not finish, as its run manifest in the database says"},
		partFlag("write only one part of the dataset, beside the other parts' workers"),
		quietFlag("no progress on stderr"),
	)
	return &ucli.Command{
		Name:      "seed",
		Usage:     "fill a database with realistic mock documents",
		UsageText: "oidkit seed [--uri URI] [--kind user|employee|product|order | --template FILE | --plan FILE|shop] [-n N] [--id objectid|int|uuid|field:NAME | --id COLLECTION=STRATEGY] [--ref FIELD=COLLECTION] [--seed S] ...",
		Description: "With no --uri the documents go to the embedded server (data under --data-dir).\n" +
			"With --seed the documents and IDs are identical on every run; the time base is\n" +
			"2024-01-01T00:00:00Z unless --at is given, and --span spreads the timestamps over\n" +
			"the window ending there. Without --seed a seed is drawn and the time base is now;\n" +
			"the summary prints the --seed and --at that repeat the run. A run manifest in\n" +
			"collection " + mongowrite.ManifestCollection + " of the database records the plan and the acknowledged\n" +
			"documents: --resume finishes the run from it, verify db checks against it. Every\n" +
			"document is checked against the target's rules before it is sent (with --drop,\n" +
			"before the drop). Progress goes to stderr: a bar on a terminal, else a line every " + progress.Every.String() + ".",
		Flags:  flags,
		Action: a.runSeed,
	}
}

// seedOptions are the flags of seed, read once.
type seedOptions struct {
	batch, workers int
	workersSet     bool
	resume, drop   bool
	part           parts.Part
	db             string
	flags          run.Settings
}

// parseSeedOptions reads seed's flags and checks their rules.
func parseSeedOptions(c *ucli.Context) (seedOptions, error) {
	o := seedOptions{batch: c.Int(flagBatch), workers: c.Int(flagWorkers), workersSet: c.IsSet(flagWorkers), resume: c.Bool(flagResume), drop: c.Bool(flagDrop), db: c.String(flagDB)} // not both resume and drop: flagRules
	if c.NArg() > 0 {
		return o, usageErrorf("seed: unexpected argument %q; see oidkit seed --help", c.Args().First())
	}
	if err := mongowrite.CheckBatch(o.batch); err != nil {
		return o, usageErrorf("%s %v", arg(flagBatch), err)
	}
	if err := mongowrite.CheckWorkers(o.workers); o.workersSet && err != nil {
		return o, usageErrorf("%s %v", arg(flagWorkers), err)
	}
	o.flags = run.NewSettings(planOptions(c))
	part, err := partFromFlags(c)
	if err != nil {
		return o, err
	}
	o.part = part
	if !part.Whole() {
		if o.drop {
			return o, usageErrorf("%s with %s %s: expected one of them (the drop would delete what the other parts write)", arg(flagDrop), arg(flagPart), part)
		}
		if !o.resume && !c.IsSet(flagSeed) {
			return o, usageErrorf("%s %s without %s: expected %s S, the same in every part (each part would draw its own)", arg(flagPart), part, arg(flagSeed), arg(flagSeed))
		}
	}
	return o, nil
}

func (a *App) runSeed(c *ucli.Context) error {
	o, err := parseSeedOptions(c)
	if err != nil {
		return err
	}
	var t *target.Target
	defer func() {
		if t != nil {
			t.Close()
		}
	}()
	req := run.Request{Settings: o.flags, Options: run.Options{Part: o.part, Resume: o.resume, Drop: o.drop, Batch: o.batch, Workers: o.workers}}
	req.Open = func(ctx context.Context) (*mongo.Client, rules.Profile, error) {
		opened, err := a.openTarget(ctx, targetOptions(c, false))
		if err != nil {
			return nil, rules.Profile{}, err
		}
		t = opened
		p, err := t.Profile(ctx)
		if err != nil {
			return nil, p, failure(fmt.Errorf("%s: %w", t.Display, err))
		}
		return t.Client, p, nil
	}
	a.seedRendering(func(label string, total int64) *progress.Meter { return a.newProgress(c.Bool(flagQuiet), label, total) }, &req.Options)
	res, err := run.SeedSettings(c.Context, req)
	if err != nil {
		display := ""
		if t != nil {
			display = t.Display
		}
		return a.seedError(c.Context, o, display, err)
	}
	if len(res.Collections) > 1 {
		fmt.Fprintf(a.stdout, "total: %s\n", run.Summary(res.Inserted, res.Skipped, res.Earlier, res.Elapsed))
	}
	fmt.Fprintf(a.stdout, "into %s (database %s; %s)\n", t.Display, res.Dataset.DB, runNote(res.Dataset, res.Drawn))
	return nil
}

// seedError words what run.SeedSettings returned: a settings error names
// its flag, a resume's error says what to give instead, settings that
// describe another run say which flag, and the run's errors say how to go
// on (seedWording).
func (a *App) seedError(ctx context.Context, o seedOptions, display string, err error) error {
	switch e := err.(type) {
	case *run.StepError:
		switch e.Step {
		case run.StepSettings:
			return settingsUsage(e)
		case run.StepResume:
			return explain(e.Err, manifestWording(ctx, flagResume))
		}
	case *run.OtherRunError:
		return otherRunError(o.flags, e)
	}
	return explain(err, a.seedWording(o, display))
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
	return ds.SeedNote()
}

// storedRefMessage words a stored reference with nothing to draw from:
// it names the --ref of refs it comes from, else what, and says then what
// became of the run.
func storedRefMessage(sre *seed.StoredRefError, refs []string, what, then string) error {
	for _, r := range refs {
		if field, to, _ := seed.ParseRefSetting(r); field == sre.Field && to == sre.To {
			what = fmt.Sprintf("%s %q", arg(flagRef), r)
		}
	}
	return fmt.Errorf("%s: %v; %s", what, sre, then)
}
