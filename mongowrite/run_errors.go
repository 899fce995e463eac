package mongowrite

// The errors of a seed run's write phase (WriteDataset), with their fields
// for errors.As; their messages name no command-line flag.

import (
	"fmt"

	"github.com/oidkit/oidkit/parts"
)

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
	// key among themselves (Err a *UniqueInputError) or clash with
	// stored ones (a *UniqueClashError).
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
// (Err: a *parts.DocError wrapping a *rules.Violation, or CheckShape's
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
// save error or Insert's (a *parts.DocError for a refused document, a
// *WriteError otherwise). Held is how many documents of the run the
// server holds (counted after the failure when it answers, else at least
// the acknowledged ones, AtLeast), -1 when it does not apply (Err is no
// *WriteError). A document refused as a duplicate key that the
// collection does not hold as it is has a ErrNotStored reason.
type InsertError struct {
	DB, Collection string
	Part           parts.Part
	Held           int64
	AtLeast        bool
	Total          int64 // the documents of the part
	Seeded         bool  // false: the run cannot be resumed
	Err            error
}

func (e *InsertError) Error() string {
	return fmt.Sprintf("%s: inserted %d of %d: %v", e.Where(), e.Held, e.Total, e.Err)
}
func (e *InsertError) Unwrap() error { return e.Err }

// where names collection coll of database db, and part p of it:
// "oidkit.users part 0/2". Results and errors name what they wrote by it.
func where(db, coll string, p parts.Part) string { return db + "." + coll + PartNote(p) }

// Where names the collection and part the write was of (where).
func (e *InsertError) Where() string { return where(e.DB, e.Collection, e.Part) }

// Where names the collection and part of the run (where).
func (e *AlreadyStoredError) Where() string { return where(e.DB, e.Collection, e.Part) }

// PartNote names part p in summaries: "" for the whole dataset, else
// " part I/N".
func PartNote(p parts.Part) string {
	if p.Whole() {
		return ""
	}
	return fmt.Sprintf(" part %s", p)
}

// AlreadyStoredError is a run, without Resume, whose documents are there
// already: its inserts would only repeat duplicate _ids. Nothing was
// written. Either its run manifest says so (Manifest: the run was written,
// State done, or started), or Count of its documents are stored as they
// are generated (a plan loaded or seeded before without its manifest;
// First and FirstID: the first such document).
type AlreadyStoredError struct {
	DB, Collection string
	Part           parts.Part
	Manifest       *Manifest
	Count          int64
	First          int64 // the first such document's number
	FirstID        string
}

func (e *AlreadyStoredError) Error() string {
	switch {
	case e.Manifest != nil && e.Manifest.State == StateDone:
		return fmt.Sprintf("%s: the %d documents of this run are already there", e.Where(), e.Manifest.Scope().Len())
	case e.Manifest != nil:
		return fmt.Sprintf("%s: a run of this plan stopped (%s) after %d of %d documents", e.Where(), e.Manifest.State, e.Manifest.AckedCount, e.Manifest.Scope().Len())
	}
	return fmt.Sprintf("%s: %d documents of this run are already stored as generated (first: document %d, _id %s); nothing was written", e.Where(), e.Count, e.First, e.FirstID)
}
