package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// planFlags are the flags that describe what to generate; seed, fixtures and
// verify db share them so that the same flags always mean the same
// documents.
func planFlags() []ucli.Flag {
	return []ucli.Flag{
		dbFlag(seed.DefaultDB),
		&ucli.StringFlag{Name: flagCollection, Usage: "collection name (default: the kind's plural, e.g. users, or the template's base name); with --plan, only this collection of the plan"},
		&ucli.StringFlag{Name: flagKind, Usage: "built-in document kind: " + strings.Join(seed.Kinds(), ", ") + ", or its plural (default user)"},
		&ucli.StringFlag{Name: flagTemplate, Usage: "JSON template `FILE` whose strings may hold gofakeit placeholders such as {firstname}"},
		&ucli.StringFlag{Name: flagPlan, Usage: "plan `FILE` (JSON), or a built-in plan: " + strings.Join(seed.BuiltinPlans(), ", ")},
		countFlag(1000, "number of documents (with --plan shop: number of users; with a plan file: of its first collection, the others scaled in proportion)"),
		&ucli.GenericFlag{Name: flagID, Value: &idFlag{vals: []string{"objectid"}}, Usage: "_id strategy: objectid, int, uuid or field:NAME; with --plan, COLLECTION=STRATEGY (users=field:email), repeatable or comma-separated"},
		&ucli.Int64Flag{Name: flagIDStart, Value: 1, Usage: "first _id of --id int"},
		&ucli.StringFlag{Name: flagSeed, Usage: "seed (unsigned integer) for identical documents and IDs on every run"},
		&ucli.StringFlag{Name: flagAt, Usage: "time base: " + timeForms + " (default with --seed: 2024-01-01T00:00:00Z; without: now)"},
		&ucli.StringFlag{Name: flagSpan, DefaultText: defaultSpan, Usage: "spread timestamps over this window ending at the time base (e.g. 90m, 72h, 30d; 0: all in one second)"},
	}
}

// defaultSpan is how --help shows seed.DefaultSpan, the window a plan's
// timestamps spread over when --span is not given (a plan built in Go with
// a zero Span gets the same one).
var defaultSpan = fmt.Sprintf("%dd", seed.DefaultSpan/(24*time.Hour))

// ownFlags is the flag of each plan setting that has one of its own;
// every other setting is what only a plan file sets or a run records, and
// its flag is --plan (settingFlag). A setting added to seed needs no line
// here unless it gets a flag: a test fails for a plan flag named as a
// setting that is missing here.
var ownFlags = map[seed.Setting]string{
	seed.SettingFile: flagPlan, seed.SettingDB: flagDB, seed.SettingCollection: flagCollection,
	seed.SettingKind: flagKind, seed.SettingTemplate: flagTemplate, seed.SettingCount: flagCount,
	seed.SettingID: flagID, seed.SettingIDStart: flagIDStart, seed.SettingRef: flagRef,
	seed.SettingSeed: flagSeed, seed.SettingAt: flagAt, seed.SettingSpan: flagSpan,
}

// settingFlag is the flag behind plan setting s: its own, or --plan.
func settingFlag(s seed.Setting) string {
	if f, ok := ownFlags[s]; ok {
		return f
	}
	return flagPlan
}

// idFlag is the value of --id: a strategy, or COLLECTION=STRATEGY, given
// once or more; its text is what was given, comma-separated, as
// seed.ParseIDSetting reads it.
type idFlag struct {
	vals []string
	set  bool
}

// Set replaces the default with the first value, and adds the next ones.
func (v *idFlag) Set(s string) error {
	if !v.set {
		v.vals, v.set = nil, true
	}
	v.vals = append(v.vals, s)
	return nil
}

func (v *idFlag) String() string {
	if v == nil {
		return ""
	}
	return strings.Join(v.vals, ",")
}

// refFlag is the --ref of seed and verify db.
func refFlag() ucli.Flag {
	return &ucli.StringSliceFlag{Name: flagRef, Usage: "draw reference `FIELD=COLLECTION` from the _ids stored in COLLECTION of the target, e.g. userId=users (repeatable)"}
}

// planOptions is what the plan flags ask for, as given. Which of them go
// together is checked by flagRules before the command runs.
func planOptions(f flagValues) seed.PlanOptions {
	o := seed.PlanOptions{
		DB: f.String(flagDB), Collection: f.String(flagCollection), Kind: f.String(flagKind),
		Template: f.String(flagTemplate), Plan: f.String(flagPlan), Count: f.Int64(flagCount),
		ID: f.String(flagID), IDStart: f.Int64(flagIDStart), Seed: f.String(flagSeed),
		At: f.String(flagAt), Span: f.String(flagSpan), Given: map[seed.Setting]bool{},
	}
	for _, s := range seed.Settings() {
		if name := settingFlag(s); name != flagPlan || s == seed.SettingFile {
			o.Given[s] = f.IsSet(name)
		}
	}
	o.Refs = f.StringSlice(flagRef) // none where the command has no --ref
	return o
}

// datasetFrom is the dataset the plan options o describe, made as a new
// run makes it (run.Settings: NewPlan, Build): bad values are usage errors
// (exit 2) naming the flag and the value.
func datasetFrom(o seed.PlanOptions) (*seed.Dataset, error) {
	s := run.NewSettings(o)
	p, err := s.NewPlan()
	if err != nil {
		return nil, settingsUsage(err)
	}
	ds, err := s.Build(p)
	if err != nil {
		return nil, settingsUsage(err)
	}
	return ds, nil
}

// planFlagError names the flag behind an error of the plan options (a
// *seed.OptionError); any other error is returned as it is.
func planFlagError(err error) error {
	var oe *seed.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	return fmt.Errorf("%s %s: %w", arg(settingFlag(oe.Setting)), oe.Value, oe.Err)
}

// parseSeed reads --seed with seed.ParseSeed.
func parseSeed(s string) (uint64, error) {
	v, err := seed.ParseSeed(s)
	var pe *seed.PlanError
	if errors.As(err, &pe) {
		return 0, usageErrorf("%s %q: %v", arg(flagSeed), s, pe.Err)
	}
	return v, err
}

// partFlag is --part of seed, fixtures and verify db.
func partFlag(usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: flagPart, EnvVars: []string{envPart}, Usage: usage + "; part `I/N` (I from 0 to N-1) covers the same index range of every collection; without it, " + envJobIndex + " (a Kubernetes Indexed Job) with " + envParts + "=N"}
}

// partFromFlags is the part --part (or OIDKIT_PART) names, else the one
// JOB_COMPLETION_INDEX and OIDKIT_PARTS name, else the zero Part (all).
func partFromFlags(c flagValues) (parts.Part, error) {
	return parsePart(c.String(flagPart), c.IsSet(flagPart), os.LookupEnv)
}

// parsePart reads the part from the flag's value (set says it was given)
// or the environment lookup gives: bad usage names the value, where it
// came from and what was expected.
func parsePart(value string, set bool, lookup func(string) (string, bool)) (parts.Part, error) {
	var p parts.Part
	var err error
	var index, count string
	if set {
		p, err = parts.Parse(value)
	} else {
		var ok bool
		if index, ok = lookup(envJobIndex); !ok {
			return parts.Part{}, nil
		}
		if count, ok = lookup(envParts); !ok {
			return parts.Part{}, usageErrorf("%s=%q without %s: expected %s=N, the number of parts (the Job's completions), or %s I/N", envJobIndex, index, envParts, envParts, arg(flagPart))
		}
		p, err = parts.Of(index, count)
	}
	var pe *parts.Error
	switch {
	case !errors.As(err, &pe):
		return p, err
	case set:
		return p, usageErrorf("%s %q (or %s): expected %s", arg(flagPart), value, envPart, pe.Expected)
	case pe.Field == "I":
		return p, usageErrorf("%s=%q: expected %s", envJobIndex, index, pe.Expected)
	case pe.Field == "N":
		return p, usageErrorf("%s=%q: expected %s", envParts, count, pe.Expected)
	}
	return p, usageErrorf("%s=%q with %s=%q: part %s: expected %s", envJobIndex, index, envParts, count, p, pe.Expected)
}
