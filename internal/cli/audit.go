package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/audit"
	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/rules"
)

func (a *App) auditCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "audit",
		Usage:     "ObjectID forensics: writers, times, layout, clock skew and shard-key risk of existing IDs",
		UsageText: "oidkit audit [--uri U] [--db D] --collection C [--field _id] [--time-field F]\n   oidkit audit FILE...   (fixture files)\n   oidkit audit -         (hex IDs, one per line, from stdin)",
		Description: `Reads the _id values (or --field) of a collection, of fixture files, or hex IDs from
stdin, and reports the types found; the time range, per-day counts and IDs in the
future, before 2009, at 0, zero-tailed or near 2106; the writers (5-byte random values)
with their counts, times and counters; the layout (modern or legacy, with shared PIDs);
random-hex IDs not made by a driver; clock skew against --time-field; and whether _id
inserts are monotonic (a range shard key on _id puts every insert on one chunk).
Read-only: only the field(s) are fetched. Memory stays bounded whatever the count.`,
		Flags: append(connFlags(),
			dbFlag("oidkit"),
			&ucli.StringFlag{Name: flagCollection, Aliases: []string{aliasCollection}, Usage: "collection to audit (instead of files or -)"},
			&ucli.StringFlag{Name: flagField, Value: "_id", Usage: "field holding the IDs (a dotted path)"},
			&ucli.StringFlag{Name: flagTimeField, Usage: "date field to compare each writer's clock with"},
			jsonFlag("print the report as one JSON object"),
			&ucli.StringFlag{Name: flagHTML, Usage: "also write the report as one self-contained HTML page to this file"},
			quietFlag("no progress on stderr"),
		),
		Action: a.runAudit,
	}
}

func (a *App) runAudit(c *ucli.Context) error {
	ctx := c.Context
	coll := c.String(flagCollection)
	args := c.Args().Slice()
	switch {
	case coll != "" && len(args) > 0:
		return usageErrorf("audit: unexpected argument %q with %s; audit either a collection or files", args[0], arg(flagCollection))
	case coll == "" && len(args) == 0:
		return usageErrorf("audit: expected %s C, fixture files, or - for hex IDs on stdin", arg(flagCollection))
	}
	field, timeField := c.String(flagField), c.String(flagTimeField)
	for _, f := range []struct{ name, v string }{{flagField, field}, {flagTimeField, timeField}} {
		if f.v != "" && !validPath(f.v) {
			return usageErrorf("%s %q: expected a field name or dotted path such as createdAt or meta.created", arg(f.name), f.v)
		}
	}
	if field == "" {
		return usageErrorf("%s \"\": expected a field name such as _id", arg(flagField))
	}
	fields := audit.Fields{ID: field, Time: timeField}
	au := audit.New(audit.Options{})
	var line statusLine
	progress := func(n int64, total int64, done bool) {}
	if a.showProgress(c) {
		progress = func(n, total int64, done bool) {
			line.update(a.stderr, done, func() string {
				if total > 0 {
					return fmt.Sprintf("audit: %d of about %d values", n, total)
				}
				return fmt.Sprintf("audit: %d values", n)
			})
		}
	}
	var err error
	switch {
	case coll != "":
		err = a.auditCollection(ctx, c, au, coll, fields, progress)
	case len(args) == 1 && args[0] == "-":
		err = au.ReadHex(a.stdin, func(n int64) { progress(n, 0, false) })
		var le *audit.LineError
		if errors.As(err, &le) {
			err = usageErrorf("audit: stdin %v", le)
		} else if err != nil {
			err = failuref("audit: reading stdin: %w", err)
		}
	default:
		err = a.auditFiles(au, args, fields, progress)
	}
	line.finish(a.stderr)
	if err != nil {
		return err
	}
	rep := au.Report()
	if path := c.String(flagHTML); path != "" {
		if err := writeHTMLReport(path, rep); err != nil {
			return err
		}
	}
	if c.Bool(flagJSON) {
		err = rep.WriteJSON(a.stdout)
	} else {
		err = rep.WriteText(a.stdout)
	}
	if err != nil {
		return failuref("audit: writing the report: %w", err)
	}
	return nil
}

func writeHTMLReport(path string, rep *audit.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return usageErrorf("%s %q: %v", arg(flagHTML), path, err)
	}
	if err := rep.WriteHTML(f); err != nil {
		f.Close()
		return failuref("audit: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return failuref("audit: writing %s: %w", path, err)
	}
	return nil
}

// validPath reports whether p is a field name or dotted path without empty
// parts or a leading $.
func validPath(p string) bool {
	for _, part := range strings.Split(p, ".") {
		if part == "" || strings.HasPrefix(part, "$") {
			return false
		}
	}
	return true
}

func (a *App) auditCollection(ctx context.Context, c *ucli.Context, au *audit.Auditor, coll string, fields audit.Fields, progress func(n, total int64, done bool)) error {
	dbName := c.String(flagDB)
	if err := rules.CheckDatabaseName(dbName); err != nil {
		return usageErrorf("%s: %v", arg(flagDB), err)
	}
	if err := rules.CheckCollectionName(coll); err != nil {
		return usageErrorf("%s %q: %v", arg(flagCollection), coll, err)
	}
	t, err := openTarget(ctx, c, existingDataDir)
	if err != nil {
		return err
	}
	defer t.Close()
	mc := t.Client.Database(dbName).Collection(coll)
	total, _ := mc.EstimatedDocumentCount(ctx)
	n, err := au.ScanCollection(ctx, mc, fields, func(n int64) { progress(n, total, false) })
	if err != nil {
		return failuref("audit on %s: %w", t.Display, err)
	}
	progress(n, total, true)
	return nil
}

func (a *App) auditFiles(au *audit.Auditor, files []string, fields audit.Fields, progress func(n, total int64, done bool)) error {
	var n int64
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return usageErrorf("audit: %q: %v; expected a fixture file", name, err)
		}
		err = auditFile(au, fixtures.NewReader(f, name), fields, func() {
			n++
			if n&0xFFF == 0 {
				progress(n, 0, false)
			}
		})
		f.Close()
		if err != nil {
			return err
		}
	}
	progress(n, 0, true)
	return nil
}

func auditFile(au *audit.Auditor, r *fixtures.Reader, fields audit.Fields, each func()) error {
	for {
		d, err := r.Next()
		if err == io.EOF {
			return nil
		}
		var le *fixtures.LineError
		if errors.As(err, &le) {
			return usageErrorf("audit: %v", le)
		}
		if err != nil {
			return failuref("audit: %w", err)
		}
		au.AddDoc(d.Raw, fields)
		each()
	}
}
