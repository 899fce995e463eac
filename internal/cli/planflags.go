package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

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
		&ucli.StringFlag{Name: flagID, Value: "objectid", Usage: "_id strategy: objectid, int, uuid or field:NAME"},
		&ucli.Int64Flag{Name: flagIDStart, Value: 1, Usage: "first _id of --id int"},
		&ucli.StringFlag{Name: flagSeed, Usage: "seed (unsigned integer) for identical documents and IDs on every run"},
		&ucli.StringFlag{Name: flagAt, Usage: "time base: " + timeForms + " (default with --seed: 2024-01-01T00:00:00Z; without: now)"},
		&ucli.StringFlag{Name: flagSpan, Value: defaultSpan, Usage: "spread timestamps over this window ending at the time base (e.g. 90m, 72h, 30d; 0: all in one second)"},
	}
}

// defaultSpan is the window --span spreads _id timestamps over when it is not
// given: a year, ending at the time base, as a collection that has been in use
// for a while looks (or back to 1970-01-01, where the time base is earlier
// than a year after it). seed, fixtures and verify db share it with the rest of
// the plan flags, so verify db rebuilds what seed wrote. It is the flag's
// default, not seed.Plan's: a plan built in Go keeps Span 0 (one second).
const defaultSpan = "365d"

// planFromFlags turns the plan flags into a validated plan. Bad values are
// usage errors (exit 2) naming the flag and the value.
func planFromFlags(c *ucli.Context) (*seed.Plan, error) {
	// An explicitly empty --db or --collection (say, from an unset shell
	// variable) would silently fall back to the default; refuse it instead.
	for _, f := range []string{flagDB, flagCollection} {
		if c.IsSet(f) && strings.TrimSpace(c.String(f)) == "" {
			return nil, usageErrorf("%s %q: expected a non-empty name (leave the flag out for the default)", arg(f), c.String(f))
		}
	}
	p := &seed.Plan{DB: c.String(flagDB)}
	if c.IsSet(flagSeed) {
		v, err := parseSeedFlag(c)
		if err != nil {
			return nil, err
		}
		p.Seed, p.Seeded = v, true
	}
	if c.IsSet(flagAt) {
		t, err := parseTime(flagAt, c.String(flagAt))
		if err != nil {
			return nil, err
		}
		p.At = t
	}
	span, err := parseSpan(c.String(flagSpan))
	if err != nil {
		return nil, err
	}
	if !c.IsSet(flagSpan) {
		// The default window never starts before the ObjectID epoch: a time
		// base in 1970 gets the part of the year that exists.
		span = min(span, seed.TimeBase(p.At, p.Seeded).Sub(time.Unix(0, 0)))
	}
	p.Span = span

	n := c.Int64(flagCount)
	if n < 0 || n > seed.MaxCount {
		return nil, usageErrorf("%s %d: expected a count from 0 to %d", arg(flagCount), n, seed.MaxCount)
	}
	// Which of these flags go together is checked by flagRules before the
	// command runs.
	kind, tmplPath, planArg := c.String(flagKind), c.String(flagTemplate), c.String(flagPlan)
	if planArg != "" {
		var pl *seed.Plan
		builtin := isBuiltinPlan(planArg)
		if builtin {
			pl, err = seed.BuiltinPlan(planArg, n)
		} else {
			pl, err = seed.LoadPlan(planArg)
		}
		if err != nil {
			return nil, usageErrorf("%s %q: %v%s", arg(flagPlan), planArg, err, planHint(err))
		}
		if !builtin && c.IsSet(flagCount) {
			if err := pl.Scale(n); err != nil {
				return nil, usageErrorf("%s %d: %v", arg(flagCount), n, err)
			}
		}
		if !c.IsSet(flagDB) && pl.DB != "" {
			p.DB = pl.DB
		}
		p.Collections = pl.Collections
		if !c.IsSet(flagAt) && !pl.At.IsZero() { // an inferred plan's time window
			p.At, p.Span = pl.At, pl.Span
		}
		if only := c.String(flagCollection); only != "" {
			found := false
			for k := range p.Collections {
				if p.Collections[k].Name == only {
					found = true
				} else {
					p.Collections[k].RefOnly = true
				}
			}
			if !found {
				names := make([]string, len(p.Collections))
				for k, cs := range p.Collections {
					names[k] = cs.Name
				}
				return nil, usageErrorf("%s %q: plan %q has no such collection; expected one of %s", arg(flagCollection), only, planArg, strings.Join(names, ", "))
			}
		}
	} else {
		id, err := seed.ParseIDStrategy(c.String(flagID))
		if err != nil {
			return nil, usageErrorf("%s %q: %v%s", arg(flagID), c.String(flagID), err, idStrategyHint(c.String(flagID)))
		}
		cs := seed.CollectionSpec{Count: n, ID: id, IDStart: c.Int64(flagIDStart)}
		if tmplPath != "" {
			t, err := seed.LoadTemplate(tmplPath)
			if err != nil {
				return nil, usageErrorf("%s %q: %v", arg(flagTemplate), tmplPath, err)
			}
			cs.Template = t
		} else {
			cs.Kind = seed.KindUser
			if kind != "" {
				if cs.Kind, err = kindFromFlag(kind); err != nil {
					return nil, err
				}
			}
		}
		cs.Name = c.String(flagCollection)
		if cs.Name == "" {
			cs.Name = seed.DefaultCollectionName(cs.Kind, cs.Template)
		}
		p.Collections = []seed.CollectionSpec{cs}
		if cs.Kind == seed.KindOrder {
			// Orders alone refer to the users and products that
			// `--kind user -n N` and `--kind product -n N/10` write with
			// the same seed, time base and span.
			p.Collections = append(p.Collections, seed.OrderRefs(n)...)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, usageError(planFlagError(c, err))
	}
	return p, nil
}

// kindFromFlag is the built-in kind --kind names: the kind (user) or its
// plural (users, which is also its default collection name). Anything else
// is refused as typed, with the nearest of those names.
func kindFromFlag(s string) (string, error) {
	var names []string
	for _, k := range seed.Kinds() {
		plural := seed.DefaultCollectionName(k, nil)
		if s == k || s == plural {
			return k, nil
		}
		names = append(names, k, plural)
	}
	return "", usageErrorf("%s %q: expected a kind: %s, or its plural%s", arg(flagKind), s, strings.Join(seed.Kinds(), ", "), didYouMean(s, names))
}

// datasetFromFlags is planFromFlags followed by Build.
func datasetFromFlags(c *ucli.Context) (*seed.Dataset, error) {
	p, err := planFromFlags(c)
	if err != nil {
		return nil, err
	}
	ds, err := p.Build()
	if err != nil {
		return nil, usageError(planFlagError(c, err))
	}
	return ds, nil
}

// planFlagError names the flag behind a plan error: with --plan every
// setting comes from the plan (or its file); otherwise the error's Setting
// says which flag was wrong.
func planFlagError(c *ucli.Context, err error) error {
	if c.String(flagPlan) != "" {
		return fmt.Errorf("%s %q: %w%s", arg(flagPlan), c.String(flagPlan), err, planHint(err))
	}
	var pe *seed.PlanError
	if !errors.As(err, &pe) {
		return err
	}
	if hint := planHint(err); hint != "" {
		err = fmt.Errorf("%w%s", err, hint)
	}
	switch pe.Setting {
	case seed.SettingIDStart:
		return fmt.Errorf("%s %d: %w", arg(flagIDStart), c.Int64(flagIDStart), err)
	case seed.SettingID:
		return fmt.Errorf("%s %q: %w", arg(flagID), c.String(flagID), err)
	case seed.SettingSpan:
		return fmt.Errorf("%s %q: %w", arg(flagSpan), c.String(flagSpan), err)
	case seed.SettingAt:
		return fmt.Errorf("%s %q: %w", arg(flagAt), c.String(flagAt), err)
	case seed.SettingTemplate:
		return fmt.Errorf("%s %q: %w", arg(flagTemplate), c.String(flagTemplate), err)
	case seed.SettingKind:
		return fmt.Errorf("%s %q: %w", arg(flagKind), c.String(flagKind), err)
	case seed.SettingCount:
		return fmt.Errorf("%s %d: %w", arg(flagCount), c.Int64(flagCount), err)
	case seed.SettingCollection:
		return fmt.Errorf("%s %q: %w", arg(flagCollection), c.String(flagCollection), err)
	case seed.SettingDB:
		return fmt.Errorf("%s %q: %w", arg(flagDB), c.String(flagDB), err)
	}
	return err
}

// parseSeedFlag reads --seed with seed.ParseSeed.
func parseSeedFlag(c *ucli.Context) (uint64, error) {
	v, err := seed.ParseSeed(c.String(flagSeed))
	var pe *seed.PlanError
	if errors.As(err, &pe) {
		return 0, usageErrorf("%s %q: %v", arg(flagSeed), c.String(flagSeed), pe.Err)
	}
	return v, err
}

// planHint is the did-you-mean of a plan error: the nearest kind for an
// unknown kind, _id strategy for an unknown one, built-in plan for a plan
// file that does not exist; "" when none is near.
func planHint(err error) string {
	var pe *seed.PlanError
	if !errors.As(err, &pe) {
		return ""
	}
	switch pe.Setting {
	case seed.SettingKind:
		if !slices.Contains(seed.Kinds(), pe.Value) {
			return didYouMean(pe.Value, seed.Kinds())
		}
	case seed.SettingID:
		return idStrategyHint(pe.Value)
	case seed.SettingFile:
		if errors.Is(err, fs.ErrNotExist) {
			return didYouMean(pe.Value, seed.BuiltinPlans())
		}
	}
	return ""
}

// idStrategyHint is the did-you-mean of an unknown _id strategy: the
// nearest of objectid, int and uuid, or field:NAME for a misspelt field:.
func idStrategyHint(v string) string {
	t := strings.TrimSpace(v)
	if _, name, ok := strings.Cut(t, ":"); ok {
		return didYouMean(t, []string{seed.IDStrategy{Kind: seed.IDField, Field: name}.String()})
	}
	var names []string
	for _, k := range []seed.IDKind{seed.IDObjectID, seed.IDInt, seed.IDUUID} {
		names = append(names, seed.IDStrategy{Kind: k}.String())
	}
	return didYouMean(t, names)
}

func isBuiltinPlan(s string) bool {
	for _, b := range seed.BuiltinPlans() {
		if s == b {
			if _, err := os.Stat(s); errors.Is(err, os.ErrNotExist) {
				return true
			}
		}
	}
	return false
}

// parseSpan reads a Go duration (90m, 72h) or a number of days (30d).
func parseSpan(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" || t == "0" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(t, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n < 0 || n > 50000 {
			return 0, usageErrorf("%s %q: expected a duration such as 90m, 72h or 30d (0 to 50000 days)", arg(flagSpan), s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 {
		return 0, usageErrorf("%s %q: expected a duration >= 0 such as 90m, 72h or 30d", arg(flagSpan), s)
	}
	if d%time.Second != 0 {
		return 0, usageErrorf("%s %q: expected whole seconds (ObjectID timestamps have 1 s resolution)", arg(flagSpan), s)
	}
	return d, nil
}
