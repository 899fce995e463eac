package run

import (
	"context"
	"errors"
	"strconv"
	"sync"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

// generation is the settings that decide the documents: given with a resume
// or a verify, they may restate the run's own but not change it.
var generation = []seed.Setting{seed.SettingSeed, seed.SettingKind, seed.SettingTemplate, seed.SettingFile, seed.SettingCount, seed.SettingID, seed.SettingIDStart, seed.SettingAt, seed.SettingSpan, seed.SettingRef}

// Settings are the plan settings given with a resume or a verify, read
// once, against which the run manifests count: without a generation
// setting the manifests say what the run is; with one, they must agree.
type Settings struct {
	Options seed.PlanOptions
	// made is seed.NewPlan of Options, made once, where it is first needed
	// (Plan), and shared by the copies of the settings.
	made *madePlan
}

// madePlan is seed.NewPlan of the settings' options when a generation
// setting was given: its plan, or its error.
type madePlan struct {
	once sync.Once
	plan *seed.Plan
	err  error
}

// NewSettings holds o; the plan it describes is made where it is first
// needed, once.
func NewSettings(o seed.PlanOptions) Settings {
	return Settings{Options: o, made: new(madePlan)}
}

// Given reports whether setting k was given.
func (s Settings) Given(k seed.Setting) bool { return s.Options.Given[k] }

// Any reports whether any setting that decides the documents was given;
// without one, a resume or a verify reads the run manifest.
func (s Settings) Any() bool {
	for _, k := range generation {
		if s.Given(k) {
			return true
		}
	}
	return false
}

// Plan is the plan of the settings (seed.NewPlan), when a generation setting
// was given: nil and nil otherwise.
func (s Settings) Plan() (*seed.Plan, error) {
	switch {
	case !s.Any():
		return nil, nil
	case s.made == nil: // a Settings literal
		return seed.NewPlan(s.Options)
	}
	s.made.once.Do(func() { s.made.plan, s.made.err = seed.NewPlan(s.Options) })
	return s.made.plan, s.made.err
}

// Names is the collections whose run manifests the settings name: the
// collection, else the written collections of the kind, template or plan,
// else none (every collection of the run that started last).
func (s Settings) Names() ([]string, error) {
	switch {
	case s.Options.Collection != "" && s.Options.Plan == "":
		return []string{s.Options.Collection}, nil
	case s.Given(seed.SettingKind) || s.Given(seed.SettingTemplate) || s.Given(seed.SettingFile):
		plan, err := s.Plan()
		if err != nil {
			return nil, err
		}
		var names []string
		for _, cs := range plan.Collections {
			if !cs.RefOnly {
				names = append(names, cs.Name)
			}
		}
		return names, nil
	}
	return nil, nil
}

// Over is p, the plan of the run m belongs to, when the settings agree
// with it (or none is given). Settings that would make other documents are
// an *OtherRunError naming the first difference; another error is a
// *seed.OptionError of the settings, or one of Compare's.
func (s Settings) Over(p *seed.Plan, m *mongowrite.Manifest) (*seed.Plan, error) {
	if !s.Any() {
		return p, nil
	}
	fp, err := s.plansOver(p, m.Collection)
	if err != nil {
		return nil, err
	}
	rec, err := Record(m)
	if err != nil {
		return nil, err
	}
	d, err := Compare(p, fp, rec.DB, m.Collection)
	switch {
	case err != nil:
		return nil, err
	case d != nil:
		return nil, &OtherRunError{DB: rec.DB, Collection: m.Collection, Diff: d}
	}
	return p, nil
}

// plansOver is the plan the settings describe, with the settings of run
// for those not given.
func (s Settings) plansOver(run *seed.Plan, coll string) (*seed.Plan, error) {
	plan, err := s.Plan()
	var fp *seed.Plan
	if s.Given(seed.SettingKind) || s.Given(seed.SettingTemplate) || s.Given(seed.SettingFile) {
		if err != nil {
			return nil, err
		}
		cp := *plan
		fp = &cp
	} else {
		cp, err := s.settingsOver(run, coll)
		if err != nil {
			return nil, err
		}
		fp = cp
	}
	if s.Given(seed.SettingSeed) || s.Given(seed.SettingAt) || s.Given(seed.SettingSpan) {
		if err != nil { // it parses and checks the three
			return nil, err
		}
		if s.Given(seed.SettingSeed) {
			fp.Seed, fp.Seeded = plan.Seed, true
		}
		if s.Given(seed.SettingAt) {
			fp.At = plan.At
		}
		if s.Given(seed.SettingSpan) {
			fp.Span = plan.Span
		}
	}
	if !s.Given(seed.SettingSeed) {
		fp.Seed, fp.Seeded = run.Seed, true
	}
	if !s.Given(seed.SettingAt) {
		fp.At = run.At
	}
	if !s.Given(seed.SettingSpan) {
		fp.Span = run.Span
	}
	return fp, nil
}

// settingsOver is a copy of run with the count, _id strategy and first
// _id, those given, applied to collection coll.
func (s Settings) settingsOver(run *seed.Plan, coll string) (*seed.Plan, error) {
	o := s.Options
	cp := *run
	cp.Collections = append([]seed.CollectionSpec(nil), run.Collections...)
	for k := range cp.Collections {
		cs := &cp.Collections[k]
		if cs.Name != coll {
			continue
		}
		if s.Given(seed.SettingCount) {
			cs.Count = o.Count
		}
		if text, ok := o.IDOf(coll); s.Given(seed.SettingID) && ok {
			id, err := seed.ParseIDStrategy(text)
			if err != nil {
				return nil, &seed.OptionError{Setting: seed.SettingID, Value: strconv.Quote(o.ID), Err: err}
			}
			cs.ID = id
		}
		if s.Given(seed.SettingIDStart) {
			cs.IDStart = o.IDStart
		}
	}
	return &cp, nil
}

// Dataset is the plan of the settings given (Plan), built (Build): an
// error is a *StepError of StepSettings. A plan with references to stored
// documents needs StoredDataset.
func (s Settings) Dataset() (*seed.Dataset, error) {
	plan, err := s.Plan()
	if err != nil {
		return nil, &StepError{Step: StepSettings, Err: err}
	}
	return s.Build(plan)
}

// Stored reports whether the settings' plan has references to documents
// stored in the target, so that building it reads db (StoredDataset).
func (s Settings) Stored() bool {
	plan, err := s.Plan()
	return err == nil && plan != nil && len(plan.StoredTargets()) > 0
}

// StoredDataset is Dataset with the _ids its stored references draw from,
// read from db as seed read them: a stored reference with nothing to draw
// from is the *seed.StoredRefError it is.
func (s Settings) StoredDataset(ctx context.Context, db *mongo.Database) (*seed.Dataset, error) {
	plan, err := s.Plan()
	if err != nil {
		return nil, err
	}
	ds, err := buildStored(ctx, db, plan)
	var se *StepError
	if errors.As(err, &se) && se.Step == StepPlan {
		return nil, s.Options.Blame(se.Err)
	}
	return ds, err
}
