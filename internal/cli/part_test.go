package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/parts"
)

func TestParsePart(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	for _, tc := range []struct {
		value string
		set   bool
		env   func(string) (string, bool)
		want  parts.Part
		err   string // in the message; "" for none
	}{
		{"", false, env(), parts.Part{}, ""},
		{"3/16", true, env(), parts.Part{I: 3, N: 16}, ""},
		{"3/16", true, env(envJobIndex, "5", envParts, "8"), parts.Part{I: 3, N: 16}, ""},
		{"", false, env(envJobIndex, "5", envParts, "8"), parts.Part{I: 5, N: 8}, ""},
		{"16/16", true, env(), parts.Part{}, `--part "16/16" (or OIDKIT_PART): expected I from 0 to 15`},
		{"x", true, env(), parts.Part{}, `--part "x" (or OIDKIT_PART): expected I/N`},
		{"", false, env(envJobIndex, "5"), parts.Part{}, `JOB_COMPLETION_INDEX="5" without OIDKIT_PARTS`},
		{"", false, env(envJobIndex, "8", envParts, "8"), parts.Part{}, `part 8/8: expected I from 0 to 7`},
		{"", false, env(envJobIndex, "a", envParts, "8"), parts.Part{}, `JOB_COMPLETION_INDEX="a": expected`},
		{"", false, env(envJobIndex, "1", envParts, "0"), parts.Part{}, `expected N from 1`},
	} {
		p, err := parsePart(tc.value, tc.set, tc.env)
		if tc.err == "" {
			if err != nil || p != tc.want {
				t.Errorf("%q: %v, %v; expected %v", tc.value, p, err, tc.want)
			}
			continue
		}
		var ce *codedError
		if !errors.As(err, &ce) || ce.code != ExitUsage || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %v; expected a usage error containing %q", tc.value, err, tc.err)
		}
	}
}
