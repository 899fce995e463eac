package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for a reader on a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("values: %d\n", r.Total)
	p("\ntypes\n")
	for _, t := range r.Types {
		p("  %-9s %10d  %5.1f%%  e.g. %s\n", t.Kind, t.Count, 100*t.Share, strings.Join(t.Examples, ", "))
	}
	if t := r.Time; t != nil {
		p("\ntime\n")
		p("  range     %s .. %s\n", stamp(t.First), stamp(t.Last))
		p("  days      %d with IDs\n", len(t.Days))
		for f := range numTimeFindings {
			line(p, timeFindingText[f], t.findingSeq[f])
		}
	}
	wr := r.Writers
	p("\nwriters (5-byte random values)\n")
	p("  tracked   %d (dropped to bound memory: %d writers, %d IDs)\n", wr.Tracked, wr.Dropped, wr.Untracked)
	line(p, "counter wraps (0xffffff -> 0)", wr.Wraps)
	line(p, "counters not rising within a second", wr.NotRising)
	line(p, "times going backwards", wr.Backwards)
	if len(wr.Top) > 0 {
		p("  %-10s %9s  %-20s  %-20s  %-17s %s\n", "random", "IDs", "first", "last", "counters", "rising")
	}
	for _, x := range wr.Top {
		p("  %-10s %9d  %-20s  %-20s  %06x..%06x   %s\n", x.Random, x.Count, stamp(x.First), stamp(x.Last), x.CounterMin, x.CounterMax, yesNo(x.Rising))
	}
	p("\nlayout: %s\n", r.Layout.Kind)
	if m := r.Layout.Mix; m != nil {
		p("  %-12s %9d IDs of %s\n", "modern", m.Modern, writers(m.ModernWriters))
		p("  %-12s %9d IDs of %s (machines %d, PIDs %d)\n", "legacy", m.Legacy, writers(m.LegacyWriters), r.Layout.Machines, r.Layout.PIDs)
		p("  %-12s %9d IDs (lone writers, times over decades)\n", "random hex", m.RandomHex)
		p("  %-12s %9d IDs (made from a time, by no writer)\n", "zero-tailed", m.ZeroTailed)
		p("  %-12s %9d IDs (writers dropped to bound memory)\n", "untracked", m.Untracked)
		p("  %-12s %9d (values that are not ObjectIDs)\n", "other types", m.OtherTypes)
	}
	if r.Layout.Kind == LayoutLegacy || r.Layout.Mix != nil {
		if r.Layout.Mix == nil {
			p("  machines %d, PIDs %d\n", r.Layout.Machines, r.Layout.PIDs)
		}
		for _, m := range r.Layout.MachinesSharedByPIDs {
			p("  machine %s has PIDs %v (%d IDs)\n", m.Hash, m.PIDs, m.IDs)
		}
		for _, x := range r.Layout.PIDsSharedByMachines {
			p("  PID %d is on machines %s (%d IDs)\n", x.PID, strings.Join(x.Machines, ", "), x.IDs)
		}
	}
	p("\nnot spec-made\n")
	line(p, "random hex (lone writers, times over decades)", r.Random)
	c := r.Clock
	p("\nclock (tolerance %s)\n", r.Settings.SkewTolerance)
	p("  with a time field %d, without %d\n", c.Timed, c.Untimed)
	line(p, "skewed writers", c.SkewedWriters)
	line(p, "writers whose time goes backwards", c.BackwardWriters)
	for _, x := range wr.Top {
		if x.Skew != nil && x.Skew.Skewed {
			p("  writer %s: mean skew %+.1fs (min %+ds, max %+ds, %d docs)\n", x.Random, x.Skew.Mean, x.Skew.Min, x.Skew.Max, x.Skew.Docs)
		}
	}
	s := r.Shard
	p("\nshard key\n")
	p("  ascending %d of %d consecutive pairs", s.Ascending, s.Pairs)
	if s.Monotonic {
		p(": monotonic, every insert goes to the last chunk; use a hashed shard key")
	}
	switch {
	case r.Time == nil:
	case s.RatePerSec > 0:
		p("\n  rate      %.3g IDs/s over the time range", s.RatePerSec)
	default:
		p("\n  rate      n/a: every ID in one second")
	}
	if s.PeakDay != nil {
		p("; busiest day %s with %d", s.PeakDay.Day, s.PeakDay.Count)
	}
	p("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func line(p func(string, ...any), what string, f Finding) {
	if f.Count == 0 {
		p("  %-52s 0\n", what)
		return
	}
	p("  %-52s %d  e.g. %s\n", what, f.Count, strings.Join(f.Examples, ", "))
}

func writers(n int64) string {
	if n == 1 {
		return "1 writer"
	}
	return fmt.Sprintf("%d writers", n)
}

func stamp(t time.Time) string { return t.Format(time.RFC3339) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
