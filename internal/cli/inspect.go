package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/internal/input"
	"github.com/oidkit/oidkit/internal/message"
	"github.com/oidkit/oidkit/oid"
)

func (a *App) inspectCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "inspect",
		Usage:     "decode ObjectIDs: timestamp, random value, counter",
		UsageText: "oidkit inspect [--json] [ID...]   (without IDs: one per line from stdin)",
		Description: `An ID is 24 hex characters (either case), or as mongosh and Extended JSON print it:
ObjectId("..."), {"$oid":"..."}. Bad IDs are reported on stderr and the others still
decoded; the exit code is then 2.`,
		Flags: []ucli.Flag{
			jsonFlag(`one JSON object per line: {"id","timestamp","unix","random","counter"}`),
		},
		Action: a.runInspect,
	}
}

func (a *App) runInspect(c *ucli.Context) error {
	w := bufio.NewWriter(a.stdout)
	asJSON := c.Bool(flagJSON)
	var bad []string
	var line []byte
	handle := func(arg string) {
		id, err := parseIDArg(arg)
		if err != nil {
			bad = append(bad, err.Error())
			a.say(message.Error, "inspect: %v", err)
			return
		}
		if asJSON {
			line = id.AppendPartsJSON(line[:0])
		} else {
			line = id.AppendPartsText(line[:0])
		}
		w.Write(line)
	}
	if c.NArg() > 0 {
		for _, arg := range c.Args().Slice() {
			handle(arg)
		}
	} else if err := a.inspectStdin(c.Context, handle); err != nil {
		w.Flush()
		return err
	}
	if err := w.Flush(); err != nil {
		return failuref("inspect: writing output: %w", err)
	}
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return usageErrorf("inspect: 1 invalid ID")
	default:
		return usageErrorf("inspect: %d invalid IDs", len(bad))
	}
}

// parseIDArg reads an ID as a user pastes it (oid.ParsePasted); the
// message names the input and the problem.
func parseIDArg(s string) (oid.ID, error) {
	id, err := oid.ParsePasted(s)
	if err != nil {
		var pe *oid.PasteError
		if errors.As(err, &pe) {
			return oid.Nil, fmt.Errorf("%q: %s", s, pe.Reason())
		}
		return oid.Nil, fmt.Errorf("%q: %v", s, err)
	}
	return id, nil
}

// inspectStdin hands each non-empty line of stdin to handle.
func (a *App) inspectStdin(ctx context.Context, handle func(string)) error {
	if a.stdin == nil {
		return usageErrorf("inspect: no ID given: expected IDs as arguments or one per line on stdin")
	}
	in := input.NewReader(ctx, a.stdin)
	defer in.Close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	seen := false
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			seen = true
			handle(s)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return usageErrorf("inspect: stdin: a line longer than 1 MiB: expected one ID per line")
		}
		if errors.Is(err, context.Canceled) {
			return inputFailure("inspect: reading stdin", err)
		}
		return failuref("inspect: reading stdin: %w", err)
	}
	if !seen {
		// Empty input is almost always a mistake (an empty pipe, a
		// forgotten argument); a silent success would hide it.
		return usageErrorf("inspect: no ID given: expected IDs as arguments or one per line on stdin")
	}
	return nil
}
