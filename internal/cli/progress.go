package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/seed"
)

// redrawEvery keeps a status line from costing more than the work it shows.
const redrawEvery = 100 * time.Millisecond

// isTerminal reports whether w is a character device (a terminal), without
// any dependency: progress is only drawn there.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// showProgress reports whether a command draws progress: on a terminal,
// unless --quiet.
func (a *App) showProgress(c *ucli.Context) bool {
	return !c.Bool(flagQuiet) && isTerminal(a.stderr)
}

// statusLine is the one progress drawer: a line on a terminal, redrawn in
// place at most ten times a second, and cleared by finish so that the
// command's output starts on a clean line.
type statusLine struct {
	last  time.Time
	drawn bool
}

// update draws the line text returns, unless the last drawing is too recent
// and the work is not done: the final state is always shown. text is only
// called when the line is drawn.
func (s *statusLine) update(w io.Writer, done bool, text func() string) {
	if !done && time.Since(s.last) < redrawEvery {
		return
	}
	s.last = time.Now()
	fmt.Fprintf(w, "\r%s\x1b[K", text())
	s.drawn = true
}

// finish clears the line if anything was drawn.
func (s *statusLine) finish(w io.Writer) {
	if s.drawn {
		fmt.Fprint(w, "\r\x1b[K")
	}
}

// progressBar shows documents written out of a total, with the rate and
// the time left: seed, load and fixtures draw it.
type progressBar struct {
	w     io.Writer
	label string
	line  statusLine
}

func (b *progressBar) update(p seed.Progress) {
	b.line.update(b.w, p.Inserted+p.Skipped >= p.Total, func() string { return barText(b.label, p) })
}

func (b *progressBar) finish() {
	b.line.finish(b.w)
}

// barText is "users [=====     ] 50% 500/1000 250 docs/s ETA 2s".
func barText(label string, p seed.Progress) string {
	done := p.Inserted + p.Skipped
	frac := 0.0
	if p.Total > 0 {
		frac = float64(done) / float64(p.Total)
	}
	const width = 30
	fill := int(frac * width)
	rate, eta := 0.0, "?"
	if s := p.Elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
		if rate > 0 {
			eta = (time.Duration(float64(p.Total-done)/rate) * time.Second).Round(time.Second).String()
		}
	}
	return fmt.Sprintf("%s [%s%s] %3.0f%% %d/%d %.0f docs/s ETA %s",
		label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), frac*100, done, p.Total, rate, eta)
}
