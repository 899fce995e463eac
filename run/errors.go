package run

import (
	"fmt"
	"strings"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
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
	Part       parts.Part
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

// The errors of the write phase are mongowrite's (mongowrite.WriteDataset
// writes every run); run names them as before.

// IndexStage is when a collection's indexes failed: mongowrite.IndexStage.
type IndexStage = mongowrite.IndexStage

// The stages of an IndexError (mongowrite's).
const (
	IndexCheck  = mongowrite.IndexCheck
	IndexBefore = mongowrite.IndexBefore
	IndexAfter  = mongowrite.IndexAfter
	IndexUnique = mongowrite.IndexUnique
)

// IndexError is a collection's indexes that failed, and when:
// mongowrite.IndexError.
type IndexError = mongowrite.IndexError

// RefusedError is a document or template shape the target's rules refuse:
// mongowrite.RefusedError.
type RefusedError = mongowrite.RefusedError

// InsertError is writing a collection that stopped: mongowrite.InsertError.
type InsertError = mongowrite.InsertError

// AlreadyStoredError is a run, without Resume, whose documents are there
// already: mongowrite.AlreadyStoredError.
type AlreadyStoredError = mongowrite.AlreadyStoredError

// PartNote names part p in summaries: "" for the whole dataset, else
// " part I/N" (mongowrite.PartNote).
func PartNote(p parts.Part) string { return mongowrite.PartNote(p) }
