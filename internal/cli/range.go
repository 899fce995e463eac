package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/oid"
)

func (a *App) rangeCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "range",
		Usage:     "_id bounds and a ready filter for documents created in a time window",
		UsageText: "oidkit range --from TIME [--to TIME] [--filter]",
		Description: `The bounds are zero-tailed ObjectIDs, like mongosh's ObjectId.createFromTime: the
smallest ID of a second. The window is half-open: --from is inclusive, --to exclusive,
so consecutive windows (--from A --to B, then --from B --to C) neither overlap nor leave
a gap. IDs store whole seconds: a fractional --from is rounded down and a fractional
--to up, so no ID created inside the window is left out.
TIME is ` + timeForms + `,
within 1970-01-01T00:00:00Z..2106-02-07T06:28:15Z.`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: flagFrom, Usage: "start of the window, inclusive: " + timeForms},
			&ucli.StringFlag{Name: flagTo, Usage: "end of the window, exclusive (default: no upper bound)"},
			&ucli.BoolFlag{Name: flagFilter, Usage: "print only the Extended JSON filter"},
		},
		Action: a.runRange,
	}
}

func (a *App) runRange(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("range: unexpected argument %q; expected %s TIME [%s TIME]", c.Args().First(), arg(flagFrom), arg(flagTo))
	}
	if !c.IsSet(flagFrom) {
		return usageErrorf("range: %s is required: expected %[1]s TIME (%s)", arg(flagFrom), timeForms)
	}
	from, err := parseTime(flagFrom, c.String(flagFrom))
	if err != nil {
		return err
	}
	win, _ := oid.WindowFrom(from) // parseTime checked the range
	if c.IsSet(flagTo) {
		to, err := parseTime(flagTo, c.String(flagTo))
		if err != nil {
			return err
		}
		if win, err = oid.NewWindow(from, to); err != nil {
			return usageErrorf("%s %q: expected a time after %s %q (the window is [from, to), whole seconds)", arg(flagTo), c.String(flagTo), arg(flagFrom), c.String(flagFrom))
		}
	}
	var out []byte
	if c.Bool(flagFilter) {
		out = append(win.AppendFilter(nil), '\n')
	} else {
		out = win.AppendText(nil)
	}
	if _, err := a.stdout.Write(out); err != nil {
		return failuref("range: writing output: %w", err)
	}
	return nil
}
