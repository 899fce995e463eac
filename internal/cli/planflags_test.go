package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/internal/flagrules"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// planOf runs planOptions and planFrom on args through a one-command app.
func planOf(t *testing.T, args ...string) (*seed.Plan, error) {
	t.Helper()
	var plan *seed.Plan
	var perr error
	app := &ucli.App{
		Name:           "oidkit",
		ExitErrHandler: func(*ucli.Context, error) {},
		Commands: []*ucli.Command{{
			Name:  "x",
			Flags: planFlags(),
			Action: func(c *ucli.Context) error {
				// As seed runs them: the flag rules first.
				if err := flagrules.Check(c, "seed", flagRules(), flagURI); err != nil {
					perr = usageError(err)
				} else {
					plan, perr = run.NewSettings(planOptions(c)).NewPlan()
					perr = settingsUsage(perr)
				}
				return nil
			},
		}},
	}
	if err := app.Run(append([]string{"oidkit", "x"}, args...)); err != nil {
		t.Fatalf("flag parsing: %v", err)
	}
	return plan, perr
}

func TestPlanFromFlags(t *testing.T) {
	p, err := planOf(t)
	if err != nil {
		t.Fatal(err)
	}
	cs := p.Collections[0]
	if p.DB != "oidkit" || p.Seeded || len(p.Collections) != 1 || cs.Name != "users" || cs.Kind != "user" || cs.Count != 1000 || cs.ID.Kind != seed.IDObjectID {
		t.Fatalf("defaults: %+v %+v", p, cs)
	}

	p, err = planOf(t, "--db", "hr", "--kind", "employee", "-n", "5", "--id", "int", "--id-start", "10", "--seed", "42", "--at", "2023-11-14T22:13:20Z", "--span", "30d", "--collection", "Employee")
	if err != nil {
		t.Fatal(err)
	}
	cs = p.Collections[0]
	if p.DB != "hr" || !p.Seeded || p.Seed != 42 || p.At.Unix() != 1700000000 || p.Span != 30*24*time.Hour ||
		cs.Name != "Employee" || cs.Kind != "employee" || cs.Count != 5 || cs.ID.Kind != seed.IDInt || cs.IDStart != 10 {
		t.Fatalf("flags: %+v %+v", p, cs)
	}

	p, err = planOf(t, "--plan", "shop", "-n", "20", "--collection", "orders")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Collections) != 3 || p.Collections[0].Count != 20 || p.Collections[1].Count != 2 || p.Collections[2].Count != 60 ||
		!p.Collections[0].RefOnly || !p.Collections[1].RefOnly || p.Collections[2].RefOnly {
		t.Fatalf("shop: %+v", p.Collections)
	}

	// Orders alone refer to the users and products of the same seed.
	p, err = planOf(t, "--kind", "order", "-n", "30")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Collections) != 3 || p.Collections[1].Name != "users" || !p.Collections[1].RefOnly || p.Collections[2].Count != 3 {
		t.Fatalf("order: %+v", p.Collections)
	}

	dir := t.TempDir()
	tmpl := filepath.Join(dir, "review.json")
	_ = os.WriteFile(tmpl, []byte(`{"who": "{firstname}", "key": "r{index}"}`), 0o644)
	p, err = planOf(t, "--template", tmpl, "--id", "field:key")
	if err != nil {
		t.Fatal(err)
	}
	if p.Collections[0].Name != "review" || p.Collections[0].Template == nil {
		t.Fatalf("template: %+v", p.Collections[0])
	}
}

// --kind takes a kind or its plural, which names the same kind and the
// same default collection; anything else is named as typed.
func TestPlanFromFlagsKindsAndSpan(t *testing.T) {
	for _, k := range seed.Kinds() {
		for _, typed := range []string{k, k + "s"} {
			p, err := planOf(t, "--kind", typed)
			if err != nil {
				t.Fatalf("--kind %s: %v", typed, err)
			}
			if cs := p.Collections[0]; cs.Kind != k || cs.Name != k+"s" {
				t.Errorf("--kind %s: kind %q, collection %q; want %q, %q", typed, cs.Kind, cs.Name, k, k+"s")
			}
		}
	}
	for typed, hint := range map[string]string{"usr": "; did you mean user?", "userss": "; did you mean users?", "Employees": "; did you mean employees?", "cat": ""} {
		_, err := planOf(t, "--kind", typed)
		want := `--kind "` + typed + `": expected a kind: user, employee, product, order, or its plural` + hint
		if err == nil || exitCode(err) != ExitUsage || err.Error() != want {
			t.Errorf("--kind %s: %v; want %q", typed, err, want)
		}
	}

	// Without --span the window is a year before the time base, and never
	// before the ObjectID epoch; --span 0 is one second.
	year := 365 * 24 * time.Hour
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{nil, year},
		{[]string{"--seed", "1"}, year},
		{[]string{"--span", "0"}, 0},
		{[]string{"--span", "2h"}, 2 * time.Hour},
		{[]string{"--at", "1970-01-02T00:00:00Z"}, 24 * time.Hour},
		{[]string{"--at", "0", "--seed", "3"}, 0},
	} {
		p, err := planOf(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		ds, err := p.Build()
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if ds.Span != c.want {
			t.Errorf("%v: span %v; want %v", c.args, ds.Span, c.want)
		}
	}
}

func TestPlanFromFlagsErrors(t *testing.T) {
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.json")
	_ = os.WriteFile(planFile, []byte(`{"collections": [{"name": "o", "kind": "order", "count": 3, "refs": [{"field": "userId", "to": "people"}]}]}`), 0o644)
	zeroPlan := filepath.Join(dir, "zero.json")
	_ = os.WriteFile(zeroPlan, []byte(`{"collections": [{"name": "u", "kind": "user", "count": 0}, {"name": "e", "kind": "employee", "count": 3}]}`), 0o644)
	badTmpl := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(badTmpl, []byte(`{"a": {"b": "{nosuch}"}}`), 0o644)
	clockTmpl := filepath.Join(dir, "clock.json")
	_ = os.WriteFile(clockTmpl, []byte(`{"at": "{pastdate}"}`), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--seed", "abc"}, `--seed "abc": expected an unsigned integer`},
		{[]string{"--seed", "-1"}, `--seed "-1"`},
		{[]string{"--id", "serial"}, `--id "serial"`},
		{[]string{"--id", "field:age"}, `--id "field:age"`},
		{[]string{"--kind", "product", "--id", "field:email"}, `no field "email"`},
		{[]string{"--kind", "cat"}, `--kind "cat"`},
		{[]string{"--span", "5x"}, `--span "5x"`},
		{[]string{"--span", "-1h"}, `--span "-1h"`},
		{[]string{"--span", "1500ms"}, `whole seconds`},
		{[]string{"--at", "yesterday"}, `--at "yesterday"`},
		{[]string{"--at", "1970-01-01T00:00:00Z", "--span", "1h", "--seed", "1"}, `--span "1h"`},
		{[]string{"-n", "-1"}, `-n -1`},
		{[]string{"--kind", "user", "--template", "x.json"}, `expected one of them`},
		{[]string{"--plan", "shop", "--kind", "user"}, `--plan "shop"`},
		{[]string{"--plan", "shop", "--id", "int"}, `--id "int"`},
		{[]string{"--plan", "shop", "--collection", "reviews"}, `--collection "reviews": plan "shop" has no such collection; expected one of users, products, orders`},
		{[]string{"--plan", zeroPlan, "-n", "4"}, `-n 4: invalid plan: collection "u": count 0: the plan's first collection sets the scale`},
		{[]string{"--plan", planFile}, `refers to collection "people", which is not in the plan`},
		{[]string{"--plan", filepath.Join(dir, "none.json")}, `none.json`},
		{[]string{"--template", badTmpl}, `$.a.b: "{nosuch}"`},
		{[]string{"--template", filepath.Join(dir, "none.json")}, `--template`},
		{[]string{"--collection", "a$b"}, `--collection "a$b"`},
		{[]string{"--template", clockTmpl, "--seed", "1"}, `--template "` + clockTmpl + `": invalid plan: collection "clock": template ` + clockTmpl + `: $.at: {pastdate} gives different values for the same seed`},
		{[]string{"--db", "a/b"}, `--db "a/b"`},
		{[]string{"--db", "a*b"}, `--db "a*b": invalid plan: database name "a*b": expected no`},
		{[]string{"--id", "int", "--id-start", "9223372036854775807", "-n", "2"}, `--id-start 9223372036854775807: invalid plan: collection "users": idStart 9223372036854775807: the last _id would overflow int64`},
		{[]string{"--collection", "system.x"}, `--collection "system.x": invalid plan: collections[0]: collection name "system.x": the system. prefix is reserved`},
		{[]string{"--db", ""}, `--db "": expected a non-empty name`},
		{[]string{"--collection", ""}, `--collection "": expected a non-empty name`},
		{[]string{"--plan", "shop", "--collection", " "}, `--collection " ": expected a non-empty name`},
	}
	for _, tc := range cases {
		_, err := planOf(t, tc.args...)
		if err == nil || exitCode(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v (exit %d); want exit 2 and %q", tc.args, err, exitCodeOf(err), tc.want)
		}
	}
}

func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	return exitCode(err)
}

// Every plan setting has a flag the plan commands have (its own, or
// --plan), and a plan flag named as a setting (--id-start, idStart) is
// that setting's own: a new flag without its line in ownFlags fails here.
func TestEverySettingHasAFlag(t *testing.T) {
	flags := map[string]string{} // each name of a plan flag -> its first name
	for _, f := range append(planFlags(), refFlag()) {
		for _, n := range f.Names() {
			flags[n] = f.Names()[0]
		}
	}
	normal := func(name string) string { return strings.ToLower(strings.ReplaceAll(name, "-", "")) }
	own := 0
	for _, s := range seed.Settings() {
		f := settingFlag(s)
		if flags[f] == "" {
			t.Errorf("setting %s: flag %q is none of the plan flags", s, f)
		}
		for name, first := range flags {
			if normal(name) == normal(s.String()) && flags[f] != first {
				t.Errorf("setting %s: its flag is %q, but the plan flag --%s is named as it: add it to ownFlags", s, f, name)
			}
		}
		if f != flagPlan {
			own++
		}
	}
	if own < 10 {
		t.Errorf("%d settings have a flag of their own; expected at least 10", own)
	}
}
