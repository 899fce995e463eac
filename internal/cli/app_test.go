package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"
)

func TestAppUnknownCommandsAndUsage(t *testing.T) {
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"bogus"}, ExitUsage, `unknown command "bogus"`},
		{[]string{"verify", "bogus"}, ExitUsage, `unknown command "bogus"`},
		{[]string{"gen", "--bogus"}, ExitUsage, "gen: unknown flag --bogus; see oidkit gen --help"},
		{[]string{"gen", "-n", "x"}, ExitUsage, `gen: -n "x": expected a whole number`},
		{[]string{"gen", "-n", "1.5"}, ExitUsage, `-n "1.5": expected a whole number`},
		{[]string{"seed", "--id-start", "abc"}, ExitUsage, `seed: --id-start "abc": expected a whole number`},
		{[]string{"seed", "--timeout", "soon"}, ExitUsage, `seed: --timeout "soon": expected a duration such as 10s`},
		{[]string{"seed", "--timeout", "0"}, ExitUsage, `--timeout 0s: expected a positive duration such as 10s`},
		{[]string{"export", "--timeout", "-2s", "--collection", "users"}, ExitUsage, `--timeout -2s: expected a positive duration such as 10s`},
		{[]string{"verify", "ids", "--count", "many"}, ExitUsage, `ids: --count "many": expected a whole number`},
		{[]string{"inspect", "--json=maybe", "x"}, ExitUsage, `inspect: --json "maybe": expected true or false`},
		{[]string{"help"}, ExitOK, ""},
		{[]string{"gen", "--help"}, ExitOK, ""},
		{[]string{}, ExitOK, ""},
	}
	for _, c := range cases {
		_, errOut, code := runApp(t, t.Context(), "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.err) {
			t.Errorf("oidkit %v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.err)
		}
	}
	// A bad value in an environment variable names the variable too.
	t.Setenv("OIDKIT_TIMEOUT", "soon")
	_, errOut, code := runApp(t, t.Context(), "", "seed", "-n", "1")
	if code != ExitUsage || !strings.Contains(errOut, `seed: --timeout "soon" (from OIDKIT_TIMEOUT): expected a duration such as 10s`) {
		t.Errorf("OIDKIT_TIMEOUT=soon: exit %d, stderr %q", code, errOut)
	}
	// The same app value runs twice without carrying state over.
	var out, errb bytes.Buffer
	app := NewApp(nil, &out, &errb)
	if app.Run([]string{"oidkit", "bogus"}) != ExitUsage || app.Run([]string{"oidkit", "gen"}) != ExitOK {
		t.Error("state carried over between runs")
	}
}

// TestRootHelpListsEveryEnvVar keeps the environment section of 'oidkit
// --help' in step with the flags: every variable a flag reads is listed.
func TestRootHelpListsEveryEnvVar(t *testing.T) {
	help, _, code := runApp(t, t.Context(), "", "--help")
	if code != ExitOK {
		t.Fatalf("oidkit --help: exit %d", code)
	}
	var walk func(cmds []*ucli.Command)
	seen := 0
	walk = func(cmds []*ucli.Command) {
		for _, c := range cmds {
			for _, f := range c.Flags {
				ef, ok := f.(interface{ GetEnvVars() []string })
				if !ok {
					continue
				}
				for _, env := range ef.GetEnvVars() {
					seen++
					if !strings.Contains(help, env+" ") {
						t.Errorf("oidkit --help does not list %s (flag --%s of %s)", env, f.Names()[0], c.Name)
					}
				}
			}
			walk(c.Subcommands)
		}
	}
	walk(NewApp(nil, io.Discard, io.Discard).app.Commands)
	if seen < 6 {
		t.Errorf("found %d environment variables on the flags; want at least the 6 documented", seen)
	}
}

// Exit codes come from where an error is made: an action's error without
// one is a run-time failure, a flag the library refuses is bad usage, and
// so is a missing required flag, which the library reports itself.
func TestExitCodesByOrigin(t *testing.T) {
	a := NewApp(nil, io.Discard, io.Discard)
	raw := &ucli.Command{Name: "raw", Action: func(*ucli.Context) error { return io.ErrUnexpectedEOF }}
	req := &ucli.Command{Name: "req", Flags: []ucli.Flag{&ucli.StringFlag{Name: "must", Required: true}}, Action: func(*ucli.Context) error { return nil }}
	classifyErrors(raw)
	classifyErrors(req)
	a.app.Commands = append(a.app.Commands, raw, req)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"raw"}, ExitFailure},
		{[]string{"raw", "--bogus"}, ExitUsage},
		{[]string{"req"}, ExitUsage},
		{[]string{"req", "--must", "x"}, ExitOK},
	} {
		if code := a.Run(append([]string{"oidkit"}, c.args...)); code != c.code {
			t.Errorf("oidkit %v: exit %d, want %d", c.args, code, c.code)
		}
	}
}

// The names people guess first work, and help shows them.
func TestAliasesAndVerifyHints(t *testing.T) {
	help, _, code := runApp(t, t.Context(), "", "help")
	for _, want := range []string{"gen, generate ", "inspect, decode ", "load, import ", "(existing _ids: see audit)"} {
		if code != ExitOK || !strings.Contains(help, want) {
			t.Errorf("oidkit help: exit %d, lacks %q:\n%s", code, want, help)
		}
	}
	gen, _, _ := runApp(t, t.Context(), "", "gen", "-n", "3", "--seed", "5")
	out, errOut, code := runApp(t, t.Context(), "", "generate", "-n", "3", "--seed", "5")
	if code != ExitOK || out != gen || gen == "" {
		t.Errorf("generate: exit %d, %q (stderr %q); want gen's %q", code, out, errOut, gen)
	}
	out, _, code = runApp(t, t.Context(), "", "decode", "507f1f77bcf86cd799439011")
	if code != ExitOK || !strings.Contains(out, "time 2012-10-17T21:13:27Z") {
		t.Errorf("decode: exit %d, %q", code, out)
	}
	_, errOut, code = runApp(t, t.Context(), "", "import")
	if code != ExitUsage || strings.Contains(errOut, "did you mean export") || !strings.HasPrefix(errOut, "oidkit: load ") {
		t.Errorf("import: exit %d, stderr %q; want load's own usage error", code, errOut)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"verify"}, []string{"verify: expected a subcommand: 'oidkit verify ids'", "'oidkit verify db'", "run 'oidkit audit'"}},
		{[]string{"verify", "--collection", "users"}, []string{"verify: --collection is a flag of 'oidkit verify db'; expected the subcommand before it: oidkit verify db --collection ..."}},
		{[]string{"verify", "--fixture", "a.ndjson"}, []string{"--fixture is a flag of 'oidkit verify db';"}},
		{[]string{"verify", "-n", "5"}, []string{"-n is a flag of 'oidkit verify ids' and 'oidkit verify db'"}},
		{[]string{"verify", "--bogus"}, []string{"verify: unknown flag --bogus"}},
		{[]string{"verify", "bogus"}, []string{`unknown command "bogus"`}},
	} {
		_, errOut, code := runApp(t, t.Context(), "", c.args...)
		for _, w := range c.want {
			if code != ExitUsage || !strings.Contains(errOut, w) {
				t.Errorf("oidkit %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, w)
			}
		}
	}
	help, _, code = runApp(t, t.Context(), "", "verify", "--help")
	if code != ExitOK || !strings.Contains(help, "run 'oidkit audit'") {
		t.Errorf("verify --help: exit %d, does not point to audit:\n%s", code, help)
	}
}
