package cli

import (
	"errors"
	"fmt"
	"os"
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
		&ucli.StringFlag{Name: "db", EnvVars: []string{"OIDKIT_DB"}, Value: seed.DefaultDB, Usage: "database name"},
		&ucli.StringFlag{Name: "collection", Usage: "collection name (default: the kind's plural, e.g. users, or the template's base name); with --plan, only this collection of the plan"},
		&ucli.StringFlag{Name: "kind", Usage: "built-in document kind: " + strings.Join(seed.Kinds(), ", ") + " (default user)"},
		&ucli.StringFlag{Name: "template", Usage: "JSON template `FILE` whose strings may hold gofakeit placeholders such as {firstname}"},
		&ucli.StringFlag{Name: "plan", Usage: "plan `FILE` (JSON), or a built-in plan: " + strings.Join(seed.BuiltinPlans(), ", ")},
		&ucli.Int64Flag{Name: "n", Aliases: []string{"count"}, Value: 1000, Usage: "number of documents (with --plan shop: number of users)"},
		&ucli.StringFlag{Name: "id", Value: "objectid", Usage: "_id strategy: objectid, int, uuid or field:NAME"},
		&ucli.Int64Flag{Name: "id-start", Value: 1, Usage: "first _id of --id int"},
		&ucli.StringFlag{Name: "seed", Usage: "seed (unsigned integer) for identical documents and IDs on every run"},
		&ucli.StringFlag{Name: "at", Usage: "time base, RFC 3339 or Unix seconds (default with --seed: 2024-01-01T00:00:00Z; without: now)"},
		&ucli.StringFlag{Name: "span", Value: "0s", Usage: "spread timestamps over this window ending at the time base (e.g. 90m, 72h, 30d)"},
	}
}

// planFromFlags turns the plan flags into a validated plan. Bad values are
// usage errors (exit 2) naming the flag and the value.
func planFromFlags(c *ucli.Context) (*seed.Plan, error) {
	// An explicitly empty --db or --collection (say, from an unset shell
	// variable) would silently fall back to the default; refuse it instead.
	for _, f := range []string{"db", "collection"} {
		if c.IsSet(f) && strings.TrimSpace(c.String(f)) == "" {
			return nil, usageErrorf("--%s %q: expected a non-empty name (leave the flag out for the default)", f, c.String(f))
		}
	}
	p := &seed.Plan{DB: c.String("db")}
	if c.IsSet("seed") {
		v, err := parseSeedFlag(c)
		if err != nil {
			return nil, err
		}
		p.Seed, p.Seeded = v, true
	}
	if c.IsSet("at") {
		t, err := parseTime("at", c.String("at"))
		if err != nil {
			return nil, err
		}
		p.At = t
	}
	span, err := parseSpan(c.String("span"))
	if err != nil {
		return nil, err
	}
	p.Span = span

	n := c.Int64("n")
	if n < 0 || n > seed.MaxCount {
		return nil, usageErrorf("-n %d: expected a count from 0 to %d", n, seed.MaxCount)
	}
	kind, tmplPath, planArg := c.String("kind"), c.String("template"), c.String("plan")
	switch {
	case planArg != "" && (c.IsSet("kind") || c.IsSet("template")):
		return nil, usageErrorf("--plan %q: a plan names its kinds and templates; drop --kind/--template", planArg)
	case c.IsSet("kind") && c.IsSet("template"):
		return nil, usageErrorf("--kind %q and --template %q: expected one of them", kind, tmplPath)
	}

	if planArg != "" {
		for _, f := range []string{"id", "id-start"} {
			if c.IsSet(f) {
				return nil, usageErrorf("--%s %q: a plan sets _id strategies per collection; drop --%s", f, c.String(f), f)
			}
		}
		var pl *seed.Plan
		if isBuiltinPlan(planArg) {
			pl, err = seed.BuiltinPlan(planArg, n)
		} else {
			if c.IsSet("n") {
				return nil, usageErrorf("-n %d: plan file %q sets the count of each collection; drop -n", n, planArg)
			}
			pl, err = seed.LoadPlan(planArg)
		}
		if err != nil {
			return nil, usageErrorf("--plan %q: %v", planArg, err)
		}
		if !c.IsSet("db") && pl.DB != "" {
			p.DB = pl.DB
		}
		p.Collections = pl.Collections
		if only := c.String("collection"); only != "" {
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
				return nil, usageErrorf("--collection %q: plan %q has no such collection; expected one of %s", only, planArg, strings.Join(names, ", "))
			}
		}
	} else {
		id, err := seed.ParseIDStrategy(c.String("id"))
		if err != nil {
			return nil, usageErrorf("--id %q: %v", c.String("id"), err)
		}
		cs := seed.CollectionSpec{Count: n, ID: id, IDStart: c.Int64("id-start")}
		if tmplPath != "" {
			t, err := seed.LoadTemplate(tmplPath)
			if err != nil {
				return nil, usageErrorf("--template %q: %v", tmplPath, err)
			}
			cs.Template = t
		} else {
			if kind == "" {
				kind = seed.KindUser
			}
			cs.Kind = kind
		}
		cs.Name = c.String("collection")
		if cs.Name == "" {
			cs.Name = seed.DefaultCollectionName(cs.Kind, cs.Template)
		}
		p.Collections = []seed.CollectionSpec{cs}
		if cs.Kind == seed.KindOrder {
			// Orders alone refer to the users and products that
			// `--kind user -n N` and `--kind product -n N/10` write with
			// the same seed, time base and span.
			p.Collections = append(p.Collections,
				seed.CollectionSpec{Name: "users", Kind: seed.KindUser, Count: max(n, 1), RefOnly: true},
				seed.CollectionSpec{Name: "products", Kind: seed.KindProduct, Count: max(1, n/10), RefOnly: true},
			)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, usageError(planFlagError(c, err))
	}
	return p, nil
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
	if c.String("plan") != "" {
		return fmt.Errorf("--plan %q: %w", c.String("plan"), err)
	}
	var pe *seed.PlanError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Setting {
	case seed.SettingIDStart:
		return fmt.Errorf("--id-start %d: %w", c.Int64("id-start"), err)
	case seed.SettingID:
		return fmt.Errorf("--id %q: %w", c.String("id"), err)
	case seed.SettingSpan:
		return fmt.Errorf("--span %q: %w", c.String("span"), err)
	case seed.SettingAt:
		return fmt.Errorf("--at %q: %w", c.String("at"), err)
	case seed.SettingTemplate:
		return fmt.Errorf("--template %q: %w", c.String("template"), err)
	case seed.SettingKind:
		return fmt.Errorf("--kind %q: %w", c.String("kind"), err)
	case seed.SettingCount:
		return fmt.Errorf("-n %d: %w", c.Int64("n"), err)
	case seed.SettingCollection:
		return fmt.Errorf("--collection %q: %w", c.String("collection"), err)
	case seed.SettingDB:
		return fmt.Errorf("--db %q: %w", c.String("db"), err)
	}
	return err
}

// parseSeedFlag reads --seed with seed.ParseSeed.
func parseSeedFlag(c *ucli.Context) (uint64, error) {
	v, err := seed.ParseSeed(c.String("seed"))
	var pe *seed.PlanError
	if errors.As(err, &pe) {
		return 0, usageErrorf("--seed %q: %v", c.String("seed"), pe.Err)
	}
	return v, err
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
			return 0, usageErrorf("--span %q: expected a duration such as 90m, 72h or 30d (0 to 50000 days)", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 {
		return 0, usageErrorf("--span %q: expected a duration >= 0 such as 90m, 72h or 30d", s)
	}
	if d%time.Second != 0 {
		return 0, usageErrorf("--span %q: expected whole seconds (ObjectID timestamps have 1 s resolution)", s)
	}
	return d, nil
}
