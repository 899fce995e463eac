package cli

import (
	"bufio"
	"time"

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

// lastID is the largest ObjectID: an upper bound that no $lt can express.
const lastID = "ffffffffffffffffffffffff"

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
	lo, _ := oid.FromTime(from) // parseTime checked the range
	filter := []byte(`{"_id":{"$gte":{"$oid":"`)
	filter = lo.AppendHex(filter)
	filter = append(filter, `"}`...)

	var toLine string
	if c.IsSet(flagTo) {
		to, err := parseTime(flagTo, c.String(flagTo))
		if err != nil {
			return err
		}
		end := to.Unix()
		if to.Nanosecond() > 0 {
			end++ // round a fractional end up: its second may hold IDs made before it
		}
		if end <= lo.Unix() {
			return usageErrorf("%s %q: expected a time after %s %q (the window is [from, to), whole seconds)", arg(flagTo), c.String(flagTo), arg(flagFrom), c.String(flagFrom))
		}
		if end > oid.MaxTime.Unix() {
			filter = append(filter, `,"$lte":{"$oid":"`+lastID+`"}`...)
			toLine = "to      " + oid.MaxTime.Format(time.RFC3339) + "  " + lastID + "  inclusive ($lte): the last second has no exclusive bound\n"
		} else {
			hi, _ := oid.FromTime(time.Unix(end, 0))
			filter = append(filter, `,"$lt":{"$oid":"`...)
			filter = hi.AppendHex(filter)
			filter = append(filter, `"}`...)
			toLine = "to      " + hi.Timestamp().Format(time.RFC3339) + "  " + hi.Hex() + "  exclusive ($lt)\n"
		}
	}
	filter = append(filter, "}}"...)

	w := bufio.NewWriter(a.stdout)
	if c.Bool(flagFilter) {
		w.Write(filter)
		w.WriteByte('\n')
	} else {
		w.WriteString("from    " + lo.Timestamp().Format(time.RFC3339) + "  " + lo.Hex() + "  inclusive ($gte)\n")
		w.WriteString(toLine)
		w.WriteString("filter  ")
		w.Write(filter)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return failuref("range: writing output: %w", err)
	}
	return nil
}
