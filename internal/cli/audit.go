package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/audit"
	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/internal/input"
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
with their counts, times and counters; the layout of each writer (modern or legacy, with
shared PIDs), or mixed with the count of each kind; random-hex IDs not made by a driver; clock skew against --time-field; and whether _id
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
	// Each source starts the progress when its reading starts (a collection
	// once connected and counted).
	var p *progress
	begin := func(total int64) *progress {
		p = a.newProgressOf(c, "audit", total, "values")
		return p
	}
	var err error
	switch {
	case coll != "":
		err = a.auditCollection(ctx, c, au, coll, fields, begin)
	case len(args) == 1 && args[0] == "-":
		in := input.NewReader(ctx, a.stdin)
		err = au.ReadHex(in, begin(unknownTotal).Set)
		in.Close()
		var le *audit.LineError
		if errors.As(err, &le) {
			err = usageErrorf("audit: stdin %v", le)
		} else if errors.Is(err, context.Canceled) {
			err = inputFailure("audit: reading stdin", err)
		} else if err != nil {
			err = failuref("audit: reading stdin: %w", err)
		}
	default:
		err = a.auditFiles(ctx, au, args, fields, begin(unknownTotal))
	}
	if err != nil {
		p.Finish()
		return err
	}
	rep := au.Report()
	if coll == "" && len(args) == 1 && args[0] == "-" {
		p.Set(rep.Total) // stdin reports every 65,536 IDs: the last ones too
	}
	p.Finish()
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

func (a *App) auditCollection(ctx context.Context, c *ucli.Context, au *audit.Auditor, coll string, fields audit.Fields, begin func(total int64) *progress) error {
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
	if total <= 0 {
		total = unknownTotal // an estimate of 0 is no estimate
	}
	p := begin(total)
	n, err := au.ScanCollection(ctx, mc, fields, p.Set)
	if err != nil {
		return failuref("audit on %s: %w", t.Display, err)
	}
	p.SetTotal(n) // the estimate is now the count
	p.Set(n)
	return nil
}

func (a *App) auditFiles(ctx context.Context, au *audit.Auditor, files []string, fields audit.Fields, p *progress) error {
	var n int64
	for _, name := range files {
		f, err := input.Open(ctx, name)
		if errors.Is(err, context.Canceled) {
			return inputFailure("audit: "+name, err)
		}
		if err != nil {
			return usageErrorf("audit: %q: %v; expected a fixture file", name, err)
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			f.Close()
			return usageErrorf("audit: %q: is a directory, expected a fixture file", name)
		}
		err = auditFile(au, fixtures.NewReader(f, name), fields, func() {
			n++
			if n&0xFFF == 0 {
				p.Set(n)
			}
		})
		f.Close()
		if errors.Is(err, context.Canceled) {
			return inputFailure("audit: reading "+name, err)
		}
		if err != nil {
			return err
		}
	}
	p.Set(n)
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
