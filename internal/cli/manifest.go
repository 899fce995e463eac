package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/verify"
)

// generationFlagsSet reports whether any flag that decides the documents
// was given; without one, seed --resume and verify db read the run manifest.
func generationFlagsSet(c *ucli.Context) bool {
	for _, f := range generationFlags {
		if c.IsSet(f) {
			return true
		}
	}
	return false
}

// selectManifests reads the run manifests of the collections the flags
// name: --collection, else the written collections of --kind, --template
// or --plan, else every collection of the run that started last in --db.
//
// With a part, only that part's manifests are read.
func selectManifests(ctx context.Context, c *ucli.Context, db *mongo.Database, part seed.Part) ([]*seed.Manifest, error) {
	var names []string
	switch {
	case c.String(flagCollection) != "" && c.String(flagPlan) == "":
		names = []string{c.String(flagCollection)}
	case c.IsSet(flagKind) || c.IsSet(flagTemplate) || c.IsSet(flagPlan):
		p, err := planFromFlags(c)
		if err != nil {
			return nil, err
		}
		for _, cs := range p.Collections {
			if !cs.RefOnly {
				names = append(names, cs.Name)
			}
		}
	default:
		run, err := seed.LatestRun(ctx, db)
		if err != nil || part.Whole() {
			return run, err
		}
		var out []*seed.Manifest
		for _, m := range run {
			if m.Part == part {
				out = append(out, m)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%w for part %s of the latest run in database %s", seed.ErrNoManifest, part, db.Name())
		}
		return out, nil
	}
	var out []*seed.Manifest
	for _, name := range names {
		m, err := seed.ReadPartManifest(ctx, db, name, part)
		if errors.Is(err, seed.ErrNoManifest) && part.Whole() {
			// A collection written in parts has no manifest of its own:
			// its parts' in the latest run stand for it.
			if ps := partsOf(ctx, db, name); len(ps) > 0 {
				out = append(out, ps...)
				continue
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// partsOf is the manifests of the parts of collection name in the run of
// db that started last; none when it was not written in parts.
func partsOf(ctx context.Context, db *mongo.Database, name string) []*seed.Manifest {
	run, err := seed.LatestRun(ctx, db)
	if err != nil {
		return nil
	}
	var out []*seed.Manifest
	for _, m := range run {
		if m.Collection == name && !m.Part.Whole() {
			out = append(out, m)
		}
	}
	return out
}

// planFromManifests is the plan of the run ms describe (the collections of
// ms written, the others RefOnly). Generation flags may be given, but only
// with the run's values: a flag that would make other documents is bad
// usage naming the flag and both values.
func planFromManifests(c *ucli.Context, ms []*seed.Manifest) (*seed.Plan, error) {
	run := ms[0]
	p, err := run.Plan()
	if err != nil {
		return nil, usageError(err)
	}
	selected := map[string]bool{}
	for _, m := range ms {
		selected[m.Collection] = true
	}
	for k := range p.Collections {
		p.Collections[k].RefOnly = !selected[p.Collections[k].Name]
	}
	if !generationFlagsSet(c) {
		return p, nil
	}
	fp, err := flagsOverRun(c, p, run.Collection)
	if err != nil {
		return nil, err
	}
	want, err := fp.Build()
	if err != nil {
		return nil, usageError(planFlagError(c, err))
	}
	have, err := p.Build()
	if err != nil {
		return nil, usageError(err)
	}
	if want.Collection(run.Collection) == nil {
		return nil, usageErrorf("%s.%s: the flags describe no such collection; leave them out to resume or verify the run written there", run.DB, run.Collection)
	}
	d := seed.NewManifest(have, have.Collection(run.Collection), "").Diff(seed.NewManifest(want, want.Collection(run.Collection), ""))
	if d == nil {
		return p, nil
	}
	flag := diffFlag(c, d)
	where := run.DB + "." + run.Collection
	if d.Collection != "" && d.Collection != run.Collection {
		where += " (its plan's collection " + d.Collection + ")"
	}
	return nil, usageErrorf("%s %s: the run in %s was written with %s %s; leave %s out to resume that run, or use %s to start over", flag, d.New, where, flag, d.Old, flag, arg(flagDrop))
}

// flagsOverRun is the plan the generation flags describe, with the run's
// settings for those not given.
func flagsOverRun(c *ucli.Context, run *seed.Plan, coll string) (*seed.Plan, error) {
	var fp *seed.Plan
	if c.IsSet(flagKind) || c.IsSet(flagTemplate) || c.IsSet(flagPlan) {
		p, err := planFromFlags(c)
		if err != nil {
			return nil, err
		}
		fp = p
	} else {
		cp := *run
		cp.Collections = append([]seed.CollectionSpec(nil), run.Collections...)
		for k := range cp.Collections {
			cs := &cp.Collections[k]
			if cs.Name != coll {
				continue
			}
			if c.IsSet(flagCount) {
				cs.Count = c.Int64(flagCount)
			}
			if c.IsSet(flagID) {
				id, err := seed.ParseIDStrategy(c.String(flagID))
				if err != nil {
					return nil, usageErrorf("%s %q: %v", arg(flagID), c.String(flagID), err)
				}
				cs.ID = id
			}
			if c.IsSet(flagIDStart) {
				cs.IDStart = c.Int64(flagIDStart)
			}
		}
		fp = &cp
	}
	if c.IsSet(flagSeed) || c.IsSet(flagAt) || c.IsSet(flagSpan) {
		p, err := planFromFlags(c) // parses and checks the three
		if err != nil {
			return nil, err
		}
		if c.IsSet(flagSeed) {
			fp.Seed, fp.Seeded = p.Seed, true
		}
		if c.IsSet(flagAt) {
			fp.At = p.At
		}
		if c.IsSet(flagSpan) {
			fp.Span = p.Span
		}
	}
	if !c.IsSet(flagSeed) {
		fp.Seed, fp.Seeded = run.Seed, true
	}
	if !c.IsSet(flagAt) {
		fp.At = run.At
	}
	if !c.IsSet(flagSpan) {
		fp.Span = run.Span
	}
	return fp, nil
}

// diffFlag is the flag behind a difference between a run and the flags.
// d.Field names a field of the plan, not a flag.
func diffFlag(c *ucli.Context, d *seed.PlanDiff) string {
	switch d.Field {
	case "seed":
		return arg(flagSeed)
	case "at":
		return arg(flagAt)
	case "span":
		return arg(flagSpan)
	}
	if c.String(flagPlan) != "" {
		if d.Field == "count" && c.IsSet(flagCount) {
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
		if c.IsSet(flagTemplate) {
			return arg(flagTemplate)
		}
		return arg(flagKind)
	}
	return arg(flagPlan)
}

// manifestUsage turns a missing manifest into bad usage (exit 2) and any
// other error reading one into a failure.
func manifestUsage(err error, what string) error {
	var ce *codedError
	switch {
	case errors.As(err, &ce):
		return err
	case errors.Is(err, seed.ErrNoManifest):
		return usageErrorf("%s: %v (collection %s); %s", flagOrCommand(what), err, seed.ManifestCollection, manifestHint(what))
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

// expectDataset is what verify db expects of a dataset: part p of its
// written collections, and those only referred to (whole).
func expectDataset(ctx context.Context, ds *seed.Dataset, p seed.Part) (verify.ExpectedSet, error) {
	var set verify.ExpectedSet
	for _, col := range ds.Collections() {
		cp := p
		if col.RefOnly() {
			cp = seed.Part{}
		}
		e, err := verify.ExpectPart(ctx, ds, col, cp)
		if err != nil {
			if ctx.Err() != nil {
				return set, failuref("verify db: %w", err)
			}
			return set, usageErrorf("verify db: %v", err)
		}
		if col.RefOnly() {
			set.Referenced = append(set.Referenced, e)
		} else {
			set.Verify = append(set.Verify, e)
		}
	}
	return set, nil
}

// expectFromManifest is what verify db expects when no generation flag is
// given: the run the manifests of --db describe, that part of it. A run
// written in parts is checked whole only once every part is done.
func expectFromManifest(ctx context.Context, c *ucli.Context, t *target, part seed.Part) (verify.ExpectedSet, error) {
	ms, err := selectManifests(ctx, c, t.Client.Database(c.String(flagDB)), part)
	if err != nil {
		return verify.ExpectedSet{}, manifestUsage(err, "verify db")
	}
	if part.Whole() {
		if err := partsDone(ms); err != nil {
			return verify.ExpectedSet{}, err
		}
	}
	p, err := planFromManifests(c, ms)
	if err != nil {
		return verify.ExpectedSet{}, err
	}
	ds, err := p.Build()
	if err != nil {
		return verify.ExpectedSet{}, usageErrorf("verify db: %v", err)
	}
	return expectDataset(ctx, ds, part)
}

// partsDone fails (exit 1) when the manifests of a collection are parts
// and some part is not done, naming each such part and its state.
func partsDone(ms []*seed.Manifest) error {
	var order []string
	byColl := map[string][]*seed.Manifest{}
	for _, m := range ms {
		if m.Part.Whole() {
			continue
		}
		if byColl[m.Collection] == nil {
			order = append(order, m.Collection)
		}
		byColl[m.Collection] = append(byColl[m.Collection], m)
	}
	var problems []string
	for _, name := range order {
		parts := byColl[name]
		n := parts[0].Part.N
		state := map[int64]*seed.Manifest{}
		for _, m := range parts {
			if m.Part.N == n {
				state[m.Part.I] = m
			}
		}
		for i := range n {
			m := state[i]
			switch {
			case m == nil:
				problems = append(problems, fmt.Sprintf("%s part %d/%d: not started (no run manifest)", name, i, n))
			case !m.Done():
				problems = append(problems, fmt.Sprintf("%s part %d/%d: %s, %d of %d documents", name, i, n, m.State, m.AckedCount, m.Scope().Len()))
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return failuref("verify db: the run was written in parts, not all done: %s; finish them (seed %s I/N %s) or check one part with %s I/N", strings.Join(problems, "; "), arg(flagPart), arg(flagResume), arg(flagPart))
}

// flagsAgainstManifests holds the dataset ds the generation flags describe
// against the run manifests of db, so that verify db says with flags what
// it says without them: for each written collection, the manifests of the
// flags' run (the same plan, seed and time base; of several such runs, the
// one that started last) go through partsDone when the whole dataset is
// checked. A collection whose manifests all describe another run gets a
// note naming the first setting that differs; they are not mixed in. When
// the manifests cannot be read, a warning says so and the flags alone count.
func (a *App) flagsAgainstManifests(ctx context.Context, c *ucli.Context, db *mongo.Database, ds *seed.Dataset, part seed.Part) error {
	all, err := readManifests(ctx, db)
	if err != nil { // the flags alone still say what to expect
		a.say(msgWarning, "verify db: %v; checking against the flags alone, without the parts the manifests record", err)
		return nil
	}
	var same []*seed.Manifest
	for _, col := range ds.Collections() {
		if col.RefOnly() {
			continue
		}
		want := seed.NewManifest(ds, col, "")
		var match, other []*seed.Manifest
		for _, m := range all {
			switch {
			case m.Collection != col.Name():
			case m.Diff(want) == nil:
				match = append(match, m)
			default:
				other = append(other, m)
			}
		}
		if len(match) == 0 && len(other) > 0 {
			a.say(msgNote, "%s", otherRunNote(c, latestRun(other), want))
		}
		same = append(same, latestRun(match)...)
	}
	if part.Whole() {
		return partsDone(same)
	}
	return nil
}

// otherRunNote says that the manifest m of a collection describes another
// run than want, the flags' one, and in which setting.
func otherRunNote(c *ucli.Context, ms []*seed.Manifest, want *seed.Manifest) string {
	m := ms[0]
	d := m.Diff(want)
	setting := diffFlag(c, d)
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

// latestRun is the manifests of ms that belong to the run, of those in ms,
// that started last.
func latestRun(ms []*seed.Manifest) []*seed.Manifest {
	if len(ms) == 0 {
		return nil
	}
	last := ms[0]
	for _, m := range ms[1:] {
		if m.Started.After(last.Started) {
			last = m
		}
	}
	var out []*seed.Manifest
	for _, m := range ms {
		if m.Run == last.Run {
			out = append(out, m)
		}
	}
	return out
}

// readManifests is every run manifest of db, none when it has none.
func readManifests(ctx context.Context, db *mongo.Database) ([]*seed.Manifest, error) {
	cur, err := db.Collection(seed.ManifestCollection).Find(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("run manifests of %s: %w", db.Name(), err)
	}
	var all []*seed.Manifest
	if err := cur.All(ctx, &all); err != nil {
		return nil, fmt.Errorf("run manifests of %s: %w", db.Name(), err)
	}
	for _, m := range all {
		if m.Collection == "" { // saved before manifests named their collection
			m.Collection = m.Key
		}
	}
	return all, nil
}
