package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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

// pastedQuotes are the quotes an ID may come in: straight ones, and the
// curly ones of articles and word processors (the web page takes the same).
var pastedQuotes = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2018", "'", "\u2019", "'")

// parseIDArg reads an ID as a user pastes it: bare hex, ObjectId("hex") or
// ObjectId(hex) (mongosh), ObjectID("hex") (the driver's String),
// {"$oid":"hex"} or a quoted "hex", with curly quotes too, a leading byte
// order mark and surrounding space. The error names the input and the
// problem.
func parseIDArg(s string) (oid.ID, error) {
	in := pastedQuotes.Replace(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "\ufeff")))
	h := in
	for _, p := range []string{"ObjectId(", "ObjectID(", "new ObjectId("} {
		if strings.HasPrefix(h, p) && strings.HasSuffix(h, ")") {
			h = strings.TrimSpace(h[len(p) : len(h)-1])
			h = strings.Trim(h, `"'`)
			break
		}
	}
	if len(h) >= 2 && (h[0] == '"' || h[0] == '\'') && h[len(h)-1] == h[0] {
		h = h[1 : len(h)-1]
	} else if strings.HasPrefix(h, "{") {
		var id oid.ID
		if err := id.UnmarshalJSON([]byte(h)); err != nil {
			return oid.Nil, fmt.Errorf("%q: expected 24 hex characters, ObjectId(\"...\") or {\"$oid\":\"...\"}", s)
		}
		return id, nil
	}
	// A non-ASCII letter takes several bytes, so oid.Parse would report a
	// length the user cannot see ("length 25" for 24 visible characters):
	// name the character and its position in characters instead.
	pos := 0
	for _, r := range h {
		if r >= utf8.RuneSelf && r != utf8.RuneError {
			return oid.Nil, fmt.Errorf("%q: invalid character %q at position %d, expected 0-9, a-f or A-F", s, r, pos)
		}
		pos++
	}
	id, err := oid.Parse(h)
	if err != nil {
		var pe *oid.ParseError
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
