package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/crosscheck"
)

func (a *App) verifyIDsCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "ids",
		Usage:     "check package oid against the official Go driver (v2 and v1), byte for byte",
		UsageText: "oidkit verify ids [-n N] [--seed S] [--json] [--quiet]",
		Description: `Checks N random IDs plus the spec vectors and edge cases (bytes, hex, Timestamp(),
JSON out, {"$oid"} in) against go.mongodb.org/mongo-driver/v2 bson.ObjectID and v1
primitive.ObjectID; IDs generated on each side against the other; and mutated strings
(wrong length, bad characters, upper case, whitespace) accepted or rejected alike. The
deliberate differences documented in package oid are checked by name. Exit 1 on any
mismatch. The same --seed and -n check the same IDs.`,
		Flags: []ucli.Flag{
			countFlag(100_000, "number of random IDs (and of IDs generated on each side)"),
			&ucli.StringFlag{Name: flagSeed, Aliases: []string{aliasSeed}, Usage: "unsigned integer choosing the random IDs (default: drawn at random and printed)"},
			jsonFlag("print the report as one JSON object"),
			quietFlag("no progress on stderr"),
		},
		Action: a.runVerifyIDs,
	}
}

// maxVerifyIDs bounds -n: beyond it a run takes hours and proves nothing new.
const maxVerifyIDs = 100_000_000

func (a *App) runVerifyIDs(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("verify ids: unexpected argument %q; the count is -n N", c.Args().First())
	}
	n := c.Int64(flagCount)
	if n < 0 || n > maxVerifyIDs {
		return usageErrorf("%s %d: expected a count from 0 to %d", arg(flagCount), n, maxVerifyIDs)
	}
	var seed uint64
	if c.IsSet(flagSeed) {
		s, err := parseSeed(c.String(flagSeed))
		if err != nil {
			return err
		}
		seed = s
	} else {
		seed = crosscheck.DrawSeed()
	}
	opts := crosscheck.IDsOptions{N: int(n), Seed: seed}
	bar := a.newProgressOf(c.Bool(flagQuiet), "verify ids", n, "IDs")
	if bar != nil {
		opts.Progress = func(done, total int) {
			bar.SetTotal(int64(total))
			bar.Set(int64(done))
		}
	}
	rep := crosscheck.IDs(opts)
	bar.Finish()
	var err error
	if c.Bool(flagJSON) {
		err = rep.WriteJSON(a.stdout)
	} else {
		err = rep.WriteTable(a.stdout)
	}
	if err != nil {
		return failuref("verify ids: writing the report: %w", err)
	}
	if !rep.OK() {
		return failuref("verify ids: mismatches against the driver (seed %d; rerun with %s %d %s %d)", seed, arg(flagSeed), seed, arg(flagCount), n)
	}
	return nil
}
