package progress

import "time"

// Phases shows each phase of a piece of work as its own meter, labelled as
// Update is told ("verify users: read"). The reports come now and then, not
// at the start of a phase: a phase's first report starts its meter, timed
// from the report before it (the phase before was still running then), so
// that the rate does not count the first report's units as done in no
// time.
type Phases struct {
	start func(label string, total int64) *Meter
	label string
	cur   *Meter
	now   func() time.Time
	last  time.Time // of the last report, or when the work started
}

// NewPhases is the phases of work starting now; start makes the meter of
// each phase, timed by now.
func NewPhases(start func(label string, total int64) *Meter, now func() time.Time) *Phases {
	return &Phases{start: start, now: now, last: now()}
}

// Update reports done of total units of the phase label; a new label ends
// the phase before.
func (p *Phases) Update(label string, done, total int64) {
	if label != p.label {
		p.cur.Finish()
		p.label = label
		t := total
		if t <= 0 {
			t = UnknownTotal
		}
		p.cur = p.start(label, t)
		p.cur.Since(p.last)
	}
	p.last = p.now()
	p.cur.SetTotal(total)
	p.cur.Set(done)
}

// Finish ends the last phase.
func (p *Phases) Finish() { p.cur.Finish() }

// Lazy is a meter that its first report starts, so that its clock starts
// when the work does (after validation and connecting), not when it was
// asked for.
type Lazy struct {
	start   func(total int64) *Meter
	m       *Meter
	started bool
}

// NewLazy is the meter start makes at the first report.
func NewLazy(start func(total int64) *Meter) *Lazy { return &Lazy{start: start} }

// Report records done of total units, starting the meter at the first
// call; a later total replaces the first (an estimate).
func (l *Lazy) Report(done, total int64) {
	if !l.started {
		l.started = true
		l.m = l.start(total)
	}
	l.m.SetTotal(total)
	l.m.Set(done)
}

// Finish ends the meter, if it started.
func (l *Lazy) Finish() { l.m.Finish() }
