package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/verify"
)

func (a *App) verifyDBCommand() *ucli.Command {
	flags := append(connFlags(), planFlags()...)
	flags = append(flags,
		&ucli.StringSliceFlag{Name: "fixture", Usage: "expect the documents of this fixture `FILE` (NDJSON or array Extended JSON) instead of generating them; repeatable"},
		&ucli.Int64Flag{Name: "order-limit", Value: verify.DefaultOrderLimit, Usage: "ignored, kept so that existing scripts still run: on FerretDB the _id order is now checked on the client, on the one read, for collections of any size"},
		&ucli.BoolFlag{Name: "json", Usage: "print the report as one JSON object"},
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
	)
	return &ucli.Command{
		Name:      "db",
		Usage:     "compare what a collection holds with what it should hold, byte for byte",
		UsageText: "oidkit verify db [--uri URI] --seed S [the flags given to seed] | --fixture FILE [--collection C] [--json]",
		Description: "Rebuilds the documents a seeded run wrote (the same --seed, --kind/--template/--plan,\n" +
			"-n, --id, --at and --span as seed) or reads them from --fixture files (each into the\n" +
			"collection named after the file, as load does), reads the collection, and checks:\n" +
			"the count, missing and unexpected _ids, documents copied under another _id, every\n" +
			"document equal as BSON to the expected one (a difference names the field and both\n" +
			"values), the _id type, ObjectID timestamps against createdAt, the time window and the\n" +
			"driver, the sorted _id order, the timestamp computed by the server ($toDate) and plan\n" +
			"references. Memory does not grow with the documents (a few bytes per _id).\n" +
			"Exit 1 on any mismatch, 2 on bad flags.",
		Flags:  flags,
		Action: a.runVerifyDB,
	}
}

// generationFlags are the plan flags that make no sense with --fixture.
var generationFlags = []string{"seed", "kind", "template", "plan", "n", "id", "id-start", "at", "span"}

func (a *App) runVerifyDB(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("verify db: unexpected argument %q; fixture files are given with --fixture FILE", c.Args().First())
	}
	if c.Int64("order-limit") < 1 {
		return usageErrorf("--order-limit %d: expected a positive number of documents", c.Int64("order-limit"))
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var set verify.ExpectedSet
	if files := c.StringSlice("fixture"); len(files) > 0 {
		for _, f := range generationFlags {
			if c.IsSet(f) {
				flag := "--" + f
				if len(f) == 1 {
					flag = "-" + f
				}
				return usageErrorf("%s with --fixture: the fixture files are the expected documents; drop %s", flag, flag)
			}
		}
		exps, err := expectFixtures(ctx, c, files)
		if err != nil {
			return err
		}
		set.Verify = exps
	} else if generationFlagsSet(c) {
		if !c.IsSet("seed") {
			return usageErrorf("verify db: expected --seed S (the seed the data was written with) or --fixture FILE: without a seed the documents cannot be rebuilt")
		}
		ds, err := datasetFromFlags(c)
		if err != nil {
			return err
		}
		if set, err = expectDataset(ctx, ds); err != nil {
			return err
		}
	}

	t, err := openTarget(ctx, c, existingDataDir)
	if err != nil {
		return err
	}
	defer t.Close()
	if set.Verify == nil { // no flags said what to expect: the run manifest does
		if set, err = expectFromManifest(ctx, c, t); err != nil {
			return err
		}
	}

	opts := verify.DBOptions{FerretDB: t.IsFerretDB(ctx), OrderLimit: c.Int64("order-limit")}
	var p *verifyProgress
	if !c.Bool("quiet") && isTerminal(a.stderr) {
		p = &verifyProgress{w: a.stderr}
		opts.Progress = p.update
	}
	rep, err := verify.VerifyDB(ctx, t.Client, set, opts)
	if p != nil {
		p.finish()
	}
	if err != nil {
		if isFixtureError(err) {
			return usageErrorf("--fixture %v", err)
		}
		return failuref("verify db on %s: %w", t.Display, err)
	}
	if c.Bool("json") {
		err = rep.WriteJSON(a.stdout)
	} else {
		err = rep.WriteTable(a.stdout)
	}
	if err != nil {
		return failuref("verify db: writing the report: %w", err)
	}
	if !rep.OK() {
		failed := 0
		for _, r := range rep.Rows {
			if r.Result() == verify.StatusFail {
				failed++
			}
		}
		return failuref("verify db: %d of %d properties failed on %s (see the report)", failed, len(rep.Rows), t.Display)
	}
	return nil
}

// expectFixtures groups the fixture files by collection, as load does.
func expectFixtures(ctx context.Context, c *ucli.Context, files []string) ([]*verify.Expected, error) {
	dbName := c.String("db")
	if dbName == "" || strings.ContainsAny(dbName, "/\\. \"$\x00") || len(dbName) > 63 {
		return nil, usageErrorf("--db %q: expected a database name of 1 to 63 characters without /\\. \"$", dbName)
	}
	only := c.String("collection")
	if only != "" {
		if err := rules.CheckCollectionName(only); err != nil {
			return nil, usageErrorf("--collection %q: %v", only, err)
		}
	}
	var order []string
	byName := map[string][]string{}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, usageErrorf("--fixture %q: %v", f, errors.Unwrap(err))
		}
		if fi.IsDir() {
			return nil, usageErrorf("--fixture %q: is a directory, expected a fixture file", f)
		}
		name := only
		if name == "" {
			name = fixtures.CollectionName(f)
			if err := rules.CheckCollectionName(name); err != nil {
				return nil, usageErrorf("--fixture %q: collection name from the file name: %v; expected --collection", f, err)
			}
		}
		if _, ok := byName[name]; !ok {
			order = append(order, name)
		}
		byName[name] = append(byName[name], f)
	}
	var out []*verify.Expected
	for _, name := range order {
		e, err := verify.ExpectFixtures(ctx, dbName, name, byName[name])
		switch {
		case isFixtureError(err):
			return nil, usageErrorf("--fixture %v", err)
		case err != nil:
			return nil, usageErrorf("--fixture: %v", err)
		}
		out = append(out, e)
	}
	return out, nil
}

// isFixtureError tells a fixture file that cannot be read or cannot serve as
// the expected content (a usage error: the file is given by --fixture).
func isFixtureError(err error) bool {
	var le *fixtures.LineError
	var pe *fs.PathError
	return errors.As(err, &le) || errors.As(err, &pe)
}

// verifyProgress draws one status line on a terminal, at most ten times a
// second.
type verifyProgress struct {
	w     io.Writer
	last  time.Time
	drawn bool
}

func (p *verifyProgress) update(s verify.DBProgress) {
	if time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	line := fmt.Sprintf("verify %s: %s %d", s.Collection, s.Phase, s.Done)
	if s.Total > 0 {
		line += fmt.Sprintf("/%d (%.0f%%)", s.Total, 100*float64(s.Done)/float64(s.Total))
	}
	line += fmt.Sprintf(", %s", s.Elapsed.Round(time.Second))
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.drawn = true
}

func (p *verifyProgress) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
