package audit

import (
	"slices"
	"time"
)

// Report is the result of an audit. Every finding has a count and a few
// examples (hex IDs, or Extended JSON for other types).
type Report struct {
	Total    int64        `json:"total"`
	Types    []TypeShare  `json:"types"`
	Time     *TimeReport  `json:"time,omitempty"`
	Writers  WriterReport `json:"writers"`
	Layout   Layout       `json:"layout"`
	Random   Finding      `json:"randomHex"`
	Clock    ClockReport  `json:"clock"`
	Shard    ShardReport  `json:"shardKey"`
	Settings Settings     `json:"settings"`
}

// Settings are the tolerances the report was made with.
type Settings struct {
	Now             time.Time `json:"now"`
	FutureTolerance string    `json:"futureTolerance"`
	SkewTolerance   string    `json:"skewTolerance"`
	MaxWriters      int       `json:"maxWriters"`
}

// TypeShare is how many values of one kind were found.
type TypeShare struct {
	Kind     Kind     `json:"kind"`
	Count    int64    `json:"count"`
	Share    float64  `json:"share"` // of Total, 0..1
	Examples []string `json:"examples,omitempty"`
}

// Finding is a count with its first examples.
type Finding struct {
	Count    int64    `json:"count"`
	Examples []string `json:"examples,omitempty"`
}

func (f finding) export() Finding { return Finding{Count: f.n, Examples: f.ex} }

// TimeReport covers the ObjectID times.
type TimeReport struct {
	First      time.Time          `json:"first"`
	Last       time.Time          `json:"last"`
	Days       []DayCount         `json:"days"`
	Findings   map[string]Finding `json:"findings"`
	findingSeq [numTimeFindings]Finding
}

// DayCount is one bar of the per-day histogram.
type DayCount struct {
	Day   string `json:"day"` // 2006-01-02, UTC
	Count int64  `json:"count"`
}

// WriterReport covers the 5-byte random values.
type WriterReport struct {
	Tracked     int       `json:"tracked"`
	Dropped     int64     `json:"dropped"`   // writers dropped to bound memory
	Untracked   int64     `json:"untracked"` // IDs of dropped writers
	Wraps       Finding   `json:"counterWraps"`
	NotRising   Finding   `json:"counterNotRising"`
	Backwards   Finding   `json:"timeBackwards"`
	Top         []Writer  `json:"top"`
	trackedList []*writer // every tracked writer, most IDs first
}

// Writer is one 5-byte random value and what its IDs show.
type Writer struct {
	Random     string    `json:"random"` // 10 hex digits
	Count      int64     `json:"count"`
	First      time.Time `json:"first"`
	Last       time.Time `json:"last"`
	CounterMin uint32    `json:"counterMin"`
	CounterMax uint32    `json:"counterMax"`
	Rising     bool      `json:"countersRise"` // no counter fell within a second
	Wraps      int64     `json:"counterWraps"`
	NotRising  int64     `json:"counterNotRising"`
	Backwards  int64     `json:"timeBackwards"`
	Skew       *Skew     `json:"skew,omitempty"`
	Samples    []point   `json:"samples,omitempty"`
}

// Skew is a writer's _id time minus its time field, in seconds.
type Skew struct {
	Mean   float64 `json:"mean"`
	Min    int64   `json:"min"`
	Max    int64   `json:"max"`
	Docs   int64   `json:"docs"`
	Skewed bool    `json:"skewed"`
}

// ClockReport covers the time field against the _id time.
type ClockReport struct {
	Timed           int64   `json:"timed"`   // ObjectIDs with a time field
	Untimed         int64   `json:"untimed"` // ObjectIDs without one
	SkewedWriters   Finding `json:"skewedWriters"`
	SkewedIDs       int64   `json:"skewedIDs"`
	BackwardWriters Finding `json:"backwardWriters"`
}

// ShardReport says whether _id as a range shard key is a risk.
type ShardReport struct {
	Pairs      int64     `json:"pairs"`         // consecutive ObjectID pairs
	Ascending  int64     `json:"ascending"`     // of them, the later greater
	Monotonic  bool      `json:"monotonic"`     // a hashed shard key is advised
	RatePerSec float64   `json:"ratePerSecond"` // ObjectIDs per second between the first and last time
	PeakDay    *DayCount `json:"peakDay,omitempty"`
}

// topWriters is how many writers a report lists one by one.
const topWriters = 20

// Report builds the report of everything added so far. The Auditor can go
// on being fed afterwards.
func (a *Auditor) Report() *Report {
	r := &Report{Settings: Settings{
		Now:             a.opts.Now.UTC().Truncate(time.Second),
		FutureTolerance: a.opts.FutureTolerance.String(),
		SkewTolerance:   a.opts.SkewTolerance.String(),
		MaxWriters:      a.opts.MaxWriters,
	}}
	for k := range numKinds {
		r.Total += a.types[k]
	}
	for k := range numKinds {
		if a.types[k] == 0 {
			continue
		}
		r.Types = append(r.Types, TypeShare{Kind: k, Count: a.types[k], Share: float64(a.types[k]) / float64(r.Total), Examples: a.typeEx[k]})
	}
	if a.objectID > 0 {
		r.Time = a.timeReport()
	}
	r.Writers = a.writerReport()
	r.Layout, r.Random = a.layout(&r.Writers, r.Total)
	r.Clock = a.clock(&r.Writers)
	r.Shard = a.shardKey(r.Time)
	return r
}

func (a *Auditor) timeReport() *TimeReport {
	t := &TimeReport{
		First:    time.Unix(int64(a.minSecs), 0).UTC(),
		Last:     time.Unix(int64(a.maxSecs), 0).UTC(),
		Findings: make(map[string]Finding, numTimeFindings),
	}
	days := make([]uint32, 0, len(a.days))
	for d := range a.days {
		days = append(days, d)
	}
	slices.Sort(days)
	for _, d := range days {
		t.Days = append(t.Days, DayCount{Day: dayName(d), Count: a.days[d]})
	}
	for f := range numTimeFindings {
		t.findingSeq[f] = a.times[f].export()
		t.Findings[timeFindingNames[f]] = t.findingSeq[f]
	}
	return t
}

func dayName(d uint32) string { return time.Unix(int64(d)*86400, 0).UTC().Format(time.DateOnly) }

func (a *Auditor) writerReport() WriterReport {
	t := &a.writers
	wr := WriterReport{
		Tracked:   len(t.m),
		Dropped:   t.dropped,
		Untracked: t.untracked,
		Wraps:     Finding{t.steps[stepWrap], t.stepEx[stepWrap]},
		NotRising: Finding{t.steps[stepNotRising], t.stepEx[stepNotRising]},
		Backwards: Finding{t.steps[stepBackwards], t.stepEx[stepBackwards]},
	}
	wr.trackedList = t.sorted()
	for i, w := range wr.trackedList {
		if i < topWriters {
			wr.Top = append(wr.Top, a.exportWriter(w))
		}
	}
	return wr
}

func (a *Auditor) exportWriter(w *writer) Writer {
	out := Writer{
		Random:     hexOf(w.key[:]),
		Count:      w.n,
		First:      time.Unix(int64(w.minSecs), 0).UTC(),
		Last:       time.Unix(int64(w.maxSecs), 0).UTC(),
		CounterMin: w.minCtr,
		CounterMax: w.maxCtr,
		Rising:     w.notRising == 0,
		Wraps:      w.wraps,
		NotRising:  w.notRising,
		Backwards:  w.backwards,
		Samples:    w.samples,
	}
	if w.timed > 0 {
		out.Skew = &Skew{Mean: w.meanSkew(), Min: w.skewMin, Max: w.skewMax, Docs: w.timed, Skewed: a.skewed(w)}
	}
	return out
}

func (w *writer) meanSkew() float64 { return float64(w.skewSum) / float64(w.timed) }

// skewed is the clock rule (see the package doc).
func (a *Auditor) skewed(w *writer) bool {
	if w.timed == 0 {
		return false
	}
	tol := a.opts.SkewTolerance.Seconds()
	m := w.meanSkew()
	return m > tol || m < -tol
}

// layout classifies each writer on its own: the random-hex rule decides the
// writers of one ID, the layout rule (layoutOf) those that behave like
// processes, and every other writer is modern. One kind present is the
// collection's layout; several make it mixed, with the count of each.
func (a *Auditor) layout(wr *WriterReport, total int64) (Layout, Finding) {
	l, legacy := layoutOf(wr.trackedList, a.opts.Examples)
	lone := a.writers.singles
	for _, w := range wr.trackedList {
		if w.n == 1 {
			lone.add(w)
		}
	}
	random := a.randomHex(lone, wr)
	m := Mix{
		ZeroTailed: a.times[findZeroTail].n,
		Untracked:  a.writers.untracked - a.writers.singles.n,
		OtherTypes: total - a.objectID,
		RandomHex:  random.Count,
	}
	if random.Count == 0 { // the writers of one ID are processes that made one
		m.Modern, m.ModernWriters = a.writers.singles.n, a.writers.singles.n
	}
	for _, w := range wr.trackedList {
		switch {
		case legacy[w]:
			m.Legacy += w.n
			m.LegacyWriters++
		case w.n == 1 && random.Count > 0:
		default:
			m.Modern += w.n
			m.ModernWriters++
		}
	}
	switch {
	case l.Kind == LayoutNone:
	case m.kinds() > 1:
		l.Kind, l.Mix = LayoutMixed, &m
	case m.RandomHex > 0:
		l.Kind = LayoutNotSpec
	}
	return l, random
}

// randomHex is the random-hex rule (see the package doc) over the writers
// of one ID: its count is theirs when the rule holds, else 0.
func (a *Auditor) randomHex(l lone, wr *WriterReport) Finding {
	const minIDs, spread = 10, 10 * 365 * 86400
	if l.n < minIDs || 2*l.odd < l.n || int64(l.maxSecs)-int64(l.minSecs) < spread {
		return Finding{}
	}
	f := Finding{Count: l.n}
	for _, w := range wr.trackedList {
		if w.n == 1 {
			f.Examples = appendExample(f.Examples, a.opts.Examples, hexOf(w.key[:]))
		}
	}
	return f
}

func (a *Auditor) clock(wr *WriterReport) ClockReport {
	c := ClockReport{Timed: a.timed, Untimed: a.untimed}
	for _, w := range wr.trackedList {
		if a.skewed(w) {
			c.SkewedIDs += w.timed
			c.SkewedWriters.Count++
			c.SkewedWriters.Examples = appendExample(c.SkewedWriters.Examples, a.opts.Examples, hexOf(w.key[:]))
		}
		if w.backwards > 0 {
			c.BackwardWriters.Count++
			c.BackwardWriters.Examples = appendExample(c.BackwardWriters.Examples, a.opts.Examples, hexOf(w.key[:]))
		}
	}
	return c
}

// shardKey is the shard-key rule (see the package doc).
func (a *Auditor) shardKey(t *TimeReport) ShardReport {
	s := ShardReport{Ascending: a.ascending}
	if a.objectID > 1 {
		s.Pairs = a.objectID - 1
		s.Monotonic = float64(s.Ascending) >= 0.9*float64(s.Pairs)
	}
	if t == nil {
		return s
	}
	if span := t.Last.Sub(t.First).Seconds(); span > 0 {
		s.RatePerSec = float64(a.objectID) / span
	}
	for i, d := range t.Days {
		if s.PeakDay == nil || d.Count > s.PeakDay.Count {
			s.PeakDay = &t.Days[i]
		}
	}
	return s
}
