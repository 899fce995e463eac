package seed

import (
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/oidkit/oidkit/indexes"
)

// The states of a run manifest.
const (
	StateRunning = "running"
	StateDone    = "done"
	StateFailed  = "failed"
)

// Manifest is what a run wrote into one collection, stored with the data:
// enough to rebuild every document (the whole plan, seed, time base and
// span), which document ranges the server acknowledged, and the state of
// the run. Resuming and verifying read it instead of flags.
type Manifest struct {
	// Key is the document's _id: Collection, with "#" and Part.Suffix()
	// for a part. The writer sets it when it saves the manifest
	// (mongowrite.SaveManifest).
	Key        string `bson:"_id"`
	Collection string `bson:"collection"`
	// Part is the part of the collection the run writes; the zero Part
	// (left out of the document) is the whole collection.
	Part Part `bson:"part,omitempty"`
	// Run is shared by the collections written by one run.
	Run string `bson:"run"`
	DB  string `bson:"db"`
	// Seeded is false for a run whose template reads the clock: its
	// documents cannot be rebuilt, so it cannot be resumed or verified.
	Seeded bool             `bson:"seeded"`
	Seed   string           `bson:"seed"` // decimal: BSON has no uint64
	At     time.Time        `bson:"at"`
	Span   int64            `bson:"spanSeconds"`
	Specs  []CollectionPlan `bson:"plan"`
	Count  int64            `bson:"count"`
	// Count is the collection's, also for a part: Scope is the part's.
	// Acked is the merged, sorted ranges of documents the server
	// acknowledged; AckedCount their total.
	Acked      []Range   `bson:"acked"`
	AckedCount int64     `bson:"ackedCount"`
	State      string    `bson:"state"`
	Error      string    `bson:"error,omitempty"`
	Started    time.Time `bson:"started"`
	Updated    time.Time `bson:"updated"`
	Oidkit     string    `bson:"oidkit"`
	Gofakeit   string    `bson:"gofakeit"`
	// Format is the DocumentFormat of the oidkit that wrote the run; 0
	// (left out by versions before it was recorded) is format 1.
	Format int `bson:"format"`
	// Stored is what the run's stored references drew from: the same
	// plan and seed make the same documents only from the same _ids.
	Stored []StoredSet `bson:"stored,omitempty"`
}

// DocumentFormat numbers the generator's output: a change to the documents
// a seed and plan make (new fields, other values) takes the next number, so
// that a run written by another format is never resumed or verified with
// this one's documents. Format 2: coherent addresses, birthDate, updatedAt,
// prices in whole cents, Zipf-skewed order userId.
const DocumentFormat = 2

// format is the run's DocumentFormat, 1 for manifests that predate it.
func (m *Manifest) format() int { return max(m.Format, 1) }

// NewManifest is the manifest of a run of ds that writes c, in state
// running with nothing acknowledged. run names the run.
func NewManifest(ds *Dataset, c *Collection, run string) *Manifest {
	oidkit, fake := versions()
	m := &Manifest{
		Collection: c.Name(), Run: run, DB: ds.DB,
		Seeded: ds.Seeded, Seed: strconv.FormatUint(ds.Seed, 10),
		At: ds.Base, Span: int64(ds.Span / time.Second),
		Count: c.Len(), Acked: []Range{}, State: StateRunning,
		Started: time.Now().UTC().Truncate(time.Millisecond),
		Oidkit:  oidkit, Gofakeit: fake, Format: DocumentFormat,
		Stored: ds.StoredSets(),
	}
	m.Updated = m.Started
	for _, col := range ds.cols {
		m.Specs = append(m.Specs, planOf(col.spec))
	}
	return m
}

// versions are the module versions of oidkit and gofakeit in this binary.
func versions() (oidkit, gofakeit string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", "unknown"
	}
	oidkit, gofakeit = bi.Main.Version, "unknown"
	for _, d := range bi.Deps {
		switch d.Path {
		case "github.com/brianvoe/gofakeit/v7":
			gofakeit = d.Version
		case "github.com/oidkit/oidkit":
			oidkit = d.Version
		}
	}
	return oidkit, gofakeit
}

// FormatError is a run manifest of another DocumentFormat than this
// oidkit's: its documents cannot be rebuilt (the collection has to be
// written again, or read with the oidkit that wrote it). It wraps ErrPlan.
type FormatError struct {
	DB, Collection string
	Oidkit         string // the version that wrote the run
	Format         int    // the run's format
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%v: run manifest of %s.%s: the run was written by oidkit %s in document format %d; this oidkit makes format %d, so it cannot rebuild that run's documents", ErrPlan, e.DB, e.Collection, e.Oidkit, e.Format, DocumentFormat)
}

func (e *FormatError) Unwrap() error { return ErrPlan }

// Plan rebuilds the run's plan: the same seed, time base, span and
// collections, so Build gives the documents the run wrote. Every collection
// but the manifest's own is RefOnly.
func (m *Manifest) Plan() (*Plan, error) {
	if f := m.format(); f != DocumentFormat {
		return nil, &FormatError{DB: m.DB, Collection: m.Collection, Oidkit: m.Oidkit, Format: f}
	}
	if !m.Seeded {
		return nil, fmt.Errorf("%w: run manifest of %s.%s: the run was not seeded (a template reads the clock), so its documents cannot be rebuilt", ErrPlan, m.DB, m.Collection)
	}
	seed, err := strconv.ParseUint(m.Seed, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: run manifest of %s.%s: seed %q: expected an unsigned integer", ErrPlan, m.DB, m.Collection, m.Seed)
	}
	p := &Plan{DB: m.DB, Seed: seed, Seeded: true, At: m.At.UTC(), Span: spanOf(time.Duration(m.Span) * time.Second)}
	for _, s := range m.Specs {
		cs, err := s.manifestSpec(m.Collection)
		if err != nil {
			return nil, fmt.Errorf("%w: run manifest of %s.%s: collection %q: %v", ErrPlan, m.DB, m.Collection, s.Name, err)
		}
		p.Collections = append(p.Collections, cs)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("run manifest of %s.%s: %w", m.DB, m.Collection, err)
	}
	return p, nil
}

// manifestSpec is the CollectionSpec of c, a collection of the plan of a
// run manifest of collection own: the others are RefOnly.
func (c *CollectionPlan) manifestSpec(own string) (CollectionSpec, error) {
	var cs CollectionSpec
	if err := c.copyTo(&cs); err != nil {
		return cs, err
	}
	cs.RefOnly = c.Name != own
	var err error
	if cs.ID, err = ParseIDStrategy(c.ID); err != nil {
		return cs, err
	}
	if cs.IDMix, err = ParseIDMix(c.IDMix); err != nil {
		return cs, err
	}
	for _, j := range c.Indexes {
		ix, err := indexes.ParseJSON(j)
		if err != nil {
			return cs, err
		}
		cs.Indexes = append(cs.Indexes, ix)
	}
	if len(c.Template) > 0 {
		cs.Template, err = ParseTemplate(c.TemplateName, c.Template)
	}
	return cs, err
}

// Scope is the documents the run writes: its part of [0, Count).
func (m *Manifest) Scope() Range { return m.Part.Range(m.Count) }

// Done reports whether every document of the scope was acknowledged.
func (m *Manifest) Done() bool { return len(m.Missing()) == 0 }

// Ack records that the server acknowledged the documents of r.
func (m *Manifest) Ack(r Range) {
	m.Acked = MergeRanges(append(m.Acked, r))
	m.AckedCount = 0
	for _, a := range m.Acked {
		m.AckedCount += a.Len()
	}
}

// Acknowledged reports whether every document of r was acknowledged.
func (m *Manifest) Acknowledged(r Range) bool {
	for _, a := range m.Acked {
		if a.From <= r.From && r.To <= a.To {
			return true
		}
	}
	return r.Len() == 0
}

// Missing is the ranges of the scope not acknowledged, in order; empty
// (not nil) when every document was.
func (m *Manifest) Missing() []Range {
	scope := m.Scope()
	out := []Range{}
	next := scope.From
	for _, a := range m.Acked {
		if a.From > next {
			if r := (Range{next, min(a.From, scope.To)}); r.Len() > 0 {
				out = append(out, r)
			}
		}
		next = max(next, a.To)
	}
	if next < scope.To {
		out = append(out, Range{next, scope.To})
	}
	return out
}

// MergeRanges sorts rs and merges the ranges that overlap or touch; empty
// ranges are left out.
func MergeRanges(rs []Range) []Range {
	rs = slices.DeleteFunc(slices.Clone(rs), func(r Range) bool { return r.Len() == 0 })
	sort.Slice(rs, func(i, j int) bool { return rs[i].From < rs[j].From })
	out := []Range{}
	for _, r := range rs {
		if n := len(out); n > 0 && r.From <= out[n-1].To {
			out[n-1].To = max(out[n-1].To, r.To)
			continue
		}
		out = append(out, r)
	}
	return out
}
