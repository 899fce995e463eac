package audit

import (
	"fmt"
	"html"
	"io"
	"os"
	"strings"
	"time"
)

// maxBars bounds the bars of the per-day histogram: days are binned beyond.
const maxBars = 200

// WriteHTML writes the report as one self-contained HTML page: the text
// report and four charts (IDs over time, writers over time, counter
// progress per writer, _id time minus time field per writer), inline SVG
// with no script and nothing fetched.
func (r *Report) WriteHTML(w io.Writer) error {
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>oidkit audit</title>
<style>body{font-family:sans-serif;margin:2em;max-width:1060px}h2{margin-top:1.5em;font-size:1.1em}pre{background:#f4f4f4;padding:1em;overflow-x:auto;font-size:12px}p.note{color:#555;font-size:.9em}</style>
</head><body><h1>oidkit audit</h1>`)
	fmt.Fprintf(&b, "<p>%d values; layout <b>%s</b>; report made %s.</p>", r.Total, r.Layout.Kind, r.Settings.Now.Format(time.RFC3339))
	section(&b, "IDs over time", "ObjectIDs per day (UTC), by their _id time.", r.daysChart())
	section(&b, "Writers over time", "Each bar spans one writer's first to last ID (the top writers by count, those with every ID between 2009 and now).", r.writersChart())
	section(&b, "Counter progress per writer", "Sampled counter values against time: a spec generator's counter rises.", r.countersChart())
	section(&b, "Clock skew", "Mean _id time minus the time field, per writer, in seconds (red: beyond the tolerance).", r.skewChart())
	fmt.Fprintf(&b, "<h2>Report</h2><pre>%s</pre></body></html>\n", html.EscapeString(text.String()))
	_, err := io.WriteString(w, b.String())
	return err
}

func section(b *strings.Builder, title, note, svg string) {
	fmt.Fprintf(b, "<h2>%s</h2><p class=\"note\">%s</p>", html.EscapeString(title), html.EscapeString(note))
	if svg == "" {
		b.WriteString("<p>No data.</p>")
		return
	}
	b.WriteString(svg)
}

func dateLabel(x float64) string { return time.Unix(int64(x), 0).UTC().Format("2006-01-02 15:04") }

func countLabel(y float64) string { return fmt.Sprintf("%.0f", y) }

func (r *Report) daysChart() string {
	if r.Time == nil || len(r.Time.Days) == 0 {
		return ""
	}
	first, _ := time.Parse(time.DateOnly, r.Time.Days[0].Day)
	last, _ := time.Parse(time.DateOnly, r.Time.Days[len(r.Time.Days)-1].Day)
	d0, d1 := first.Unix()/86400, last.Unix()/86400+1
	per := max((d1-d0+maxBars-1)/maxBars, 1) // days per bar
	bins := make([]int64, (d1-d0+per-1)/per)
	var top int64
	for _, d := range r.Time.Days {
		t, _ := time.Parse(time.DateOnly, d.Day)
		i := (t.Unix()/86400 - d0) / per
		bins[i] += d.Count
		top = max(top, bins[i])
	}
	c := newChart("IDs per day", float64(d0*86400), float64(d1*86400), 0, float64(top))
	for i, n := range bins {
		if n == 0 {
			continue
		}
		x := float64((d0 + int64(i)*per) * 86400)
		c.rect(x, x+float64(per*86400), 0, float64(n), palette[0], fmt.Sprintf("%s: %d IDs", dateLabel(x), n))
	}
	c.axes(dateLabel, countLabel)
	return c.String()
}

// saneWriters are the top writers whose IDs all lie between 2009 and the
// future tolerance: a writer at 1970 or 2106 would squash the others into
// one pixel (the text report lists it).
func (r *Report) saneWriters() (ws []Writer, x0, x1 time.Time) {
	lo, hi := time.Unix(epoch2009, 0), r.Settings.Now.Add(r.futureTolerance())
	for _, w := range r.Writers.Top {
		if w.First.Before(lo) || w.Last.After(hi) {
			continue
		}
		if len(ws) == 0 {
			x0, x1 = w.First, w.Last
		}
		ws = append(ws, w)
		x0, x1 = minTime(x0, w.First), maxTime(x1, w.Last)
	}
	return ws, x0, x1
}

func (r *Report) futureTolerance() time.Duration {
	d, _ := time.ParseDuration(r.Settings.FutureTolerance)
	return d
}

func (r *Report) writersChart() string {
	ws, x0, x1 := r.saneWriters()
	if len(ws) == 0 {
		return ""
	}
	c := newChart("writers over time", float64(x0.Unix()), float64(x1.Unix()+1), 0, float64(len(ws)))
	for i, w := range ws {
		y := float64(len(ws) - i)
		c.rect(float64(w.First.Unix()), float64(w.Last.Unix()+1), y-0.8, y-0.2, palette[i%len(palette)],
			fmt.Sprintf("%s: %d IDs, %s .. %s", w.Random, w.Count, stamp(w.First), stamp(w.Last)))
		c.text(padL+4, c.py(y-0.5)+4, "start", w.Random)
	}
	c.axes(dateLabel, func(float64) string { return "" })
	return c.String()
}

func (r *Report) countersChart() string {
	ws, x0, x1 := r.saneWriters()
	if len(ws) == 0 {
		return ""
	}
	c := newChart("counter progress", float64(x0.Unix()), float64(x1.Unix()+1), 0, counterSpace-1)
	for i, w := range ws {
		xs, ys := make([]float64, len(w.Samples)), make([]float64, len(w.Samples))
		for j, p := range w.Samples {
			xs[j], ys[j] = float64(p.Secs), float64(p.Counter)
		}
		c.polyline(xs, ys, palette[i%len(palette)], fmt.Sprintf("%s: counters %06x..%06x", w.Random, w.CounterMin, w.CounterMax))
	}
	c.axes(dateLabel, func(y float64) string { return fmt.Sprintf("%06x", int64(y)) })
	return c.String()
}

func (r *Report) skewChart() string {
	var ws []Writer
	lo, hi := 0.0, 0.0
	for _, w := range r.Writers.Top {
		if w.Skew != nil {
			ws = append(ws, w)
			lo, hi = min(lo, w.Skew.Mean), max(hi, w.Skew.Mean)
		}
	}
	if len(ws) == 0 {
		return ""
	}
	c := newChart("clock skew", 0, float64(len(ws)), lo, hi)
	for i, w := range ws {
		color := palette[2]
		if w.Skew.Skewed {
			color = palette[3]
		}
		c.rect(float64(i)+0.15, float64(i)+0.85, 0, w.Skew.Mean, color, fmt.Sprintf("%s: mean %+.1fs over %d docs", w.Random, w.Skew.Mean, w.Skew.Docs))
		c.text(c.px(float64(i)+0.5), float64(chartH-padB+28), "middle", w.Random)
	}
	c.axes(func(float64) string { return "" }, func(y float64) string { return fmt.Sprintf("%+.0fs", y) })
	return c.String()
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// WriteHTMLFile writes the HTML page into the file path, created or
// replaced; an error creating it is the *fs.PathError of its open.
func (r *Report) WriteHTMLFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := r.WriteHTML(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
