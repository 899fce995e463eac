package run

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// Request is a seed run as plan settings describe it: what oidkit seed's
// flags ask for, run by SeedSettings.
type Request struct {
	// Settings are the plan settings given (NewSettings).
	Settings Settings
	// Options are Seed's: Part, Resume, Drop, Batch, Workers and the
	// hooks. SeedSettings sets Profile (from Open) and, with Resume,
	// Manifests.
	Options Options
	// Open opens the target once the settings of a new run are checked:
	// its client and its rules. Its error is returned as it is.
	Open func(ctx context.Context) (*mongo.Client, rules.Profile, error)
}

// SeedSettings runs r as oidkit seed does. A new run's plan is made from
// the settings and checked before the target is opened (a plan with
// stored references is built once their _ids are read); a resumed run's
// plan is read back from the run manifests of the settings' database
// (Resume), the settings held against it (Settings.Over); a database
// without run manifests is resumed from the settings when they give a
// seed. Then Seed writes it; Result.Drawn says whether its seed was drawn.
//
// Beside Open's and Seed's errors: an error of the settings is a
// *StepError of StepSettings (PlanOptions.Blame names the setting of a
// *seed.OptionError); reading the run a resume continues, a *StepError of
// StepResume wrapping Resume's; settings that describe another run than
// the one resumed, an *OtherRunError (with no Diff when they do not
// describe its collection).
func SeedSettings(ctx context.Context, r Request) (*Result, error) {
	if r.Open == nil {
		return nil, errors.New("run.Request: Open is nil; expected a function that opens the target")
	}
	s, opts := r.Settings, r.Options
	var plan *seed.Plan
	var ds *seed.Dataset
	drawn := false
	if !opts.Resume {
		var err error
		if plan, err = s.NewPlan(); err != nil {
			return nil, err
		}
		drawn = plan.DrawSeed()
		// A plan with stored references is built once their _ids are read.
		if len(plan.StoredTargets()) == 0 {
			if ds, err = s.Build(plan); err != nil {
				return nil, err
			}
		}
	}
	client, profile, err := r.Open(ctx)
	if err != nil {
		return nil, err
	}
	opts.Profile = profile
	if opts.Resume {
		if plan, ds, opts.Manifests, err = s.resume(ctx, client.Database(s.Options.DB), opts.Part); err != nil {
			return nil, err
		}
	}
	var res *Result
	if ds != nil {
		res, err = seedDataset(ctx, client.Database(plan.DB), ds, opts)
	} else {
		res, err = Seed(ctx, client.Database(plan.DB), plan, opts)
	}
	if res != nil {
		res.Drawn = drawn
	}
	return res, err
}

// NewPlan is the plan of a new run of the settings: theirs, or
// seed.NewPlan of the defaults when none decides the documents. Its error
// is a *StepError of StepSettings.
func (s Settings) NewPlan() (*seed.Plan, error) {
	plan, err := s.Plan()
	if plan == nil && err == nil {
		plan, err = seed.NewPlan(s.Options)
	}
	if err != nil {
		return nil, &StepError{Step: StepSettings, Err: err}
	}
	return plan, nil
}

// Build builds plan, a plan of the settings (NewPlan): its error is a
// *StepError of StepSettings naming the setting behind it
// (seed.PlanOptions.Blame). A plan with stored references needs
// StoredDataset.
func (s Settings) Build(plan *seed.Plan) (*seed.Dataset, error) {
	ds, err := plan.Build()
	if err != nil {
		return nil, &StepError{Step: StepSettings, Err: s.Options.Blame(err)}
	}
	return ds, nil
}

// resume is the plan of the run a resume continues in db and its manifests
// by collection. Data written without a manifest is resumed from the
// settings (with a seed) as a whole: then the plan comes built (ds).
func (s Settings) resume(ctx context.Context, db *mongo.Database, part parts.Part) (*seed.Plan, *seed.Dataset, map[string]*mongowrite.Manifest, error) {
	names, err := s.Names()
	if err != nil {
		return nil, nil, nil, &StepError{Step: StepSettings, Err: err}
	}
	r, err := Resume(ctx, db, part, names...)
	switch {
	case errors.Is(err, mongowrite.ErrNoManifest) && s.Given(seed.SettingSeed):
		ds, err := s.Dataset()
		if err != nil {
			return nil, nil, nil, err
		}
		plan, _ := s.Plan()
		return plan, ds, map[string]*mongowrite.Manifest{}, nil
	case err != nil:
		return nil, nil, nil, &StepError{Step: StepResume, Err: err}
	}
	p, err := s.Over(r.Plan, r.Read[0])
	var se *StepError
	var ore *OtherRunError
	switch {
	case errors.As(err, &ore):
		return nil, nil, nil, ore
	case errors.As(err, &se):
		return nil, nil, nil, &StepError{Step: StepSettings, Err: s.Options.Blame(se.Err)}
	case err != nil:
		return nil, nil, nil, &StepError{Step: StepSettings, Err: err}
	}
	return p, nil, r.Manifests, nil
}
