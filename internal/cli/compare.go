package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/infer"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/target"
)

func (a *App) compareCommand() *ucli.Command {
	flags := append(connFlags(), dbFlag(seed.DefaultDB),
		&ucli.StringFlag{Name: flagCollection, Aliases: []string{aliasCollection}, Usage: "the first collection"},
		&ucli.StringFlag{Name: flagAgainst, Usage: "connection `URI` of the second collection's server (default: the first's)"},
		&ucli.StringFlag{Name: flagToDB, Usage: "database of the second collection (default: --db)"},
		&ucli.StringFlag{Name: flagToColl, Usage: "the second collection (default: --collection)"},
		jsonFlag("print the comparison as JSON"),
	)
	return &ucli.Command{
		Name:      "compare",
		Usage:     "profile two collections and say how far apart they are, per field and overall",
		UsageText: "oidkit compare [--uri URI | --data-dir DIR] [--db DB] --collection C [--against URI] [--to-db DB2] [--to-collection C2] [--sample N] [--json]",
		Description: "Profiles a random sample of each collection as infer does (read only) and prints, per field\n" +
			"path, the presence of each side and the largest of its distances (type mix, values,\n" +
			"string lengths, categories, array lengths, how often each value repeats), and a similarity\n" +
			"in [0, 1]: 1 minus the mean.",
		Flags: append(flags, profileFlags()...),
		Action: func(c *ucli.Context) error {
			return target.RedactError(a.compare(c), strings.TrimSpace(c.String(flagURI)))
		},
	}
}

func (a *App) compare(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("compare: unexpected argument %q", c.Args().First())
	}
	name := c.String(flagCollection)
	dbA, n, opts, err := profileArgs(c, []string{name})
	if err != nil {
		return err
	}
	toColl, toDB := c.String(flagToColl), c.String(flagToDB)
	if toColl == "" {
		toColl = name
	}
	if toDB == "" {
		toDB = dbA
	}
	if _, _, _, err := profileArgs(c, []string{toColl}); err != nil {
		return err
	}
	t, err := a.openTarget(c.Context, targetOptions(c, true))
	if err != nil {
		return err
	}
	defer t.Close()
	tb := t
	if uri := strings.TrimSpace(c.String(flagAgainst)); uri != "" {
		if tb, err = a.openTarget(c.Context, target.Options{URI: uri, Timeout: c.Duration(flagTimeout)}); err != nil {
			return err
		}
		defer tb.Close()
	} else if toDB == dbA && toColl == name {
		return usageErrorf("%s %q against itself: expected %s, %s or %s", arg(flagCollection), name, arg(flagToColl), arg(flagToDB), arg(flagAgainst))
	}
	pa, err := infer.Collect(c.Context, t.Client.Database(dbA), []string{name}, n, opts)
	if err != nil {
		return explain(err, nil)
	}
	pb, err := infer.Collect(c.Context, tb.Client.Database(toDB), []string{toColl}, n, opts)
	if err != nil {
		return explain(err, nil)
	}
	cmp := infer.Compare(pa[0], pb[0])
	if c.Bool(flagJSON) {
		data, err := json.Marshal(cmp)
		if err != nil {
			return failure(err)
		}
		fmt.Fprintf(a.stdout, "%s\n", data)
		return nil
	}
	fmt.Fprintf(a.stdout, "%s.%s: %d of %d documents; %s.%s: %d of %d documents\n", dbA, name, pa[0].Sampled, pa[0].Total, toDB, toColl, pb[0].Sampled, pb[0].Total)
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "path\tpresent\ttypes\tvalues\tlengths\tcategories\tarrays\trepeats\tdistance")
	for _, d := range cmp.Fields {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.3f\n", d.Path, presence(d), measure(d.Types), measure(d.Values), measure(d.Lengths), measure(d.Categories), measure(d.ArrayLengths), measure(d.Repeats), d.Distance)
	}
	_ = tw.Flush()
	fmt.Fprintf(a.stdout, "similarity %.3f\n", cmp.Similarity)
	return nil
}

func presence(d infer.Distance) string {
	return fmt.Sprintf("%.1f%%/%.1f%%", 100*d.PresentA, 100*d.PresentB)
}

func measure(x float64) string {
	if x < 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", x)
}
