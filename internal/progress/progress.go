// Package progress owns how the long commands show their progress on
// stderr (seed, load, fixtures, verify db, verify ids, audit, export): one
// look for all of them, so that standard output stays the command's result.
//
// A command uses three calls and nothing else:
//
//	p := progress.New(w, label, total, opts) // when the work itself starts
//	p.Set(done)                              // or p.Add(n), as often as it likes
//	p.Finish()                               // once, whatever happened
//
// (and p.SetTotal(n) if the total changes: an estimate, a size learnt late).
//
// New is called when writing (or reading) starts, after validation, plan
// checks and connecting: the clock starts there, so the rate and the time
// left count only the work. total is the number of units to do;
// UnknownTotal when it is not known (a count and a rate are shown, no
// percent or ETA); 0 shows nothing. A *Meter is nil when Options.Quiet is
// set and every method does nothing on nil, so call sites never test for
// it. Options.Unit names another unit than documents ("values", "IDs").
// The methods are safe for concurrent use.
//
// Two looks, chosen once by whether w is a terminal:
//
//   - A terminal gets an in-place bar drawn by
//     github.com/schollz/progressbar/v3: label, percent, bar, count/total,
//     rate and [elapsed:ETA], redrawn at most every RedrawEvery whatever
//     the count, and erased by Finish (also after a failure) so that the
//     command's output or error starts on a clean line.
//
//   - Anything else (a CI log, a pipe, a file) gets plain lines, no
//     carriage return and no escape code, one every Every:
//
//     users: 50000/100000 docs (50%), 12,345 docs/s, ETA 4s
//
//     and, if any was printed, one final line with the count reached and
//     the time taken. Work that finishes within the first period prints
//     nothing there: its summary on stdout says the same, and short runs
//     (the tests', the documentation's) keep their exact output. Lines are
//     printed when the work reports progress, not by a timer: a stalled
//     run prints nothing new.
//
// docs/seed.md (Progress) describes both looks to users.
package progress

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

const (
	// RedrawEvery keeps the terminal bar from costing more than the work it
	// shows.
	RedrawEvery = 100 * time.Millisecond
	// Every is the period of the plain lines: often enough that a
	// CI log shows a long run is alive, rarely enough that it stays short.
	Every = 5 * time.Second
	// UnknownTotal is the total of work whose size is not known in advance.
	UnknownTotal = -1
	// barWidth is the bar's width in cells, before the terminal narrows it.
	barWidth = 30
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Meter is the progress of one piece of work; see the package doc.
type Meter struct {
	mu    sync.Mutex
	label string
	unit  string
	total int64 // UnknownTotal when not known
	done  int64
	ended bool

	bar *progressbar.ProgressBar // on a terminal; nil for plain lines

	// Plain lines.
	w       io.Writer
	now     func() time.Time
	start   time.Time
	every   time.Duration
	last    time.Time // of the last line, or start
	printed bool
}

// Options are how a Meter is shown; the zero value is a meter of documents
// with the default periods.
type Options struct {
	Quiet bool   // no meter at all
	Unit  string // what is counted; "docs" when empty
	// Every and RedrawEvery, when not zero, replace the periods of the
	// plain lines and of the bar's redraw: tests shorten them.
	Every, RedrawEvery time.Duration
}

// New is the progress of work on total units, on w, starting now: nil
// (nothing shown) with o.Quiet or when total is 0.
func New(w io.Writer, label string, total int64, o Options) *Meter {
	if o.Quiet || total == 0 {
		return nil
	}
	if total < 0 {
		total = UnknownTotal
	}
	unit := cmp.Or(o.Unit, "docs")
	label = printable(label)
	if IsTerminal(w) {
		return &Meter{label: label, unit: unit, total: total, bar: newBar(w, label, unit, total, cmp.Or(o.RedrawEvery, RedrawEvery))}
	}
	return NewPlain(w, label, unit, total, cmp.Or(o.Every, Every), time.Now)
}

// NewPlain is the progress in plain lines on w, one every period, timed
// by now.
func NewPlain(w io.Writer, label, unit string, total int64, every time.Duration, now func() time.Time) *Meter {
	p := &Meter{label: label, unit: unit, total: total, w: w, now: now, every: every}
	p.start = now()
	p.last = p.start
	return p
}

// newBar is the terminal bar; drawing it at once starts its clock.
func newBar(w io.Writer, label, unit string, total int64, throttle time.Duration) *progressbar.ProgressBar {
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(label),
		progressbar.OptionSetWidth(barWidth),
		progressbar.OptionShowCount(),
		progressbar.OptionShowTotalBytes(total != UnknownTotal), // not "4096/-"
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(total != UnknownTotal),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(throttle),
		progressbar.OptionUseANSICodes(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetRenderBlankState(true),
	)
}

// Since times the progress from t instead of from its creation, for work
// reported only after it started. Only the plain lines can be backdated:
// the bar's clock is its library's.
func (p *Meter) Since(t time.Time) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil && t.Before(p.start) {
		p.start, p.last = t, t
	}
}

// Set records that done units are done.
func (p *Meter) Set(done int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.set(done)
}

// Add records n more units done.
func (p *Meter) Add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.set(p.done + n)
}

// SetTotal changes the total: an estimate that turned out wrong, or a size
// learnt late.
func (p *Meter) SetTotal(total int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended || total == p.total || total == 0 {
		return
	}
	if total < 0 {
		total = UnknownTotal
	}
	p.total = total
	if p.bar != nil {
		p.bar.ChangeMax64(total)
	}
}

func (p *Meter) set(done int64) {
	if p.ended || done < 0 {
		return
	}
	if p.total != UnknownTotal && done > p.total {
		// An estimate that was low: the count shown stays true.
		p.total = done
		if p.bar != nil {
			p.bar.ChangeMax64(done)
		}
	}
	if p.bar != nil {
		// The same count again (two inserters report the count both
		// their batches made) draws nothing: at the total the bar has
		// erased itself already.
		if done != p.done {
			_ = p.bar.Set64(done) // errors are the writer's: a terminal that went away
		}
		p.done = done
		return
	}
	p.done = done
	now := p.now()
	if now.Sub(p.last) >= p.every {
		p.last, p.printed = now, true
		fmt.Fprintln(p.w, p.line(now, false))
	}
}

// Finish ends the progress: the bar is cleared; after plain lines, a final
// one says how far the work got and how long it took.
func (p *Meter) Finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended = true
	if p.bar != nil {
		if !p.bar.IsFinished() { // it finishes by itself at the total
			_ = p.bar.Finish() // with OptionClearOnFinish: erases, never draws 100%
		}
		return
	}
	if p.printed {
		fmt.Fprintln(p.w, p.line(p.now(), true))
	}
}

// line is one plain line at now: "users: 50000/100000 docs (50%), 12,345
// docs/s, ETA 4s", or, final, the time taken instead of the ETA.
func (p *Meter) line(now time.Time, final bool) string {
	elapsed := now.Sub(p.start)
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(p.done) / s
	}
	s := fmt.Sprintf("%s: %d", p.label, p.done)
	if p.total != UnknownTotal {
		s += fmt.Sprintf("/%d %s (%d%%)", p.total, p.unit, percent(p.done, p.total))
	} else {
		s += " " + p.unit
	}
	s += ", " + thousands(int64(rate+0.5)) + " " + p.unit + "/s"
	switch {
	case final:
		s += ", " + roundDuration(elapsed).String()
	case p.total == UnknownTotal:
	case rate > 0:
		s += ", ETA " + roundDuration(time.Duration(float64(p.total-p.done)/rate*float64(time.Second))).String()
	default:
		s += ", ETA ?"
	}
	return s
}

// printable is label quoted if it holds a control character (a collection
// name may): a carriage return or an escape code in it would redraw the
// terminal or break the plain lines.
func printable(label string) string {
	if strings.IndexFunc(label, unicode.IsControl) >= 0 {
		return strconv.Quote(label)
	}
	return label
}

// percent is done/total in whole percent, rounded down: 100 only when
// everything is done.
func percent(done, total int64) int64 {
	if total <= 0 {
		return 0
	}
	return int64(float64(done) / float64(total) * 100)
}

// roundDuration shows seconds for long durations, milliseconds for short.
func roundDuration(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// thousands is n with a comma every three digits: 12,345.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
