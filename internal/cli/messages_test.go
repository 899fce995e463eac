package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/internal/message"
)

func TestFormatMessage(t *testing.T) {
	cases := []struct {
		kind     message.Kind
		in, want string
	}{
		{message.Error, "bad value", "oidkit: bad value\n"},
		{message.Error, "Required flag \"x\" not set.", "oidkit: required flag \"x\" not set\n"},
		{message.Error, "FerretDB refuses it.\n", "oidkit: FerretDB refuses it\n"},
		{message.Error, "ObjectID is 12 bytes", "oidkit: ObjectID is 12 bytes\n"},
		{message.Error, "--kind \"x\": expected user", "oidkit: --kind \"x\": expected user\n"},
		{message.Error, "... and 5 more", "oidkit: ... and 5 more\n"},
		{message.Error, "wait...", "oidkit: wait...\n"},
		{message.Warning, "Slow server", "oidkit: warning: slow server\n"},
		{message.Note, "two\nlines", "oidkit: note: two\noidkit: note: lines\n"},
		{message.Error, "", "oidkit: \n"},
		{message.Error, "É", "oidkit: é\n"},
	}
	for _, c := range cases {
		if got := message.Format(c.kind, c.in); got != c.want {
			t.Errorf("message.Format(%q, %q) = %q, want %q", c.kind, c.in, got, c.want)
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
