package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"
)

// runIDCmd runs the whole app into buffers, as main does.
func runIDCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = NewApp(strings.NewReader(stdin), &out, &errb).Run(append([]string{"oidkit"}, args...))
	return code, out.String(), errb.String()
}

func TestAppUnknownCommandsAndUsage(t *testing.T) {
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"bogus"}, ExitUsage, `unknown command "bogus"`},
		{[]string{"verify", "bogus"}, ExitUsage, `unknown command "bogus"`},
		{[]string{"gen", "--bogus"}, ExitUsage, "flag provided but not defined: -bogus"},
		{[]string{"gen", "-n", "x"}, ExitUsage, `gen: -n "x": expected a whole number`},
		{[]string{"gen", "-n", "1.5"}, ExitUsage, `-n "1.5": expected a whole number`},
		{[]string{"seed", "--id-start", "abc"}, ExitUsage, `seed: --id-start "abc": expected a whole number`},
		{[]string{"seed", "--timeout", "soon"}, ExitUsage, `seed: --timeout "soon": expected a duration such as 10s`},
		{[]string{"verify", "ids", "--count", "many"}, ExitUsage, `ids: --count "many": expected a whole number`},
		{[]string{"inspect", "--json=maybe", "x"}, ExitUsage, `inspect: --json "maybe": expected true or false`},
		{[]string{"help"}, ExitOK, ""},
		{[]string{"gen", "--help"}, ExitOK, ""},
		{[]string{}, ExitOK, ""},
	}
	for _, c := range cases {
		code, _, errOut := runIDCmd(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.err) {
			t.Errorf("oidkit %v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.err)
		}
	}
	// A bad value in an environment variable names the variable too.
	t.Setenv("OIDKIT_TIMEOUT", "soon")
	code, _, errOut := runIDCmd(t, "", "seed", "-n", "1")
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
	code, help, _ := runIDCmd(t, "", "--help")
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
