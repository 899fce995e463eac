package count

import (
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
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.in, got, err, c.want)
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
		got, err := Parse(c.in)
		if err == nil || err.Error() != c.reason {
			t.Errorf("Parse(%q) = %d, %v; want the error %q", c.in, got, err, c.reason)
		}
	}
}

// Every count flag reads counts the same way, through the whole app.
