package cli

import (
	"strings"
	"testing"
)

func TestParseCount(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"10", 10}, {" 42 ", 42}, {"-3", -3}, {"10k", 10_000}, {"50k", 50_000}, {"1.5k", 1_500},
		{"1M", 1_000_000}, {"2.5M", 2_500_000}, {"1e6", 1_000_000}, {"1E3", 1_000}, {"1.5e3", 1_500},
		{"1e+2", 100}, {"1.2345e4", 12_345}, {"0.001M", 1_000}, {"9223372036854775807", 9223372036854775807},
	} {
		got, err := parseCount(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseCount(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, reason string }{
		{"1.2345k", "1.2345k is 1234.5, not a whole number"},
		{"1.5", "not a whole number"},
		{"1e-3", "not a number"},
		{"ten", "not a number"},
		{"", "not a number"},
		{"10m", "not a number"}, // milli or mega: neither
		{"10K", "not a number"},
		{"1kk", "not a number"},
		{"0x10", "not a number"},
		{"1e100", "not a number"}, // at most two exponent digits
		{"1e99", "above 9223372036854775807"},
		{"1e19", "above 9223372036854775807"},
		{"9223372036854775808", "above 9223372036854775807"},
		{"9223372036854775.808k", "above 9223372036854775807"},
	} {
		got, err := parseCount(c.in)
		if err == nil || err.Error() != c.reason {
			t.Errorf("parseCount(%q) = %d, %v; want the error %q", c.in, got, err, c.reason)
		}
	}
}

// Every count flag reads counts the same way, through the whole app.
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
		want := ": " + arg(strings.TrimLeft(name, "-")) + ` "1.2345k": expected ` + countExpected + " (1.2345k is 1234.5, not a whole number)"
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
