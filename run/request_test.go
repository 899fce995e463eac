package run_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// settingsOf is plan settings as a command line gives them: the given
// ones marked Given.
func settingsOf(o seed.PlanOptions, given ...seed.Setting) run.Settings {
	o.Given = map[seed.Setting]bool{}
	for _, s := range given {
		o.Given[s] = true
	}
	return run.NewSettings(o)
}

// SeedSettings checks a new run's settings before it opens the target,
// writes the run, resumes it from its manifests (settings that restate it
// are accepted, others refused naming the setting), and says why a resume
// has nothing to continue.
func TestSeedSettings(t *testing.T) {
	_, client := mongotest.Start(t)
	ctx := context.Background()
	opened := 0
	request := func(s run.Settings, resume bool) run.Request {
		return run.Request{Settings: s, Options: run.Options{Resume: resume},
			Open: func(context.Context) (*mongo.Client, rules.Profile, error) {
				opened++
				return client, rules.MongoDB, nil
			}}
	}
	base := seed.PlanOptions{DB: "settings", Kind: "user", Count: 40, ID: "objectid", Seed: "5"}

	if _, err := run.SeedSettings(ctx, run.Request{Settings: settingsOf(base)}); err == nil || !strings.Contains(err.Error(), "Open is nil") {
		t.Fatalf("no Open: %v; want an error saying so", err)
	}
	bad := base
	bad.Kind = "usr"
	_, err := run.SeedSettings(ctx, request(settingsOf(bad, seed.SettingKind), false))
	var se *run.StepError
	var oe *seed.OptionError
	if !errors.As(err, &se) || se.Step != run.StepSettings || !errors.As(err, &oe) || oe.Setting != seed.SettingKind || opened != 0 {
		t.Fatalf("unknown kind: %v (opened %d); want a StepSettings error naming the kind, the target not opened", err, opened)
	}

	res, err := run.SeedSettings(ctx, request(settingsOf(base, seed.SettingKind, seed.SettingCount, seed.SettingSeed), false))
	if err != nil || res.Inserted != 40 || res.Drawn || res.Collections[0].DB != "settings" {
		t.Fatalf("new run: %+v, %v; want 40 inserted into settings, seed given", res, err)
	}
	if n, _ := client.Database("settings").Collection("users").CountDocuments(ctx, bson.D{}); n != 40 {
		t.Fatalf("stored %d; want 40", n)
	}

	// A resume with no settings, or with the run's own, has nothing to add:
	// the acknowledged documents count as skipped.
	for _, s := range []run.Settings{settingsOf(seed.PlanOptions{DB: "settings"}), settingsOf(base, seed.SettingSeed, seed.SettingCount)} {
		res, err = run.SeedSettings(ctx, request(s, true))
		if err != nil || res.Inserted != 0 || res.Skipped != 40 {
			t.Fatalf("resume: %+v, %v; want nothing to write", res, err)
		}
	}
	other := base
	other.Count = 41
	_, err = run.SeedSettings(ctx, request(settingsOf(other, seed.SettingCount), true))
	var ore *run.OtherRunError
	if !errors.As(err, &ore) || ore.Diff.Field != seed.SettingCount || ore.Diff.Old != "40" || ore.Diff.New != "41" || ore.Collection != "users" {
		t.Fatalf("resume with another count: %v; want an OtherRunError of count 40 → 41", err)
	}

	_, err = run.SeedSettings(ctx, request(settingsOf(seed.PlanOptions{DB: "empty"}), true))
	if !errors.As(err, &se) || se.Step != run.StepResume || !errors.Is(err, mongowrite.ErrNoManifest) {
		t.Fatalf("resume of nothing: %v; want a StepResume error wrapping ErrNoManifest", err)
	}
	// With a seed, data written without a manifest is resumed from the settings.
	res, err = run.SeedSettings(ctx, request(settingsOf(seed.PlanOptions{DB: "empty", Kind: "user", Count: 7, ID: "objectid", Seed: "5"}, seed.SettingSeed, seed.SettingKind, seed.SettingCount), true))
	if err != nil || res.Inserted != 7 {
		t.Fatalf("resume from the settings: %+v, %v; want 7 inserted", res, err)
	}
}

// Compare of a plan without the run's collection is an OtherRunError with
// no Diff, which says so.
func TestCompareWithoutTheCollection(t *testing.T) {
	have := &seed.Plan{DB: "d", Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 3}}}
	want := &seed.Plan{DB: "d", Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "products", Kind: seed.KindProduct, Count: 3}}}
	d, err := run.Compare(have, want, "d", "users")
	var ore *run.OtherRunError
	if d != nil || !errors.As(err, &ore) || ore.Diff != nil || ore.Collection != "users" || err.Error() != "d.users: the plan describes no such collection" {
		t.Fatalf("Compare = %v, %v; want an OtherRunError of d.users with no Diff", d, err)
	}
	if d, err := run.Compare(have, have, "d", "users"); d != nil || err != nil {
		t.Fatalf("Compare of a plan with itself = %v, %v; want no difference", d, err)
	}
}
