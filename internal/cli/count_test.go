package cli

import (
	"strings"
	"testing"

	"github.com/oidkit/oidkit/internal/count"
)

func TestCountFlags(t *testing.T) {
	out, errOut, code := runApp(t, t.Context(), "", "gen", "-n", "1.5k", "--seed", "1")
	if code != ExitOK || strings.Count(out, "\n") != 1500 {
		t.Errorf("gen -n 1.5k: exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errOut)
	}
	out, errOut, code = runApp(t, t.Context(), "", "generate", "--count", "2e1", "--seed", "1")
	if code != ExitOK || strings.Count(out, "\n") != 20 {
		t.Errorf("generate --count 2e1: exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errOut)
	}
	for _, c := range [][]string{
		{"gen", "-n", "1.2345k"},
		{"seed", "-n", "1.2345k"},
		{"fixtures", "-n", "1.2345k"},
		{"verify", "db", "-n", "1.2345k"},
		{"verify", "ids", "-n", "1.2345k"},
		{"seed", "--batch", "1.2345k"},
		{"seed", "--workers", "1.2345k"},
		{"load", "--batch", "1.2345k"},
		{"export", "--limit", "1.2345k"},
		{"export", "--sample", "1.2345k"},
		{"export", "--batch", "1.2345k"},
	} {
		name := c[len(c)-2]
		want := ": " + arg(strings.TrimLeft(name, "-")) + ` "1.2345k": expected ` + count.Expected + " (1.2345k is 1234.5, not a whole number)"
		_, errOut, code := runApp(t, t.Context(), "", c...)
		if code != ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("oidkit %v: exit %d, stderr %q; want exit 2 and %q", c, code, errOut, want)
		}
	}
	// A count's range is its command's: the parsed value is named.
	_, errOut, code = runApp(t, t.Context(), "", "gen", "-n", "20M")
	if code != ExitUsage || !strings.Contains(errOut, "-n 20000000: expected a count from 0 to 16777216") {
		t.Errorf("gen -n 20M: exit %d, stderr %q", code, errOut)
	}
}
