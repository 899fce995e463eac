package seed

// A plan: what to generate (Plan, CollectionSpec, Ref), its defaults, and
// Scale.

import (
	"math"
	"strconv"
	"time"

	"github.com/oidkit/oidkit/indexes"
)

// DefaultBase is the time base of a seeded plan without an explicit At:
// 2024-01-01T00:00:00Z. It is part of the output format: changing it changes
// every seeded ObjectID.
var DefaultBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// DefaultDB is the database a plan writes to when none is named.
const DefaultDB = "oidkit"

// MaxCount bounds a collection's document count (2^40), far above anything
// useful and small enough that no index arithmetic overflows.
const MaxCount = int64(1) << 40

// DefaultSpan is the window a plan's timestamps spread over when its Span
// is zero, on the command line and in Go alike: a year ending at the time
// base, as a collection in use for a while looks, shortened so that it
// starts no earlier than 1970-01-01 (a time base in 1970 gets the part of
// the year that exists).
const DefaultSpan = 365 * 24 * time.Hour

// NoSpan as Plan.Span puts every timestamp in the time base's second (the
// command line's --span 0, a plan file's "span": "0s").
const NoSpan time.Duration = -1

// Plan describes what to generate: collections with their kinds or
// templates, counts, _id strategies and references, plus the seed and time
// settings shared by all of them.
type Plan struct {
	DB string // database name; empty means DefaultDB

	// Seed makes the run deterministic when Seeded is true.
	Seed   uint64
	Seeded bool

	// At is the time base; zero means DefaultBase when seeded, the current
	// time otherwise. Span spreads timestamps over [At-Span, At]; zero
	// means DefaultSpan (as on the command line), NoSpan puts them all in
	// the time base's second.
	At   time.Time
	Span time.Duration

	Collections []CollectionSpec
}

// CollectionSpec is one collection of a plan. Its tags are its keys in
// a plan file (json) and in a run manifest (bson), as CollectionPlan,
// which embeds it, writes and reads them: a setting that text holds as
// it is needs only its field here, with both tags, to be read, written,
// named by a Setting and compared by PlanRecord.Diff. The fields tagged
// "-" have a text form of their own, a field of CollectionPlan.
type CollectionSpec struct {
	Name     string     `json:"name" bson:"name"`
	Kind     string     `json:"kind,omitempty" bson:"kind,omitempty"` // a built-in kind, or "" with Template
	Template *Template  `json:"-" bson:"-"`                           // a parsed template, or nil with Kind
	Count    int64      `json:"-" bson:"-"`
	ID       IDStrategy `json:"-" bson:"-"`
	IDStart  int64      `json:"idStart,omitempty" bson:"idStart"` // first _id of the int strategy
	// IDStep is how far apart the int strategy's _ids are: document i's
	// is IDStart + i*IDStep (0 means 1), so an inferred plan spreads them
	// over the source's range.
	IDStep int64 `json:"idStep,omitempty" bson:"idStep,omitempty"`
	// IDQuantiles, when set, are the quantiles the int strategy's _ids
	// follow, increasing (idCurve); not with IDStep.
	IDQuantiles []float64 `json:"idQuantiles,omitempty" bson:"idQuantiles,omitempty"`
	// IDMix, when set, gives other strategies a share of the documents
	// each (in the order of their kinds; see ParseIDMix): document i's
	// strategy is drawn from the collection's seed and i alone, so ID(i)
	// stays a function of i. The rest of the documents use ID. Each
	// strategy makes document i's _id as it would alone: an int _id is
	// still IDStart+i*IDStep, with gaps where another strategy has the number.
	IDMix []IDShare `json:"-" bson:"-"`
	Refs  []Ref     `json:"refs,omitempty" bson:"refs,omitempty"`
	// RefOnly collections are not written; they exist so that references
	// resolve to the IDs another run (with the same seed) writes.
	RefOnly bool `json:"refOnly,omitempty" bson:"refOnly,omitempty"`
	// Indexes are created by seed and load, and checked by verify db. They
	// do not change the documents.
	Indexes []indexes.Index `json:"-" bson:"-"`
	// Times, when set, is the quantile function of the ObjectID (and
	// createdAt) times by document number, as fractions of the window
	// [At-Span, At]: ascending points in [0, 1], document i at the point
	// i/(Count-1) of it (the last document at At all the same). Without it
	// the times are spread evenly over the window.
	Times []float64 `json:"times,omitempty" bson:"times,omitempty"`
}

// Ref makes Field of every document hold the _id of a document of collection
// To, chosen from the seed. With Max > 0 the field is an array of Min..Max
// such IDs.
type Ref struct {
	Field string `json:"field"`
	To    string `json:"to"`
	Min   int    `json:"min,omitempty"`
	Max   int    `json:"max,omitempty"`
	// Lengths and Weights, when set (with Max > 0), are how many targets an
	// array holds and how often: length Lengths[k] with weight Weights[k],
	// each within [Min, Max], drawn stratified over the documents (as a
	// template's $array lengths are); without them a length of Min..Max
	// is drawn uniformly.
	Lengths []int     `json:"lengths,omitempty"`
	Weights []float64 `json:"weights,omitempty"`
	// Unresolved is the share of the values that are the _id of no
	// document of To (0: all resolve).
	Unresolved float64 `json:"unresolved,omitempty"`
	// PerTarget, when set, is the number of references the documents of
	// To receive, as the mean of each of len(PerTarget) equal parts of
	// them ranked by it (zeros included; a Lorenz curve in steps): targets
	// are then drawn so that each part receives its share, instead of
	// uniformly. Only the shares count, so it holds at any count.
	PerTarget []float64 `json:"perTarget,omitempty"`
	// Stored, when set, draws the targets from the _ids stored in
	// collection To of the target database (sorted by _id, handed to
	// BuildStored) instead of a collection of the plan: To is then not a
	// collection the plan writes. The skew settings apply to the stored
	// documents in _id order.
	Stored bool `json:"stored,omitempty"`
}

// Scale sets the count of the plan's first collection to n and those of
// the others in their proportion to it (rounded, at least 1 where the plan
// had some), as -n scales the shop plan: an inferred plan keeps its
// source's proportions at any size. The first collection must have
// documents.
func (p *Plan) Scale(n int64) error {
	if len(p.Collections) == 0 {
		return nil
	}
	first := p.Collections[0]
	if n < 0 || n > MaxCount {
		return planErrorf(first.Name, SettingCount, strconv.FormatInt(n, 10), "count %d: expected 0..%d", n, MaxCount)
	}
	if first.Count <= 0 {
		return planErrorf(first.Name, SettingCount, "0", "count 0: the plan's first collection sets the scale and has no documents")
	}
	counts := make([]int64, len(p.Collections))
	for k, cs := range p.Collections {
		c := math.Round(float64(cs.Count) * float64(n) / float64(first.Count))
		if c > float64(MaxCount) {
			return planErrorf(cs.Name, SettingCount, strconv.FormatInt(n, 10), "%d documents of the first collection make %.0f of %s: expected at most %d", n, c, cs.Name, MaxCount)
		}
		counts[k] = int64(c)
		if cs.Count > 0 && n > 0 {
			counts[k] = max(counts[k], 1)
		}
	}
	counts[0] = n
	for k := range p.Collections {
		p.Collections[k].Count = counts[k]
	}
	return nil
}
