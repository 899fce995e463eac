package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/internal/flagrules"
)

// ruleArgs is a command line that breaks rule r and no rule before it: the
// flag with a sample value, and the other flag (conflicts), or the other
// flag with another value or none (needs).
func ruleArgs(t *testing.T, cmd string, r flagrules.Rule) []string {
	t.Helper()
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "t.json")
	fixture := filepath.Join(dir, "f.ndjson")
	_ = os.WriteFile(tmpl, []byte(`{"name":"{firstname}"}`), 0o644)
	_ = os.WriteFile(fixture, []byte(`{"_id":1}`+"\n"), 0o644)
	sample := map[string]string{
		flagKind: "user", flagTemplate: tmpl, flagPlan: "shop", flagCount: "5", flagID: "uuid", flagIDStart: "5",
		flagSeed: "1", flagAt: "2024-01-01", flagSpan: "1h", flagDB: "x", flagBatch: "10", flagDataDir: dir,
		flagURI: "mongodb://u:secret@127.0.0.1:1/", flagTimeout: "1s", flagCollection: "c", flagField: "a",
		flagTimeField: "t", flagFixture: fixture, flagFrom: "2024-01-01", flagTo: "2024-01-02", flagRef: "userId=users",
	}
	args := strings.Fields(cmd)
	add := func(f string) {
		if v, ok := sample[f]; ok {
			args = append(args, arg(f), v)
		} else {
			args = append(args, arg(f)) // a switch
		}
	}
	add(r.Flag)
	switch r.Kind {
	case flagrules.Conflicts:
		if r.Other == flagrules.Stdin {
			args = append(args, flagrules.Stdin)
		} else {
			add(r.Other)
		}
	case flagrules.Needs:
		if r.Value != "" {
			add(r.Other) // a sample value other than the needed one
			if sample[r.Other] == r.Value {
				t.Fatalf("rule %v: the sample value of %s is the needed one", r, r.Other)
			}
		}
	}
	// verify db refuses generation flags without --seed before anything
	// else; the other rules are reached with it.
	if cmd == "verify db" && r.Other != flagFixture && r.Other != flagSeed && r.Flag != flagSeed {
		args = append(args, arg(flagSeed), "1")
	}
	return args
}

// Every rule of the table, through the whole app: exit 2, nothing on
// stdout, and a message naming both flags and the rule's reason.
func TestFlagRules(t *testing.T) {
	rules := flagRules()
	if len(rules) < 30 {
		t.Fatalf("%d rules", len(rules))
	}
	for _, r := range rules {
		for _, cmd := range r.Cmds {
			args := ruleArgs(t, cmd, r)
			out, errOut, code := runApp(t, t.Context(), "", args...)
			names := []string{arg(r.Flag), r.Why}
			if r.Other == flagrules.Stdin {
				names = append(names, "- (standard input)")
			} else {
				names = append(names, arg(r.Other))
			}
			for _, n := range names {
				if code != ExitUsage || out != "" || !strings.Contains(errOut, n) {
					t.Errorf("oidkit %s: exit %d, stdout %q, stderr %q; want exit 2 naming %q", strings.Join(args, " "), code, out, errOut, n)
					break
				}
			}
			if strings.Contains(errOut, "secret") {
				t.Errorf("oidkit %s: the password shows: %q", strings.Join(args, " "), errOut)
			}
		}
	}
}

// The rules let the same flags through when they do have an effect.
func TestFlagRulesAllow(t *testing.T) {
	for _, args := range [][]string{
		{"fixtures", "-n", "1", "--seed", "1", "--id", "int", "--id-start", "5"},
		{"fixtures", "-n", "1", "--seed", "1", "--id", " int", "--id-start", "5"},
		{"fixtures", "--plan", "shop", "-n", "1", "--seed", "1", "--collection", "users", "--out", t.TempDir()},
	} {
		if out, errOut, code := runApp(t, t.Context(), "", args...); code != ExitOK {
			t.Errorf("oidkit %v: exit %d %s %s", args, code, out, errOut)
		}
	}
}

// The flag a rule is about counts only when it is on the command line; the
// other flag counts when it comes from its environment variable too.
func TestFlagRulesAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	// OIDKIT_DATA_DIR is a default for every command: with --uri it is
	// left alone (the connection fails later, on the bad --uri).
	t.Setenv(envDataDir, dir)
	_, errOut, code := runApp(t, t.Context(), "", "seed", "-n", "1", "--uri", "http://x")
	if code != ExitUsage || strings.Contains(errOut, "embedded server's") || !strings.Contains(errOut, `--uri "http://x"`) {
		t.Errorf("OIDKIT_DATA_DIR with --uri: exit %d %q; want the --uri error, not the rule", code, errOut)
	}
	// OIDKIT_DB with audit of standard input, where it does nothing.
	t.Setenv(envDB, "elsewhere")
	if out, errOut, code := runApp(t, t.Context(), "", "audit", "-"); strings.Contains(errOut, "--db") {
		t.Errorf("OIDKIT_DB with audit -: exit %d %q %q", code, out, errOut)
	}
	// An empty OIDKIT_URI names no server: --data-dir applies.
	t.Setenv(envURI, "")
	_, errOut, _ = runApp(t, t.Context(), "", "verify", "db", "--data-dir", filepath.Join(dir, "none"))
	if !strings.Contains(errOut, "no such directory") {
		t.Errorf("--data-dir with OIDKIT_URI empty: %q; want the missing directory named", errOut)
	}
	// The same value on the command line as in the variable cannot be told
	// apart from it, and is taken as the variable's.
	_, errOut, _ = runApp(t, t.Context(), "", "audit", "--data-dir", dir, "-")
	if strings.Contains(errOut, "without --collection") {
		t.Errorf("--data-dir equal to OIDKIT_DATA_DIR: %q", errOut)
	}
	_, errOut, code = runApp(t, t.Context(), "", "audit", "--data-dir", filepath.Join(dir, "other"), "-")
	if code != ExitUsage || !strings.Contains(errOut, "without --collection") {
		t.Errorf("audit --data-dir other -: exit %d %q", code, errOut)
	}
	// --data-dir on the command line with OIDKIT_URI: refused, naming the
	// variable, and the password stays hidden.
	t.Setenv(envURI, "mongodb://u:secret@127.0.0.1:1/")
	_, errOut, code = runApp(t, t.Context(), "", "seed", "-n", "1", "--data-dir", filepath.Join(dir, "other"))
	if code != ExitUsage || !strings.Contains(errOut, "--data-dir") || !strings.Contains(errOut, "(from "+envURI+")") || strings.Contains(errOut, "secret") {
		t.Errorf("--data-dir with OIDKIT_URI: exit %d %q", code, errOut)
	}
}
