package seed

import (
	"fmt"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/oidkit/oidkit/indexes"
)

// PlanRecord is a plan as a run records it with its data (the plan part of
// a run manifest, mongowrite.Manifest): enough to rebuild every document
// (the whole plan, seed, time base and span), with the versions and the
// document format that made them and the stored _ids its references drew
// from. Its BSON is the manifest's; Diff compares two records and Plan
// rebuilds the plan.
type PlanRecord struct {
	DB string `bson:"db"`
	// Seeded is false for a run whose template reads the clock: its
	// documents cannot be rebuilt, so it cannot be resumed or verified.
	Seeded bool             `bson:"seeded"`
	Seed   string           `bson:"seed"` // decimal: BSON has no uint64
	At     time.Time        `bson:"at"`
	Span   int64            `bson:"spanSeconds"`
	Specs  []CollectionPlan `bson:"plan"`
	// Format is the DocumentFormat of the oidkit that wrote the run; 0
	// (left out by versions before it was recorded) is format 1.
	Format   int    `bson:"format"`
	Oidkit   string `bson:"oidkit"`
	Gofakeit string `bson:"gofakeit"`
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

// format is the run's DocumentFormat, 1 for records that predate it.
func (r *PlanRecord) format() int { return max(r.Format, 1) }

// NewPlanRecord is the record of ds's plan that a run of it keeps.
func NewPlanRecord(ds *Dataset) PlanRecord {
	oidkit, fake := versions()
	r := PlanRecord{
		DB: ds.DB, Seeded: ds.Seeded, Seed: strconv.FormatUint(ds.Seed, 10),
		At: ds.Base, Span: int64(ds.Span / time.Second),
		Format: DocumentFormat, Oidkit: oidkit, Gofakeit: fake,
		Stored: ds.StoredSets(),
	}
	for _, col := range ds.cols {
		r.Specs = append(r.Specs, planOf(col.spec))
	}
	return r
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

// Plan rebuilds the recorded plan: the same seed, time base, span and
// collections, so Build gives the documents the run wrote. Every collection
// but coll, the one whose run manifest holds the record, is RefOnly. A
// record of another DocumentFormat is a *PlanError of SettingFormat.
func (r *PlanRecord) Plan(coll string) (*Plan, error) {
	if f := r.format(); f != DocumentFormat {
		// Its documents cannot be rebuilt: the collection has to be
		// written again, or read with the oidkit that wrote it.
		return nil, &PlanError{Source: "run manifest of " + r.DB + "." + coll, Setting: SettingFormat, Value: strconv.Itoa(f),
			Err: fmt.Errorf("the run was written by oidkit %s in document format %d; this oidkit makes format %d, so it cannot rebuild that run's documents", r.Oidkit, f, DocumentFormat)}
	}
	if !r.Seeded {
		return nil, fmt.Errorf("%w: run manifest of %s.%s: the run was not seeded (a template reads the clock), so its documents cannot be rebuilt", ErrPlan, r.DB, coll)
	}
	seed, err := strconv.ParseUint(r.Seed, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: run manifest of %s.%s: seed %q: expected an unsigned integer", ErrPlan, r.DB, coll, r.Seed)
	}
	p := &Plan{DB: r.DB, Seed: seed, Seeded: true, At: r.At.UTC(), Span: spanOf(time.Duration(r.Span) * time.Second)}
	for _, s := range r.Specs {
		cs, err := s.manifestSpec(coll)
		if err != nil {
			return nil, fmt.Errorf("%w: run manifest of %s.%s: collection %q: %v", ErrPlan, r.DB, coll, s.Name, err)
		}
		p.Collections = append(p.Collections, cs)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("run manifest of %s.%s: %w", r.DB, coll, err)
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
