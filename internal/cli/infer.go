package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/infer"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/target"
)

// defaultInferSample is the sample size of infer and compare.
const defaultInferSample = 10000

// profileFlags are the flags infer and compare share.
func profileFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.Int64Flag{Name: flagSample, Value: defaultInferSample, Usage: "profile `N` documents per collection drawn at random ($sample, or drawn while reading)"},
		&ucli.IntFlag{Name: flagMinCount, Value: infer.DefaultMinCount, Usage: "keep a value of the source only when at least `K` sampled documents hold it"},
	}
}

func (a *App) inferCommand() *ucli.Command {
	flags := append(connFlags(), dbFlag(seed.DefaultDB),
		&ucli.StringSliceFlag{Name: flagCollection, Aliases: []string{aliasCollection}, Usage: "collection to profile; repeatable (references are found between them)"},
		outFlag("write the plan to this `FILE` (default: standard output, after the report)"),
	)
	return &ucli.Command{
		Name:      "infer",
		Usage:     "write a plan whose documents look like existing collections, without their values",
		UsageText: "oidkit infer [--uri URI | --data-dir DIR] [--db DB] --collection C [--collection C2]... [--sample N] [--min-count K] [--out PLAN.json]",
		Description: "Profiles a random sample of each collection (read only) and writes a plan that seed --plan and\n" +
			"fixtures --plan run: field paths, presence, type mixes, distributions, categories, array\n" +
			"lengths, references, unique fields and indexes. No value of the source is in the plan unless\n" +
			"at least --min-count sampled documents hold it; the report says which fields kept values.",
		Flags: append(flags, profileFlags()...),
		Action: func(c *ucli.Context) error {
			return target.RedactError(a.infer(c), strings.TrimSpace(c.String(flagURI)))
		},
	}
}

// profileArgs reads --db, the collections, --sample and --min-count.
func profileArgs(c flagValues, names []string) (string, int64, infer.Options, error) {
	db := c.String(flagDB)
	if err := rules.CheckDatabaseName(db); err != nil {
		return "", 0, infer.Options{}, usageErrorf("%s: %v", arg(flagDB), err)
	}
	if len(names) == 0 {
		return "", 0, infer.Options{}, usageErrorf("expected at least one %s C", arg(flagCollection))
	}
	for i, name := range names {
		if err := rules.CheckCollectionName(name); err != nil {
			return "", 0, infer.Options{}, usageErrorf("%s %q: %v", arg(flagCollection), name, err)
		}
		if slices.Contains(names[:i], name) {
			return "", 0, infer.Options{}, usageErrorf("%s %q given twice: expected each collection once", arg(flagCollection), name)
		}
	}
	n := c.Int64(flagSample)
	if n <= 0 {
		return "", 0, infer.Options{}, usageErrorf("%s %d: expected a sample of at least 1 document", arg(flagSample), n)
	}
	k := c.Int(flagMinCount)
	if k < 1 {
		return "", 0, infer.Options{}, usageErrorf("%s %d: expected at least 1", arg(flagMinCount), k)
	}
	return db, n, infer.Options{MinCount: k}, nil
}

func (a *App) infer(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("infer: unexpected argument %q; collections are given with %s C", c.Args().First(), arg(flagCollection))
	}
	dbName, n, opts, err := profileArgs(c, c.StringSlice(flagCollection))
	if err != nil {
		return err
	}
	out := c.String(flagOut)
	if c.IsSet(flagOut) && strings.TrimSpace(out) == "" {
		return usageErrorf("%s %q: expected a file name", arg(flagOut), out)
	}
	t, err := a.openTarget(c.Context, targetOptions(c, true))
	if err != nil {
		return err
	}
	defer t.Close()
	profiles, err := infer.Collect(c.Context, t.Client.Database(dbName), c.StringSlice(flagCollection), n, opts)
	if err != nil {
		return explain(err, nil) // a collection that cannot be profiled is bad input
	}
	// The plan never names the source database: seeding it must not write there.
	inf, err := infer.Plan(dbName+"_copy", profiles)
	if err != nil {
		return failure(err)
	}
	for _, p := range profiles {
		fmt.Fprintf(a.stdout, "%s: inferred from %d of %d documents\n", p.Collection, p.Sampled, p.Total)
	}
	writeInferTable(a.stdout, inf)
	var bad []string
	for _, note := range inf.Notes {
		fmt.Fprintln(a.stdout, note)
		if note.Inexpressible {
			bad = append(bad, note.Collection+"."+note.Path)
		}
	}
	if out == "" {
		_, _ = a.stdout.Write(inf.JSON)
	} else {
		if err := os.WriteFile(out, inf.JSON, 0o644); err != nil {
			return failure(err)
		}
		fmt.Fprintf(a.stdout, "plan written to %s (run it with: oidkit seed --plan %s --seed 1)\n", out, out)
	}
	if len(bad) > 0 {
		return usageErrorf("%d field path(s) the template language cannot express: %s; the plan does without them (see above)", len(bad), strings.Join(bad, ", "))
	}
	return nil
}

func writeInferTable(w io.Writer, inf *infer.Inferred) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "collection\tpath\tpresent\ttypes\tinferred")
	for _, r := range inf.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%.1f%%\t%s\t%s\n", r.Collection, r.Path, 100*r.Present, r.Types, r.Inferred)
	}
	_ = tw.Flush()
}
