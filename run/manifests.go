package run

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/verify"
)

// Manifests reads the run manifests of part p of the collections names of
// db, or with no names those of the run that started last in db. Of a
// collection written in parts and asked for whole, the manifests of its
// parts in the latest run stand for it. An error wraps mongowrite.ErrNoManifest
// when a manifest is missing.
func Manifests(ctx context.Context, db *mongo.Database, p parts.Part, names ...string) ([]*mongowrite.Manifest, error) {
	if len(names) == 0 {
		run, err := LatestRun(ctx, db)
		if err != nil || p.Whole() {
			return run, err
		}
		var out []*mongowrite.Manifest
		for _, m := range run {
			if m.Part == p {
				out = append(out, m)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%w for part %s of the latest run in database %s", mongowrite.ErrNoManifest, p, db.Name())
		}
		return out, nil
	}
	var out []*mongowrite.Manifest
	for _, name := range names {
		m, err := mongowrite.ReadPartManifest(ctx, db, name, p)
		if errors.Is(err, mongowrite.ErrNoManifest) && p.Whole() {
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
func partsOf(ctx context.Context, db *mongo.Database, name string) []*mongowrite.Manifest {
	run, err := LatestRun(ctx, db)
	if err != nil {
		return nil
	}
	var out []*mongowrite.Manifest
	for _, m := range run {
		if m.Collection == name && !m.Part.Whole() {
			out = append(out, m)
		}
	}
	return out
}

// PlanOf is the plan of the run ms describe: the collections of ms
// written, the others RefOnly.
func PlanOf(ms []*mongowrite.Manifest) (*seed.Plan, error) {
	r, err := Record(ms[0])
	if err != nil {
		return nil, err
	}
	p, err := r.Plan(ms[0].Collection)
	if err != nil {
		return nil, err
	}
	selected := map[string]bool{}
	for _, m := range ms {
		selected[m.Collection] = true
	}
	for k := range p.Collections {
		p.Collections[k].RefOnly = !selected[p.Collections[k].Name]
	}
	return p, nil
}

// Compare is the first setting in which plan want would make other
// documents than plan have in collection coll, nil when both make the
// same. A want without coll is an *OtherRunError with no Diff. Stored references
// are compared by their settings: both plans are built over the same
// stand-in _ids (standInStored), since whether the stored documents are
// still those a run drew from is for the caller to ask the target
// (Seed with Resume does).
func Compare(have, want *seed.Plan, db, coll string) (*seed.PlanDiff, error) {
	stand := standInStored(have, want)
	w, err := want.BuildStored(stand)
	if err != nil {
		return nil, &StepError{Step: StepPlan, Err: err}
	}
	h, err := have.BuildStored(stand)
	if err != nil {
		return nil, err
	}
	if w.Collection(coll) == nil {
		return nil, &OtherRunError{DB: db, Collection: coll}
	}
	hr, wr := seed.NewPlanRecord(h), seed.NewPlanRecord(w)
	return hr.Diff(&wr), nil
}

// standInStored is one _id for each collection the stored references of
// the plans draw from: enough to build them, the same for both.
func standInStored(plans ...*seed.Plan) seed.StoredIDs {
	stand := seed.StoredIDs{}
	for _, p := range plans {
		for _, name := range p.StoredTargets() {
			stand[name] = []bson.RawValue{{Type: bson.TypeInt32, Value: []byte{0, 0, 0, 0}}}
		}
	}
	return stand
}

// PartsDone is a *PartsError when the manifests of a collection among ms
// are parts and some part is not done (or not started).
func PartsDone(ms []*mongowrite.Manifest) error {
	var order []string
	byColl := map[string][]*mongowrite.Manifest{}
	for _, m := range ms {
		if m.Part.Whole() {
			continue
		}
		if byColl[m.Collection] == nil {
			order = append(order, m.Collection)
		}
		byColl[m.Collection] = append(byColl[m.Collection], m)
	}
	var pending []PartState
	for _, name := range order {
		ms := byColl[name]
		n := ms[0].Part.N
		state := map[int64]*mongowrite.Manifest{}
		for _, m := range ms {
			if m.Part.N == n {
				state[m.Part.I] = m
			}
		}
		for i := range n {
			if m := state[i]; m == nil || !m.Done() {
				pending = append(pending, PartState{Collection: name, Part: parts.Part{I: i, N: n}, Manifest: m})
			}
		}
	}
	if len(pending) == 0 {
		return nil
	}
	return &PartsError{Pending: pending}
}

// ExpectDataset is what verify.VerifyDB expects of a dataset: part p of
// its written collections, and those only referred to (whole).
func ExpectDataset(ctx context.Context, ds *seed.Dataset, p parts.Part) (verify.ExpectedSet, error) {
	var set verify.ExpectedSet
	for _, col := range ds.Collections() {
		cp := p
		if col.RefOnly() {
			cp = parts.Part{}
		}
		e, err := verify.ExpectPart(ctx, ds, col, cp)
		if err != nil {
			return set, err
		}
		if col.RefOnly() {
			set.Referenced = append(set.Referenced, e)
		} else {
			set.Verify = append(set.Verify, e)
		}
	}
	// The collections stored references point at: whatever they hold.
	for _, col := range ds.Collections() {
		for _, r := range col.Spec().Refs {
			if r.Stored && ds.Collection(r.To) == nil && !referenced(set, r.To) {
				set.Referenced = append(set.Referenced, verify.ExpectStored(ds.DB, r.To))
			}
		}
	}
	return set, nil
}

// referenced reports whether set already expects collection name.
func referenced(set verify.ExpectedSet, name string) bool {
	for _, e := range append(append([]*verify.Expected(nil), set.Verify...), set.Referenced...) {
		if e.Collection == name {
			return true
		}
	}
	return false
}

// Expected is what verify.VerifyDB expects of part p of the collections
// names of db (with none, of the run that started last), from their run
// manifests alone. A run written in parts is expected whole only once
// every part is done (else a *PartsError). Reading a manifest fails with a
// *StepError of StepRead (wrapping mongowrite.ErrNoManifest when there is none),
// rebuilding the run with StepPlan, expecting its documents with
// StepExpect.
func Expected(ctx context.Context, db *mongo.Database, p parts.Part, names ...string) (verify.ExpectedSet, error) {
	ms, err := Manifests(ctx, db, p, names...)
	if err != nil {
		return verify.ExpectedSet{}, &StepError{Step: StepRead, Err: err}
	}
	if p.Whole() {
		if err := PartsDone(ms); err != nil {
			return verify.ExpectedSet{}, err
		}
	}
	plan, err := PlanOf(ms)
	if err != nil {
		return verify.ExpectedSet{}, &StepError{Step: StepPlan, Err: err}
	}
	stored, err := ReadStored(ctx, db, plan)
	if err != nil {
		return verify.ExpectedSet{}, &StepError{Step: StepRead, Err: err}
	}
	ds, err := plan.BuildStored(stored)
	if err != nil {
		return verify.ExpectedSet{}, &StepError{Step: StepExpect, Err: err}
	}
	set, err := ExpectDataset(ctx, ds, p)
	if err != nil {
		return set, &StepError{Step: StepExpect, Err: err}
	}
	for _, m := range ms {
		r, err := Record(m)
		if err != nil {
			return set, &StepError{Step: StepRead, Err: err}
		}
		if d := seed.StoredDiff(r.Stored, ds.StoredSets()); d != nil {
			set.Notes = append(set.Notes, fmt.Sprintf("%s: its references were drawn from the documents stored in %s (%s then, %s now): its documents are rebuilt from those stored now, so the ones that refer to them differ", m.Collection, d.Collection, d.Old, d.New))
		}
	}
	return set, nil
}

// Resumed is the run Resume reads back: its plan, and the manifests by
// collection, for Options.Manifests.
type Resumed struct {
	Plan      *seed.Plan
	Manifests map[string]*mongowrite.Manifest
	// Read is the manifests as Manifests returned them.
	Read []*mongowrite.Manifest
}

// Resume reads the run that Seed with Options.Resume continues: part p of
// the collections names of db, or with none the run that started last.
// Each part has its own manifest and writer: a collection written in other
// parts than p is a *PartMismatchError. Reading fails with a *StepError of
// StepRead (wrapping mongowrite.ErrNoManifest when there is none), rebuilding
// the plan with StepPlan.
func Resume(ctx context.Context, db *mongo.Database, p parts.Part, names ...string) (*Resumed, error) {
	ms, err := Manifests(ctx, db, p, names...)
	if err != nil {
		return nil, &StepError{Step: StepRead, Err: err}
	}
	for _, m := range ms {
		if m.Part != p {
			return nil, &PartMismatchError{DB: db.Name(), Collection: m.Collection, Parts: m.Part.N}
		}
	}
	plan, err := PlanOf(ms)
	if err != nil {
		return nil, &StepError{Step: StepPlan, Err: err}
	}
	r := &Resumed{Plan: plan, Manifests: map[string]*mongowrite.Manifest{}, Read: ms}
	for _, m := range ms {
		r.Manifests[m.Collection] = m
	}
	return r, nil
}

// OtherRun is a written collection of a dataset whose run manifests all
// describe another run: Manifests are those of the latest such run, Diff
// the first setting in which it differs from the dataset's.
type OtherRun struct {
	DB        string // the database the manifests are in
	Manifests []*mongowrite.Manifest
	Diff      *seed.PlanDiff
}

// Against holds dataset ds against the run manifests of db, so that a
// check of ds says what a check from the manifests would: for each written
// collection, the manifests of ds's run (the same plan, seed and time
// base; of several such runs, the one that started last) go through
// PartsDone when the whole dataset is checked (its error is returned). A
// collection whose manifests all describe another run is listed in others;
// they are not mixed in. When the manifests cannot be read, unread says
// why and nothing else is done.
func Against(ctx context.Context, db *mongo.Database, ds *seed.Dataset, p parts.Part) (others []OtherRun, unread, err error) {
	all, err := mongowrite.ReadManifests(ctx, db)
	if err != nil {
		return nil, err, nil
	}
	recs := map[*mongowrite.Manifest]*seed.PlanRecord{}
	for _, m := range all {
		if recs[m], err = Record(m); err != nil {
			return nil, err, nil
		}
	}
	var same []*mongowrite.Manifest
	want := seed.NewPlanRecord(ds)
	for _, col := range ds.Collections() {
		if col.RefOnly() {
			continue
		}
		var match, other []*mongowrite.Manifest
		for _, m := range all {
			switch {
			case m.Collection != col.Name():
			case recs[m].Diff(&want) == nil:
				match = append(match, m)
			default:
				other = append(other, m)
			}
		}
		if len(match) == 0 && len(other) > 0 {
			ms := startedLast(other)
			others = append(others, OtherRun{DB: db.Name(), Manifests: ms, Diff: recs[ms[0]].Diff(&want)})
		}
		same = append(same, startedLast(match)...)
	}
	if p.Whole() {
		return others, nil, PartsDone(same)
	}
	return others, nil, nil
}

// startedLast is the manifests of ms that belong to the run, of those in
// ms, that started last.
func startedLast(ms []*mongowrite.Manifest) []*mongowrite.Manifest {
	if len(ms) == 0 {
		return nil
	}
	last := ms[0]
	for _, m := range ms[1:] {
		if m.Started.After(last.Started) {
			last = m
		}
	}
	var out []*mongowrite.Manifest
	for _, m := range ms {
		if m.Run == last.Run {
			out = append(out, m)
		}
	}
	return out
}

// LatestRun reads the manifests of the run of db that started last, in
// the order of its plan (the parts of a collection in part order); an
// error wraps mongowrite.ErrNoManifest when db has none.
func LatestRun(ctx context.Context, db *mongo.Database) ([]*mongowrite.Manifest, error) {
	all, err := mongowrite.ReadManifests(ctx, db)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%w in database %s", mongowrite.ErrNoManifest, db.Name())
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Part.I < all[j].Part.I })
	run := startedLast(all)
	rec, err := Record(run[0])
	if err != nil {
		return nil, err
	}
	var out []*mongowrite.Manifest
	for _, s := range rec.Specs {
		for _, m := range run {
			if m.Collection == s.Name {
				out = append(out, m)
			}
		}
	}
	return out, nil
}
