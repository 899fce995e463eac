package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestFormatMessage(t *testing.T) {
	cases := []struct {
		kind     msgKind
		in, want string
	}{
		{msgError, "bad value", "oidkit: bad value\n"},
		{msgError, "Required flag \"x\" not set.", "oidkit: required flag \"x\" not set\n"},
		{msgError, "FerretDB refuses it.\n", "oidkit: FerretDB refuses it\n"},
		{msgError, "ObjectID is 12 bytes", "oidkit: ObjectID is 12 bytes\n"},
		{msgError, "--kind \"x\": expected user", "oidkit: --kind \"x\": expected user\n"},
		{msgError, "... and 5 more", "oidkit: ... and 5 more\n"},
		{msgError, "wait...", "oidkit: wait...\n"},
		{msgWarning, "Slow server", "oidkit: warning: slow server\n"},
		{msgNote, "two\nlines", "oidkit: note: two\noidkit: note: lines\n"},
		{msgError, "", "oidkit: \n"},
		{msgError, "É", "oidkit: é\n"},
	}
	for _, c := range cases {
		if got := formatMessage(c.kind, c.in); got != c.want {
			t.Errorf("formatMessage(%q, %q) = %q, want %q", c.kind, c.in, got, c.want)
		}
	}
}

// stderrLine is the one format of every line the CLI writes on stderr.
var stderrLine = regexp.MustCompile(`^oidkit: (?:(?:warning|note): )?\S`)

// capitalised is an ordinary word starting a message in upper case.
var capitalised = regexp.MustCompile(`^oidkit: (?:(?:warning|note): )?[A-Z][a-z]+\b[^.]`)

// Every message of every command's error paths has the prefix, starts in
// lower case and has no trailing period.
func TestStderrMessagesFormat(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ndjson")
	_ = os.WriteFile(bad, []byte("{\"_id\":1}\n{\"_id\": \n{\"a.b\":1}\n"), 0o644)
	runs := [][]string{
		{"bogus"}, {"sed"}, {"verify", "idz"}, {"help", "bogus"}, {"--versio"}, {"--version", "gen"}, {"version", "x"},
		{"gen", "--cont", "3"}, {"gen", "--at"}, {"gen", "-n", "x"}, {"gen", "--at", "soon"}, {"gen", "--format", "xml"}, {"gen", "x"},
		{"inspect", "507f", "zz"}, {"inspect", "--json=maybe"},
		{"range"}, {"range", "--from", "2200-01-01"}, {"range", "--from", "2024-01-02", "--to", "2024-01-01"},
		{"seed", "--plan", "shopx"}, {"seed", "--kind", "usr"}, {"seed", "--id", "ints"}, {"seed", "--timeout", "soon"},
		{"seed", "--uri", "http://x"}, {"seed", "--uri", "mongodb://u:secret@127.0.0.1:1/", "--timeout", "1s", "-n", "1"},
		{"fixtures", "--kind", "user", "--template", "x"}, {"fixtures", "--mode", "pretty"}, {"fixtures", "--out", dir + "/no/such/f.json", "-n", "1"},
		{"load"}, {"load", "--data-dir", dir, bad}, {"load", filepath.Join(dir, "missing.json")},
		{"verify", "ids", "-n", "-1"}, {"verify", "db", "-n", "5"}, {"verify", "db", "--fixture", bad, "--data-dir", filepath.Join(dir, "none")},
		{"server", "--listen", "nope"}, {"web", "--listen", "x:99999"},
		{"audit"}, {"audit", "--field", "a..b", "x"}, {"audit", filepath.Join(dir, "missing.json")},
	}
	for _, r := range flagRules() {
		runs = append(runs, ruleArgs(t, r.Cmds[0], r))
	}
	for _, args := range runs {
		_, errOut, code := runApp(t, t.Context(), "", args...)
		if code == ExitOK || errOut == "" {
			t.Errorf("oidkit %v: exit %d, stderr %q; want a failure with a message", args, code, errOut)
			continue
		}
		for _, line := range strings.Split(strings.TrimSuffix(errOut, "\n"), "\n") {
			switch {
			case !stderrLine.MatchString(line):
				t.Errorf("oidkit %v: stderr line %q lacks the prefix", args, line)
			case capitalised.MatchString(line):
				t.Errorf("oidkit %v: stderr line %q starts with a capital", args, line)
			case strings.HasSuffix(line, ".") && !strings.HasSuffix(line, "..."):
				t.Errorf("oidkit %v: stderr line %q ends with a period", args, line)
			}
		}
	}
}
