package cli

import (
	"errors"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/oid"
	"github.com/oidkit/oidkit/seed"
)

// maxGen is the most IDs one run makes: they share one random value, so past
// 2^24 the counter would repeat within a second.
const maxGen = 1 << 24

func (a *App) genCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "gen",
		Usage:     "generate ObjectIDs, one per line",
		UsageText: "oidkit gen [-n N] [--at TIME] [--seed S] [--format hex|ejson]",
		Description: "All IDs of one run share the 5-byte random value and take consecutive counters.\n" +
			"With --seed the random value and the counter start derive from the seed, and the time\n" +
			"is --at or, without it, 2024-01-01T00:00:00Z: the output is identical on every run.",
		Flags: []ucli.Flag{
			countFlag(1, "number of IDs (0 to 16777216)"),
			&ucli.StringFlag{Name: flagAt, Usage: "timestamp of every ID: " + timeForms + " (default: the clock; with --seed: 2024-01-01T00:00:00Z)"},
			&ucli.StringFlag{Name: flagSeed, Aliases: []string{aliasSeed}, Usage: "unsigned integer seed for identical output on every run"},
			&ucli.StringFlag{Name: flagFormat, Aliases: []string{aliasFormat}, Value: "hex", Usage: `output format: hex (24 characters) or ejson ({"$oid":"..."})`},
		},
		Action: a.runGen,
	}
}

func (a *App) runGen(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("gen: unexpected argument %q; the count is %s N", c.Args().First(), arg(flagCount))
	}
	n := c.Int64(flagCount)
	if n < 0 || n > maxGen {
		return usageErrorf("%s %d: expected a count from 0 to %d (IDs of one run share a random value, so more would repeat)", arg(flagCount), n, maxGen)
	}
	format := c.String(flagFormat)
	if format != "hex" && format != "ejson" {
		return usageErrorf("%s %q: expected hex or ejson", arg(flagFormat), format)
	}
	g := oid.NewGenerator(oid.Config{})
	seeded := c.IsSet(flagSeed)
	if seeded {
		s, err := parseSeed(c.String(flagSeed))
		if err != nil {
			return err
		}
		g = oid.NewSeededGenerator(s)
	}
	var at time.Time
	if c.IsSet(flagAt) {
		t, err := parseTime(flagAt, c.String(flagAt))
		if err != nil {
			return err
		}
		at = t
	}
	if seeded || !at.IsZero() {
		// Without either, each batch reads the clock, as oid.New does.
		at = seed.TimeBase(at, seeded)
	}

	err := g.Write(a.stdout, n, oid.WriteOptions{At: at, EJSON: format == "ejson"})
	switch {
	case errors.Is(err, oid.ErrTimeRange):
		return usageErrorf("%s %q: %v", arg(flagAt), c.String(flagAt), err)
	case err != nil:
		return failuref("gen: writing output: %w", err)
	}
	return nil
}
