package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/internal/count"
	"github.com/oidkit/oidkit/internal/progress"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/verify"
)

func (a *App) verifyDBCommand() *ucli.Command {
	flags := append(connFlags(), planFlags()...)
	flags = append(flags,
		refFlag(),
		&ucli.StringSliceFlag{Name: flagFixture, Usage: "expect the documents of this fixture `FILE` (NDJSON or array Extended JSON) instead of generating them; repeatable"},
		count.NewFlag(flagOrderLimit, 100_000, "ignored, kept so that existing scripts still run: on a server that sorts in memory the _id order is now checked on the client, on the one read, for collections of any size"),
		partFlag("check only one part of the dataset (the other parts' documents are left out)"),
		inexactFlag(),
		jsonFlag("print the report as one JSON object"),
		quietFlag("no progress on stderr"),
	)
	return &ucli.Command{
		Name:      "db",
		Usage:     "compare what a collection holds with what it should hold, byte for byte",
		UsageText: "oidkit verify db [--uri URI] --seed S [the flags given to seed] | --fixture FILE [--collection C] [--json]",
		Description: "Rebuilds the documents a seeded run wrote (the same --seed, --kind/--template/--plan,\n" +
			"-n, --id, --at and --span as seed) or reads them from --fixture files (each into the\n" +
			"collection named after the file, as load does), reads the collection, and checks:\n" +
			"the count, missing and unexpected _ids, documents copied under another _id, every\n" +
			"document equal as BSON to the expected one (a difference names the field and both\n" +
			"values), the _id type, ObjectID timestamps against createdAt, the time window and the\n" +
			"driver, the sorted _id order, the timestamp computed by the server ($toDate) and plan\n" +
			"references. Memory does not grow with the documents (a few bytes per _id).\n" +
			"Exit 1 on any mismatch, 2 on bad flags.",
		Flags:  flags,
		Action: a.runVerifyDB,
	}
}

// generationFlags are the plan flags that make no sense with --fixture, and
// that need --seed without it (flagRules).
var generationFlags = []string{flagSeed, flagKind, flagTemplate, flagPlan, flagCount, flagID, flagIDStart, flagAt, flagSpan, flagRef}

// verifyDBOptions are the flags of verify db, read once.
type verifyDBOptions struct {
	part       parts.Part
	fixtures   []string
	inexact    bool // --inexact-numbers: read the files as load --inexact-numbers stored them
	collection string
	json       bool
	quiet      bool
	// flagged is the dataset the generation flags describe, nil without
	// them.
	flagged *seed.Dataset
	db      string
	flags   run.Settings
}

// parseVerifyDBOptions reads verify db's flags and checks their rules.
func parseVerifyDBOptions(c *ucli.Context) (verifyDBOptions, error) {
	o := verifyDBOptions{fixtures: c.StringSlice(flagFixture), collection: c.String(flagCollection), json: c.Bool(flagJSON), quiet: c.Bool(flagQuiet), inexact: c.Bool(flagInexact)}
	o.db, o.flags = c.String(flagDB), run.NewSettings(planOptions(c))
	if c.NArg() > 0 {
		return o, usageErrorf("verify db: unexpected argument %q; fixture files are given with %s FILE", c.Args().First(), arg(flagFixture))
	}
	if c.Int64(flagOrderLimit) < 1 {
		return o, usageErrorf("%s %d: expected a positive number of documents", arg(flagOrderLimit), c.Int64(flagOrderLimit))
	}
	part, err := partFromFlags(c)
	if err != nil {
		return o, err
	}
	o.part = part
	switch {
	case len(o.fixtures) > 0:
		if !part.Whole() {
			return o, usageErrorf("%s with %s: a part is a range of generated documents; give each part's file with %s instead", arg(flagPart), arg(flagFixture), arg(flagFixture))
		}
	case o.flags.Stored(): // built once the target's _ids can be read
	case o.flags.Any(): // with --seed: flagRules
		if o.flagged, err = o.flags.Dataset(); err != nil {
			return o, settingsUsage(err)
		}
	}
	return o, nil
}

func (a *App) runVerifyDB(c *ucli.Context) error {
	o, err := parseVerifyDBOptions(c)
	if err != nil {
		return err
	}
	ctx := c.Context
	var set verify.ExpectedSet
	switch {
	case len(o.fixtures) > 0:
		if set.Verify, err = expectFixtures(ctx, o); err != nil {
			return err
		}
	case o.flagged != nil:
		if set, err = run.ExpectDataset(ctx, o.flagged, o.part); err != nil {
			return expectError(ctx, err)
		}
	}
	t, err := a.openTarget(ctx, targetOptions(c, true))
	if err != nil {
		return err
	}
	defer t.Close()
	if o.flags.Stored() {
		if o.flagged, err = storedDataset(ctx, o, t.Client); err != nil {
			return err
		}
		if set, err = run.ExpectDataset(ctx, o.flagged, o.part); err != nil {
			return expectError(ctx, err)
		}
	}
	switch {
	case set.Verify == nil: // no flags said what to expect: the run manifest does
		if set, err = expectFromManifest(ctx, o, t.Client.Database(o.db)); err != nil {
			return err
		}
	case o.flagged != nil: // the manifests of the flags' run still say which parts ran
		if err := a.flagsAgainstManifests(ctx, o, t.Client.Database(o.flagged.DB), o.flagged); err != nil {
			return err
		}
	}
	profile, _ := t.Profile(ctx) // when the server cannot be asked, it is read as MongoDB
	opts := verify.DBOptions{Profile: profile}
	p := progress.NewPhases(func(label string, total int64) *progress.Meter { return a.newProgress(c.Bool(flagQuiet), label, total) }, time.Now)
	if !o.quiet {
		opts.Progress = func(s verify.DBProgress) { p.Update("verify "+s.Collection+": "+s.Phase, s.Done, s.Total) }
	}
	rep, err := verify.VerifyDB(ctx, t.Client, set, opts)
	p.Finish()
	if err != nil {
		if namesFile(err) {
			return usageErrorf("%s %v", arg(flagFixture), err)
		}
		return failuref("verify db on %s: %w", t.Display, err)
	}
	return a.renderVerifyDB(rep, o, t.Display)
}

// renderVerifyDB prints the report, and fails (exit 1) when a property
// failed.
func (a *App) renderVerifyDB(rep *verify.Report, o verifyDBOptions, display string) error {
	var err error
	if o.json {
		err = rep.WriteJSON(a.stdout)
	} else {
		err = rep.WriteTable(a.stdout)
	}
	if err != nil {
		return failuref("verify db: writing the report: %w", err)
	}
	if !rep.OK() {
		failed := 0
		for _, r := range rep.Rows {
			if r.Result() == verify.StatusFail {
				failed++
			}
		}
		return failuref("verify db: %d of %d properties failed on %s (see the report)", failed, len(rep.Rows), display)
	}
	return nil
}

// expectFixtures is what the fixture files say the database holds
// (verify.ExpectFixtureSet), its errors bad usage naming --fixture.
func expectFixtures(ctx context.Context, o verifyDBOptions) ([]*verify.Expected, error) {
	if err := rules.CheckDatabaseName(o.db); err != nil {
		return nil, usageErrorf("%s: %v", arg(flagDB), err)
	}
	if o.collection != "" {
		if err := rules.CheckCollectionName(o.collection); err != nil {
			return nil, usageErrorf("%s %q: %v", arg(flagCollection), o.collection, err)
		}
	}
	set, err := verify.ExpectFixtureSet(ctx, o.db, o.fixtures, verify.FixtureSetOptions{Collection: o.collection, FixtureOptions: verify.FixtureOptions{InexactNumbers: o.inexact}})
	if err != nil {
		return nil, explain(err, fixtureWording)
	}
	return set, nil
}

// fixtureWording words what the fixture files of --fixture cannot say
// (bad usage): a message that begins with the file, as given, follows the
// flag, any other (a sidecar's) a colon.
func fixtureWording(err error, lib exitCoder) error {
	switch e := lib.(type) {
	case *fixtures.SetError:
		switch e.Op {
		case fixtures.OpSidecars:
			return usageErrorf("%s: %v", arg(flagFixture), err)
		case fixtures.OpStat:
			return usageErrorf("%s %q: %v", arg(flagFixture), e.Path, errors.Unwrap(e.Err))
		case fixtures.OpName:
			return usageErrorf("%s %q: collection name from the file name: %v; expected %s", arg(flagFixture), e.Path, e.Err, arg(flagCollection))
		}
		return usageErrorf("%s %q: %v", arg(flagFixture), e.Path, e.Err)
	default:
		if namesFile(err) {
			return usageErrorf("%s %v", arg(flagFixture), err)
		}
	}
	return usageErrorf("%s: %v", arg(flagFixture), err)
}

// namesFile tells whether err begins with the fixture file it is about: a
// bad document (a *fixtures.LineError) or a file that cannot be read.
func namesFile(err error) bool {
	if _, bad := libError(err).(*fixtures.LineError); bad {
		return true
	}
	var pe *fs.PathError
	return errors.As(err, &pe)
}

// storedDataset is the dataset the flags describe, its stored references
// (--ref) drawn from the _ids db holds now, as seed drew them: a reference
// with nothing to draw from is bad usage naming its --ref.
func storedDataset(ctx context.Context, o verifyDBOptions, client *mongo.Client) (*seed.Dataset, error) {
	p, err := o.flags.Plan()
	if err != nil {
		return nil, planUsage(err)
	}
	ds, err := o.flags.StoredDataset(ctx, client.Database(p.DB))
	if err != nil {
		return nil, explain(err, func(err error, lib exitCoder) error {
			switch e := lib.(type) {
			case *seed.StoredRefError:
				return storedRefMessage(e, o.flags.Options.Refs, arg(flagPlan), "the documents seed wrote cannot be rebuilt")
			case *mongowrite.CollectionError: // the _ids could not be read
				return fmt.Errorf("verify db: %w", err)
			}
			return planUsage(err)
		})
	}
	return ds, nil
}
