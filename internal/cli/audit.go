package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/audit"
	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/internal/input"
	"github.com/oidkit/oidkit/internal/progress"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/target"
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

// auditOptions is what the flags and arguments of oidkit audit ask for.
type auditOptions struct {
	db         string
	collection string   // the collection to audit, or ""
	files      []string // fixture files, or "-" alone for hex IDs on stdin
	fields     audit.Fields
	json       bool
	html       string
	progress   func(total int64) *progress.Meter
}

// stdin reports whether the IDs are hex on standard input.
func (o auditOptions) stdin() bool {
	return o.collection == "" && len(o.files) == 1 && o.files[0] == "-"
}

// auditOptionsFrom reads the flags and arguments of oidkit audit and
// checks their rules.
func (a *App) auditOptionsFrom(c *ucli.Context) (auditOptions, error) {
	o := auditOptions{db: c.String(flagDB), collection: c.String(flagCollection), files: c.Args().Slice(),
		fields: audit.Fields{ID: c.String(flagField), Time: c.String(flagTimeField)}, json: c.Bool(flagJSON), html: c.String(flagHTML),
		progress: func(total int64) *progress.Meter { return a.newProgressOf(c.Bool(flagQuiet), "audit", total, "values") }}
	switch {
	case o.collection != "" && len(o.files) > 0:
		return o, usageErrorf("audit: unexpected argument %q with %s; audit either a collection or files", o.files[0], arg(flagCollection))
	case o.collection == "" && len(o.files) == 0:
		return o, usageErrorf("audit: expected %s C, fixture files, or - for hex IDs on stdin", arg(flagCollection))
	}
	for _, f := range []struct{ name, v string }{{flagField, o.fields.ID}, {flagTimeField, o.fields.Time}} {
		if f.v != "" && !audit.ValidPath(f.v) {
			return o, usageErrorf("%s %q: expected a field name or dotted path such as createdAt or meta.created", arg(f.name), f.v)
		}
	}
	if o.fields.ID == "" {
		return o, usageErrorf("%s \"\": expected a field name such as _id", arg(flagField))
	}
	if o.collection != "" {
		if err := rules.CheckDatabaseName(o.db); err != nil {
			return o, usageErrorf("%s: %v", arg(flagDB), err)
		}
		if err := rules.CheckCollectionName(o.collection); err != nil {
			return o, usageErrorf("%s %q: %v", arg(flagCollection), o.collection, err)
		}
	}
	return o, nil
}

func (a *App) runAudit(c *ucli.Context) error {
	o, err := a.auditOptionsFrom(c)
	if err != nil {
		return err
	}
	ctx := c.Context
	au := audit.New(audit.Options{})
	// Each source starts the progress when its reading starts (a collection
	// once connected and counted).
	var p *progress.Meter
	begin := func(total int64) *progress.Meter {
		p = o.progress(total)
		return p
	}
	switch {
	case o.collection != "":
		var t *target.Target
		if t, err = a.openTarget(ctx, targetOptions(c, true)); err != nil {
			return err
		}
		defer t.Close()
		err = auditCollection(ctx, t, au, o, begin)
	case o.stdin():
		err = a.auditStdin(ctx, au, begin(progress.UnknownTotal))
	default:
		if err = au.ScanFiles(ctx, o.files, o.fields, begin(progress.UnknownTotal).Set); err != nil {
			err = explain(err, auditFilesWording)
		}
	}
	if err != nil {
		p.Finish()
		return err
	}
	rep := au.Report()
	if o.stdin() {
		p.Set(rep.Total) // stdin reports every 65,536 IDs: the last ones too
	}
	p.Finish()
	return a.renderAudit(rep, o)
}

// renderAudit writes the report: the HTML page if asked, then text or
// JSON on standard output.
func (a *App) renderAudit(rep *audit.Report, o auditOptions) (err error) {
	if o.html != "" {
		if err := rep.WriteHTMLFile(o.html); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Op == "open" {
				return usageErrorf("%s %q: %v", arg(flagHTML), o.html, err)
			}
			return failuref("audit: writing %s: %w", o.html, err)
		}
	}
	if o.json {
		err = rep.WriteJSON(a.stdout)
	} else {
		err = rep.WriteText(a.stdout)
	}
	if err != nil {
		return failuref("audit: writing the report: %w", err)
	}
	return nil
}

// auditStdin reads hex IDs, one per line, from standard input.
func (a *App) auditStdin(ctx context.Context, au *audit.Auditor, p *progress.Meter) error {
	in := input.NewReader(ctx, a.stdin)
	err := au.ReadHex(in, p.Set)
	in.Close()
	if err == nil {
		return nil
	}
	return explain(err, func(err error, lib exitCoder) error {
		switch le, ok := lib.(*fixtures.LineError); {
		case ok:
			return fmt.Errorf("audit: stdin %v", le)
		case errors.Is(err, context.Canceled):
			return inputFailure("audit: reading stdin", err)
		}
		return failuref("audit: reading stdin: %w", err)
	})
}

func auditCollection(ctx context.Context, t *target.Target, au *audit.Auditor, o auditOptions, begin func(total int64) *progress.Meter) error {
	mc := t.Client.Database(o.db).Collection(o.collection)
	total, _ := mc.EstimatedDocumentCount(ctx)
	if total <= 0 {
		total = progress.UnknownTotal // an estimate of 0 is no estimate
	}
	p := begin(total)
	n, err := au.ScanCollection(ctx, mc, o.fields, p.Set)
	if err != nil {
		return failuref("audit on %s: %w", t.Display, err)
	}
	p.SetTotal(n) // the estimate is now the count
	p.Set(n)
	return nil
}

// auditFilesWording words audit.ScanFiles' errors: the file as given,
// and the bad document (a *fixtures.LineError) by its file and line.
func auditFilesWording(err error, lib exitCoder) error {
	fe, ok := lib.(*fixtures.SetError)
	switch {
	case !ok:
		return failuref("audit: %w", err)
	case fe.Op == fixtures.OpOpen && errors.Is(err, context.Canceled):
		return inputFailure("audit: "+fe.Path, fe.Err)
	case errors.Is(err, context.Canceled):
		return inputFailure("audit: reading "+fe.Path, fe.Err)
	case fe.Op == fixtures.OpOpen:
		return fmt.Errorf("audit: %q: %v; expected a fixture file", fe.Path, fe.Err)
	case fe.Op == fixtures.OpDir:
		return fmt.Errorf("audit: %q: is a directory, expected a fixture file", fe.Path)
	}
	if le, ok := libError(fe.Err).(*fixtures.LineError); ok {
		return fmt.Errorf("audit: %v", le)
	}
	return failuref("audit: %w", fe.Err)
}
