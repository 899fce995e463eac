package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/seed"
)

// partFlag is --part of seed, fixtures and verify db.
func partFlag(usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: flagPart, EnvVars: []string{envPart}, Usage: usage + "; part `I/N` (I from 0 to N-1) covers the same index range of every collection; without it, " + envJobIndex + " (a Kubernetes Indexed Job) with " + envParts + "=N"}
}

// partFromFlags is the part --part (or OIDKIT_PART) names, else the one
// JOB_COMPLETION_INDEX and OIDKIT_PARTS name, else the zero Part (all).
func partFromFlags(c *ucli.Context) (seed.Part, error) {
	return parsePart(c.String(flagPart), c.IsSet(flagPart), os.LookupEnv)
}

// parsePart reads the part from the flag's value (set says it was given)
// or the environment lookup gives: bad usage names the value, where it
// came from and what was expected.
func parsePart(value string, set bool, lookup func(string) (string, bool)) (seed.Part, error) {
	if set {
		p, err := seed.ParsePart(value)
		var pe *seed.PartError
		if errors.As(err, &pe) {
			return p, usageErrorf("%s %q (or %s): expected %s", arg(flagPart), value, envPart, pe.Expected)
		}
		return p, err
	}
	index, ok := lookup(envJobIndex)
	if !ok {
		return seed.Part{}, nil
	}
	parts, ok := lookup(envParts)
	if !ok {
		return seed.Part{}, usageErrorf("%s=%q without %s: expected %s=N, the number of parts (the Job's completions), or %s I/N", envJobIndex, index, envParts, envParts, arg(flagPart))
	}
	i, err := strconv.ParseInt(index, 10, 64)
	if err != nil {
		return seed.Part{}, usageErrorf("%s=%q: expected the index of the part, an integer from 0", envJobIndex, index)
	}
	n, err := strconv.ParseInt(parts, 10, 64)
	if err != nil {
		return seed.Part{}, usageErrorf("%s=%q: expected the number of parts, an integer from 1 to %d", envParts, parts, seed.MaxParts)
	}
	p := seed.Part{I: i, N: n}
	var pe *seed.PartError
	if errors.As(p.Validate(), &pe) {
		return p, usageErrorf("%s=%q with %s=%q: part %s: expected %s", envJobIndex, index, envParts, parts, p, pe.Expected)
	}
	return p, nil
}

// partNote names the part in summaries: "" for the whole dataset.
func partNote(p seed.Part) string {
	if p.Whole() {
		return ""
	}
	return fmt.Sprintf(" part %s", p)
}
