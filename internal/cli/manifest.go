package cli

import (
	"context"
	"errors"
	"fmt"

	ucli "github.com/urfave/cli/v2"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/verify"
)

// runFlags are the generation flags as given, read once: what seed
// --resume and verify db read a run manifest with, and check it against.
type runFlags struct {
	set        map[string]bool // which of generationFlags were given
	plan       string          // --plan
	collection string          // --collection
	count      int64
	id         string
	idStart    int64
	// parsed is planFromFlags, when a generation flag was given; parseErr
	// its error, raised only where the flags' plan is needed.
	parsed   *seed.Plan
	parseErr error
	// planError names the flag behind an error of the flags' plan.
	planError func(error) error
}

// readRunFlags reads the generation flags of c.
func readRunFlags(c *ucli.Context) runFlags {
	f := runFlags{set: map[string]bool{}, plan: c.String(flagPlan), collection: c.String(flagCollection), count: c.Int64(flagCount), id: c.String(flagID), idStart: c.Int64(flagIDStart)}
	for _, n := range generationFlags {
		f.set[n] = c.IsSet(n)
	}
	if f.any() {
		f.parsed, f.parseErr = planFromFlags(c)
	}
	f.planError = func(err error) error { return planFlagError(c, err) }
	return f
}

// any reports whether any flag that decides the documents was given;
// without one, seed --resume and verify db read the run manifest.
func (f runFlags) any() bool {
	for _, n := range generationFlags {
		if f.set[n] {
			return true
		}
	}
	return false
}

// names is the collections whose run manifests the flags name:
// --collection, else the written collections of --kind, --template or
// --plan, else none (every collection of the run that started last).
func (f runFlags) names() ([]string, error) {
	switch {
	case f.collection != "" && f.plan == "":
		return []string{f.collection}, nil
	case f.set[flagKind] || f.set[flagTemplate] || f.set[flagPlan]:
		if f.parseErr != nil {
			return nil, f.parseErr
		}
		var names []string
		for _, cs := range f.parsed.Collections {
			if !cs.RefOnly {
				names = append(names, cs.Name)
			}
		}
		return names, nil
	}
	return nil, nil
}

// overRun is p, the plan of the run m belongs to. Generation flags may be
// given, but only with the run's values: a flag that would make other
// documents is bad usage naming the flag and both values.
func (f runFlags) overRun(p *seed.Plan, m *seed.Manifest) (*seed.Plan, error) {
	if !f.any() {
		return p, nil
	}
	fp, err := f.plansOver(p, m.Collection)
	if err != nil {
		return nil, err
	}
	d, err := run.Compare(p, fp, m.DB, m.Collection)
	var se *run.StepError
	var nc *run.NoCollectionError
	switch {
	case errors.As(err, &se):
		return nil, usageError(f.planError(se.Err))
	case errors.As(err, &nc):
		return nil, usageErrorf("%s.%s: the flags describe no such collection; leave them out to resume or verify the run written there", m.DB, m.Collection)
	case err != nil:
		return nil, usageError(err)
	case d == nil:
		return p, nil
	}
	flag := f.diffFlag(d)
	where := m.DB + "." + m.Collection
	if d.Collection != "" && d.Collection != m.Collection {
		where += " (its plan's collection " + d.Collection + ")"
	}
	return nil, usageErrorf("%s %s: the run in %s was written with %s %s; leave %s out to resume that run, or use %s to start over", flag, d.New, where, flag, d.Old, flag, arg(flagDrop))
}

// plansOver is the plan the generation flags describe, with the settings
// of run for those not given.
func (f runFlags) plansOver(run *seed.Plan, coll string) (*seed.Plan, error) {
	var fp *seed.Plan
	if f.set[flagKind] || f.set[flagTemplate] || f.set[flagPlan] {
		if f.parseErr != nil {
			return nil, f.parseErr
		}
		cp := *f.parsed
		fp = &cp
	} else {
		cp, err := f.settingsOver(run, coll)
		if err != nil {
			return nil, err
		}
		fp = cp
	}
	if f.set[flagSeed] || f.set[flagAt] || f.set[flagSpan] {
		if f.parseErr != nil { // it parses and checks the three
			return nil, f.parseErr
		}
		if f.set[flagSeed] {
			fp.Seed, fp.Seeded = f.parsed.Seed, true
		}
		if f.set[flagAt] {
			fp.At = f.parsed.At
		}
		if f.set[flagSpan] {
			fp.Span = f.parsed.Span
		}
	}
	if !f.set[flagSeed] {
		fp.Seed, fp.Seeded = run.Seed, true
	}
	if !f.set[flagAt] {
		fp.At = run.At
	}
	if !f.set[flagSpan] {
		fp.Span = run.Span
	}
	return fp, nil
}

// settingsOver is a copy of run with -n, --id and --id-start, those
// given, applied to collection coll.
func (f runFlags) settingsOver(run *seed.Plan, coll string) (*seed.Plan, error) {
	cp := *run
	cp.Collections = append([]seed.CollectionSpec(nil), run.Collections...)
	for k := range cp.Collections {
		cs := &cp.Collections[k]
		if cs.Name != coll {
			continue
		}
		if f.set[flagCount] {
			cs.Count = f.count
		}
		if f.set[flagID] {
			id, err := seed.ParseIDStrategy(f.id)
			if err != nil {
				return nil, usageErrorf("%s %q: %v", arg(flagID), f.id, err)
			}
			cs.ID = id
		}
		if f.set[flagIDStart] {
			cs.IDStart = f.idStart
		}
	}
	return &cp, nil
}

// diffFlag is the flag behind a difference between a run and the flags.
// d.Field names a field of the plan, not a flag.
func (f runFlags) diffFlag(d *seed.PlanDiff) string {
	switch d.Field {
	case "seed":
		return arg(flagSeed)
	case "at":
		return arg(flagAt)
	case "span":
		return arg(flagSpan)
	}
	if f.plan != "" {
		if d.Field == "count" && f.set[flagCount] {
			return arg(flagCount)
		}
		return arg(flagPlan)
	}
	switch d.Field {
	case "count":
		return arg(flagCount)
	case "id":
		return arg(flagID)
	case "idStart":
		return arg(flagIDStart)
	case "template":
		return arg(flagTemplate)
	case "kind":
		if f.set[flagTemplate] {
			return arg(flagTemplate)
		}
		return arg(flagKind)
	}
	return arg(flagPlan)
}

// dataset is the flags' plan, built: bad usage naming the flag when it
// cannot be.
func (f runFlags) dataset() (*seed.Dataset, error) {
	if f.parseErr != nil {
		return nil, f.parseErr
	}
	ds, err := f.parsed.Build()
	if err != nil {
		return nil, usageError(f.planError(err))
	}
	return ds, nil
}

// manifestUsage turns a missing manifest into bad usage (exit 2), a run
// that cannot be rebuilt into bad usage too, and any other error reading
// one into a failure.
func manifestUsage(err error, what string) error {
	var ce *codedError
	var se *run.StepError
	switch {
	case errors.As(err, &ce):
		return err
	case errors.Is(err, seed.ErrNoManifest):
		return usageErrorf("%s: %v (collection %s); %s", flagOrCommand(what), err, seed.ManifestCollection, manifestHint(what))
	case errors.As(err, &se) && se.Step == run.StepPlan:
		var fe *seed.FormatError
		if errors.As(err, &fe) {
			return usageErrorf("%v (seed the collection again with %s, or use that version)", se.Err, arg(flagDrop))
		}
		return usageError(se.Err)
	}
	return failuref("%s: %w", flagOrCommand(what), err)
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

// partsError says which parts of a run written in parts are not done
// (exit 1), and how to finish or check them.
func partsError(err error) error {
	var pe *run.PartsError
	if !errors.As(err, &pe) {
		return err
	}
	return failuref("verify db: %v; finish them (seed %s I/N %s) or check one part with %s I/N", pe, arg(flagPart), arg(flagResume), arg(flagPart))
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
	var se *run.StepError
	switch {
	case err == nil:
		return set, nil
	case errors.As(err, &se) && se.Step == run.StepExpect:
		return set, expectError(ctx, se.Err)
	case errors.As(err, &se):
		return set, manifestUsage(err, "verify db")
	}
	return set, partsError(err)
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
		a.say(msgWarning, "verify db: %v; checking against the flags alone, without the parts the manifests record", unread)
		return nil
	}
	for _, r := range others {
		a.say(msgNote, "%s", otherRunNote(o.flags.diffFlag, r))
	}
	return partsError(err)
}

// otherRunNote says that the manifests r of a collection describe another
// run than the flags' one, and in which setting.
func otherRunNote(flagOf func(*seed.PlanDiff) string, r run.OtherRun) string {
	m, d := r.Manifests[0], r.Diff
	setting := flagOf(d)
	if d.Field == "format" {
		setting = "document format"
	}
	where := m.DB + "." + m.Collection
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
