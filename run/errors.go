package run

import (
	"fmt"
	"strings"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

// Step names what Expected, Resume or Seed was doing when it failed.
type Step int

const (
	// StepRead is reading run manifests.
	StepRead Step = iota
	// StepPlan is rebuilding or building a plan.
	StepPlan
	// StepExpect is rebuilding the expected documents.
	StepExpect
	// StepSettings is making or checking the plan that settings describe
	// (SeedSettings).
	StepSettings
	// StepResume is reading back the run a resume continues (SeedSettings):
	// Err is Resume's error.
	StepResume
)

// StepError is an error of one step: Err as it came.
type StepError struct {
	Step Step
	Err  error
}

func (e *StepError) Error() string { return e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// OtherRunError is a plan (or settings given with a resume) that
// describes another run than the one written in DB.Collection: Diff is
// the first difference (seed.PlanDiff: Old the run's, New the plan's), nil
// when the plan does not describe that collection at all. Of
// seed.SettingStored, the plan is the run's but the _ids its stored
// references drew from are no longer those the target holds.
type OtherRunError struct {
	DB, Collection string
	Diff           *seed.PlanDiff
}

func (e *OtherRunError) Error() string {
	switch {
	case e.Diff == nil:
		return fmt.Sprintf("%s.%s: the plan describes no such collection", e.DB, e.Collection)
	case e.Diff.Field == seed.SettingStored:
		return fmt.Sprintf("%s.%s: its references were drawn from the documents stored in %s.%s (%s then, %s now); the run cannot be continued with other ones",
			e.DB, e.Collection, e.DB, e.Diff.Collection, e.Diff.Old, e.Diff.New)
	}
	return fmt.Sprintf("%s.%s: the run was written with %s %s, not %s", e.DB, e.Collection, e.Diff.Field, e.Diff.Old, e.Diff.New)
}

// PartMismatchError is a run resumed as another part than the one its
// manifests record: each part has its manifest and its writer.
type PartMismatchError struct {
	DB, Collection string
	Parts          int64 // the number of parts it was written in
}

func (e *PartMismatchError) Error() string {
	return fmt.Sprintf("%s.%s was written in %d parts: expected one part per writer", e.DB, e.Collection, e.Parts)
}

// PartState is a part of a collection that is not done: Manifest is nil
// when it was never started.
type PartState struct {
	Collection string
	Part       seed.Part
	Manifest   *mongowrite.Manifest
}

func (s PartState) String() string {
	if s.Manifest == nil {
		return fmt.Sprintf("%s part %d/%d: not started (no run manifest)", s.Collection, s.Part.I, s.Part.N)
	}
	return fmt.Sprintf("%s part %d/%d: %s, %d of %d documents", s.Collection, s.Part.I, s.Part.N, s.Manifest.State, s.Manifest.AckedCount, s.Manifest.Scope().Len())
}

// PartsError is a run written in parts of which some are not done.
type PartsError struct {
	Pending []PartState
}

func (e *PartsError) Error() string {
	s := make([]string, len(e.Pending))
	for k, p := range e.Pending {
		s[k] = p.String()
	}
	return "the run was written in parts, not all done: " + strings.Join(s, "; ")
}

// IndexStage is when a collection's indexes failed.
type IndexStage int

const (
	// IndexCheck is the checks before anything is written.
	IndexCheck IndexStage = iota
	// IndexBefore is creating them before the documents (nothing inserted).
	IndexBefore
	// IndexAfter is creating them after the documents (all written).
	IndexAfter
	// IndexUnique is the checks of the plan's documents against the unique
	// indexes before anything is written: documents that repeat a unique
	// key among themselves (Err a *mongowrite.UniqueInputError) or clash with
	// stored ones (a *mongowrite.UniqueClashError).
	IndexUnique
)

// IndexError is a collection's indexes that conflict, are refused or are
// invalid (Err, an indexes error), or that the plan's documents would break
// (IndexUnique), and when.
type IndexError struct {
	DB, Collection string
	Stage          IndexStage
	Written        int64 // the collection's documents of the run written (IndexAfter)
	Err            error
}

func (e *IndexError) Error() string { return fmt.Sprintf("%s.%s: %v", e.DB, e.Collection, e.Err) }
func (e *IndexError) Unwrap() error { return e.Err }

// RefusedError is a document or template shape the target's rules refuse
// (Err: a *seed.DocError wrapping a *rules.Violation, or CheckShape's
// error), found before anything was written when Before is true.
type RefusedError struct {
	DB     string
	Shape  bool // the template's shape, not a document
	Before bool // found before the drop and the first write
	Err    error
}

func (e *RefusedError) Error() string { return fmt.Sprintf("%s.%v", e.DB, e.Err) }
func (e *RefusedError) Unwrap() error { return e.Err }

// InsertError is writing a collection that stopped: Err is the manifest's
// save error or mongowrite.Insert's (a *seed.DocError for a refused document, a
// *mongowrite.WriteError otherwise). Held is how many documents of the run the
// server holds (counted after the failure when it answers, else at least
// the acknowledged ones, AtLeast), -1 when it does not apply (Err is no
// *mongowrite.WriteError). A document refused as a duplicate key that the
// collection does not hold as it is has a mongowrite.ErrNotStored reason.
type InsertError struct {
	DB, Collection string
	Part           seed.Part
	Held           int64
	AtLeast        bool
	Total          int64 // the documents of the part
	Seeded         bool  // false: the run cannot be resumed
	Err            error
}

func (e *InsertError) Error() string {
	return fmt.Sprintf("%s.%s%s: inserted %d of %d: %v", e.DB, e.Collection, PartNote(e.Part), e.Held, e.Total, e.Err)
}
func (e *InsertError) Unwrap() error { return e.Err }

// PartNote names part p in summaries: "" for the whole dataset, else
// " part I/N".
func PartNote(p seed.Part) string {
	if p.Whole() {
		return ""
	}
	return fmt.Sprintf(" part %s", p)
}
