package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/internal/input"
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
			a.say(msgError, "inspect: %v", err)
			return
		}
		if asJSON {
			line = appendInspectJSON(line[:0], id)
		} else {
			line = appendInspectText(line[:0], id)
		}
		w.Write(line)
	}
	if c.NArg() > 0 {
		for _, arg := range c.Args().Slice() {
			handle(arg)
		}
	} else {
		if a.stdin == nil {
			return usageErrorf("inspect: no ID given: expected IDs as arguments or one per line on stdin")
		}
		in := input.NewReader(c.Context, a.stdin)
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
			w.Flush()
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

// appendInspectJSON writes the line of the CLI contract, fields in this order:
// {"id":"...","timestamp":"...","unix":N,"random":"...","counter":N}
func appendInspectJSON(b []byte, id oid.ID) []byte {
	r := id.Random()
	b = append(b, `{"id":"`...)
	b = id.AppendHex(b)
	b = append(b, `","timestamp":"`...)
	b = id.Timestamp().AppendFormat(b, time.RFC3339)
	b = append(b, `","unix":`...)
	b = strconv.AppendInt(b, id.Unix(), 10)
	b = append(b, `,"random":"`...)
	b = appendHexBytes(b, r[:])
	b = append(b, `","counter":`...)
	b = strconv.AppendUint(b, uint64(id.Counter()), 10)
	return append(b, "}\n"...)
}

// appendInspectText writes one readable line per ID.
func appendInspectText(b []byte, id oid.ID) []byte {
	r := id.Random()
	b = id.AppendHex(b)
	b = append(b, "  time "...)
	b = id.Timestamp().AppendFormat(b, time.RFC3339)
	b = append(b, "  unix "...)
	b = strconv.AppendInt(b, id.Unix(), 10)
	b = append(b, "  random "...)
	b = appendHexBytes(b, r[:])
	b = append(b, "  counter "...)
	b = strconv.AppendUint(b, uint64(id.Counter()), 10)
	return append(b, '\n')
}

func appendHexBytes(b, src []byte) []byte {
	const digits = "0123456789abcdef"
	for _, c := range src {
		b = append(b, digits[c>>4], digits[c&0xF])
	}
	return b
}
