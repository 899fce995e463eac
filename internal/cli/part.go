package cli

import (
	"errors"
	"os"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/seed"
)

// partFlag is --part of seed, fixtures and verify db.
func partFlag(usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: flagPart, EnvVars: []string{envPart}, Usage: usage + "; part `I/N` (I from 0 to N-1) covers the same index range of every collection; without it, " + envJobIndex + " (a Kubernetes Indexed Job) with " + envParts + "=N"}
}

// partFromFlags is the part --part (or OIDKIT_PART) names, else the one
// JOB_COMPLETION_INDEX and OIDKIT_PARTS name, else the zero Part (all).
func partFromFlags(c flagValues) (seed.Part, error) {
	return parsePart(c.String(flagPart), c.IsSet(flagPart), os.LookupEnv)
}

// parsePart reads the part from the flag's value (set says it was given)
// or the environment lookup gives: bad usage names the value, where it
// came from and what was expected.
func parsePart(value string, set bool, lookup func(string) (string, bool)) (seed.Part, error) {
	var p seed.Part
	var err error
	var index, parts string
	if set {
		p, err = seed.ParsePart(value)
	} else {
		var ok bool
		if index, ok = lookup(envJobIndex); !ok {
			return seed.Part{}, nil
		}
		if parts, ok = lookup(envParts); !ok {
			return seed.Part{}, usageErrorf("%s=%q without %s: expected %s=N, the number of parts (the Job's completions), or %s I/N", envJobIndex, index, envParts, envParts, arg(flagPart))
		}
		p, err = seed.PartOf(index, parts)
	}
	var pe *seed.PartError
	switch {
	case !errors.As(err, &pe):
		return p, err
	case set:
		return p, usageErrorf("%s %q (or %s): expected %s", arg(flagPart), value, envPart, pe.Expected)
	case pe.Field == "I":
		return p, usageErrorf("%s=%q: expected %s", envJobIndex, index, pe.Expected)
	case pe.Field == "N":
		return p, usageErrorf("%s=%q: expected %s", envParts, parts, pe.Expected)
	}
	return p, usageErrorf("%s=%q with %s=%q: part %s: expected %s", envJobIndex, index, envParts, parts, p, pe.Expected)
}
