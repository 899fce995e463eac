package cli

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/internal/message"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/verify"
)

// settingsUsage is planUsage of the error of the plan flags that err, a
// *run.StepError of StepSettings, carries; any other error is returned as
// it is.
func settingsUsage(err error) error {
	if se, ok := err.(*run.StepError); ok && se.Step == run.StepSettings {
		return planUsage(se.Err)
	}
	return err
}

// planUsage is bad usage for an error of the plan flags, naming the flag
// (planFlagError); an error that has its exit code keeps it.
func planUsage(err error) error {
	if _, coded := codeOf(err); err == nil || coded {
		return err
	}
	return usageError(planFlagError(err))
}

// otherRunError is bad usage for a --resume that would make other
// documents than the run resumed: flags that describe another collection
// or name another value (the flag and both values), or stored documents
// its references drew from that changed since.
func otherRunError(s run.Settings, e *run.OtherRunError) error {
	d := e.Diff
	switch {
	case d == nil:
		return usageErrorf("%s.%s: the flags describe no such collection; leave them out to resume or verify the run written there", e.DB, e.Collection)
	case d.Field == seed.SettingStored:
		return usageErrorf("%s: %v; nothing was written", arg(flagResume), e)
	}
	flag := diffFlag(s, d)
	where := e.DB + "." + e.Collection
	if d.Collection != "" && d.Collection != e.Collection {
		where += " (its plan's collection " + d.Collection + ")"
	}
	leave := flag
	if flag == arg(flagRef) {
		// Left out, a --ref makes a reference to a generated collection.
		leave = "the generation flags"
	}
	return usageErrorf("%s %s: the run in %s was written with %s %s; leave %s out to resume that run, or use %s to start over", flag, d.New, where, flag, d.Old, leave, arg(flagDrop))
}

// diffFlag is the flag behind a difference between a run and the flags:
// the setting's own, but with --plan the plan's (a --n given apart), and
// the template's for a kind that --template replaced.
func diffFlag(s run.Settings, d *seed.PlanDiff) string {
	f := d.Field
	switch {
	case f == seed.SettingSeed || f == seed.SettingAt || f == seed.SettingSpan:
	case s.Options.Plan != "" && (f != seed.SettingCount || !s.Given(f)):
		f = seed.SettingFile
	case f == seed.SettingKind && s.Given(seed.SettingTemplate):
		f = seed.SettingTemplate
	}
	return arg(settingFlag(f))
}

// manifestWording words what run.Resume (what is flagResume) or
// run.Expected (what is "verify db") returned: a missing manifest is bad
// usage (exit 2) saying what to give instead, a run that cannot be rebuilt
// bad input, one written in other parts says how it is resumed or checked,
// and any other error reading one is a failure.
func manifestWording(ctx context.Context, what string) wording {
	return func(err error, lib exitCoder) error {
		se, step := lib.(*run.StepError)
		switch e := lib.(type) {
		case *run.PartMismatchError:
			// Each part has its manifest and its worker: one process must
			// not take another's part.
			return fmt.Errorf("%s: %s.%s was written in %d parts: expected %s I/N with it, one part per process", arg(flagResume), e.DB, e.Collection, e.Parts, arg(flagPart))
		case *run.PartsError:
			return partsWording(err, lib)
		}
		switch {
		case step && se.Step == run.StepExpect:
			return expectError(ctx, se.Err)
		case errors.Is(err, mongowrite.ErrNoManifest):
			return usageErrorf("%s: %v (collection %s); %s", flagOrCommand(what), err, mongowrite.ManifestCollection, manifestHint(what))
		case step && se.Step == run.StepPlan:
			if pe, ok := libError(se.Err).(*seed.PlanError); ok && pe.Setting == seed.SettingFormat {
				return fmt.Errorf("%v (seed the collection again with %s, or use that version)", se.Err, arg(flagDrop))
			}
			return se.Err
		}
		return failuref("%s: %w", flagOrCommand(what), err)
	}
}

func flagOrCommand(what string) string {
	if what == flagResume {
		return arg(flagResume)
	}
	return what
}

func manifestHint(what string) string {
	if what == flagResume {
		return fmt.Sprintf("expected %s and %s of an earlier seed, or its flags with %s", arg(flagDB), arg(flagCollection), arg(flagSeed))
	}
	return fmt.Sprintf("expected %s S (the seed the data was written with) and the flags given to seed, or %s FILE", arg(flagSeed), arg(flagFixture))
}

// expectError is the CLI's error for what verify db cannot expect: bad
// usage, but a failure when the run was interrupted.
func expectError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return failuref("verify db: %w", err)
	}
	return usageErrorf("verify db: %v", err)
}

// partsWording says which parts of a run written in parts are not done (a
// *run.PartsError, exit 1), and how to finish or check them.
func partsWording(_ error, lib exitCoder) error {
	if pe, ok := lib.(*run.PartsError); ok {
		return fmt.Errorf("verify db: %v; finish them (seed %s I/N %s) or check one part with %s I/N", pe, arg(flagPart), arg(flagResume), arg(flagPart))
	}
	return nil
}

// expectFromManifest is what verify db expects when no generation flag is
// given: the run the manifests of --db describe, that part of it. A run
// written in parts is checked whole only once every part is done.
func expectFromManifest(ctx context.Context, o verifyDBOptions, db *mongo.Database) (verify.ExpectedSet, error) {
	var names []string
	if o.collection != "" {
		names = []string{o.collection}
	}
	set, err := run.Expected(ctx, db, o.part, names...)
	if err != nil {
		return set, explain(err, manifestWording(ctx, "verify db"))
	}
	return set, nil
}

// flagsAgainstManifests holds the dataset ds the generation flags describe
// against the run manifests of db (run.Against), so that verify db says
// with flags what it says without them. A collection whose manifests all
// describe another run gets a note naming the first setting that differs.
// When the manifests cannot be read, a warning says so and the flags alone
// count.
func (a *App) flagsAgainstManifests(ctx context.Context, o verifyDBOptions, db *mongo.Database, ds *seed.Dataset) error {
	others, unread, err := run.Against(ctx, db, ds, o.part)
	if unread != nil { // the flags alone still say what to expect
		a.say(message.Warning, "verify db: %v; checking against the flags alone, without the parts the manifests record", unread)
		return nil
	}
	for _, r := range others {
		a.say(message.Note, "%s", otherRunNote(func(d *seed.PlanDiff) string { return diffFlag(o.flags, d) }, r))
	}
	return explain(err, partsWording)
}

// otherRunNote says that the manifests r of a collection describe another
// run than the flags' one, and in which setting.
func otherRunNote(flagOf func(*seed.PlanDiff) string, r run.OtherRun) string {
	m, d := r.Manifests[0], r.Diff
	setting := flagOf(d)
	if d.Field == seed.SettingFormat {
		setting = "document format"
	}
	where := r.DB + "." + m.Collection
	if d.Collection != "" && d.Collection != m.Collection {
		setting += " of its plan's collection " + d.Collection
	}
	what := "run manifest"
	if !m.Part.Whole() {
		what = fmt.Sprintf("run manifests (in %d parts)", m.Part.N)
	}
	return fmt.Sprintf("%s holds the %s of another run, written with %s %s where the flags give %s %s; checked against the flags alone (leave them out to verify that run)",
		where, what, setting, d.Old, setting, d.New)
}
