package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/internal/message"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

// seedWording words what run.Seed returned: the flag to name, and how to
// go on. display names the target.
func (a *App) seedWording(o seedOptions, display string) wording {
	return func(err error, lib exitCoder) error {
		switch e := lib.(type) {
		case *seed.StoredRefError:
			// Nothing to draw from: named by its --ref, else by the plan
			// (or the run resumed).
			what, refs := fmt.Sprintf("%s %q", arg(flagPlan), o.flags.Options.Plan), o.flags.Options.Refs
			if o.resume {
				what, refs = arg(flagResume), nil
			}
			return storedRefMessage(e, refs, what, "nothing was written")
		case *run.StepError:
			if e.Step == run.StepPlan {
				return fmt.Errorf("%s: %v", arg(flagResume), e.Err)
			}
		case *run.RefusedError:
			if e.Shape {
				return fmt.Errorf("%s.%v; nothing was written", e.DB, e.Err)
			}
			return refusedDoc(e.DB, e.Doc(), e.Err, "nothing was dropped or written")
		case *run.AlreadyStoredError:
			if e.Manifest != nil {
				return sameRunError(e)
			}
			return fmt.Errorf("%v; re-run with %s to add only what is missing, or %s to write them again", e, arg(flagResume), arg(flagDrop))
		case *run.IndexError:
			if e.Stage == run.IndexUnique {
				return a.uniqueError(e)
			}
			return indexError(e)
		case *mongowrite.CollectionError:
			return collectionError(e, display)
		case *run.InsertError:
			return insertError(e, display, o.resume)
		}
		return failure(err)
	}
}

// collectionError says which operation on which collection of display
// failed.
func collectionError(e *mongowrite.CollectionError, display string) error {
	what := ""
	if e.Op == mongowrite.OpDrop {
		what = "drop "
	}
	return fmt.Errorf("%s%s.%s on %s: %w", what, e.DB, e.Collection, display, e.Err)
}

// uniqueError lists the documents that repeat or clash in a unique index
// on stderr: a key twice among the plan's documents is bad input (exit 2),
// one held by a stored document with another _id a failure (exit 1).
func (a *App) uniqueError(e *run.IndexError) error {
	where := e.DB + "." + e.Collection
	if ue, ok := libError(e.Err).(*mongowrite.UniqueInputError); ok {
		sayListed(a.stderr, where, ue.Listed, ue.Count)
		return usageErrorf("%s: %d documents of the plan repeat the key of a unique index (listed above); nothing was written", where, ue.Count)
	}
	uc, _ := libError(e.Err).(*mongowrite.UniqueClashError)
	sayListed(a.stderr, where, uc.Listed, uc.Count)
	if uc.Listed[0].Index == indexes.IDIndexName {
		return failuref("%s: %d documents of the plan have the _id of another document already stored (listed above); nothing was written; %s cannot help: %s replaces the collection, or seed another one", where, uc.Count, arg(flagResume), arg(flagDrop))
	}
	return failuref("%s: %d documents clash in a unique index with documents already stored (listed above); nothing was written: %s replaces the collection, or seed another one", where, uc.Count, arg(flagDrop))
}

// sayListed writes each listed problem of coll on w, and how many of count
// were not listed.
func sayListed[T fmt.Stringer](w io.Writer, coll string, listed []T, count int) {
	for _, p := range listed {
		fmt.Fprintf(w, "%s%s %v\n", message.Prefix, coll, p)
	}
	if count > len(listed) {
		fmt.Fprintf(w, "%s... and %d more\n", message.Prefix, count-len(listed))
	}
}

// sameRunError says that the plan was written already, or started, and
// how to go on.
func sameRunError(e *run.AlreadyStoredError) error {
	m, where := e.Manifest, e.Where()
	if m.State == mongowrite.StateDone {
		return failuref("%s: the %d documents of this run are already there (written %s); re-run with %s to add any that are missing, or %s to write them again", where, m.Scope().Len(), m.Updated.Format(time.RFC3339), arg(flagResume), arg(flagDrop))
	}
	return failuref("%s: a run of this plan stopped (%s) after %d of %d documents; re-run with %s to finish it, or %s to start over", where, m.State, m.AckedCount, m.Scope().Len(), arg(flagResume), arg(flagDrop))
}

// refusedDoc is de, a document the target's rules refuse: bad input (exit
// 2) naming the collection, document number, field path and reason. Any
// other error of a document, err, is a failure.
func refusedDoc(db string, de *parts.DocError, err error, nothing string) error {
	if de != nil && de.Violation() != nil {
		return usageErrorf("%s.%s document %d: %v; %s", db, de.Collection, de.Index, de.Violation(), nothing)
	}
	return failure(err)
}

// insertError turns a failed write into the CLI's error: a refused
// document is bad input; otherwise how many documents of the run the
// server holds and how to go on.
func insertError(e *run.InsertError, display string, resume bool) error {
	name := e.Where()
	if de := e.Doc(); de != nil && !errors.Is(e.Err, context.Canceled) {
		return refusedDoc(e.DB, de, e.Err, "refused before its batch was sent")
	}
	we, ok := libError(e.Err).(*mongowrite.WriteError)
	if !ok {
		return failure(fmt.Errorf("%s on %s: %w", name, display, e.Err))
	}
	if !resume && we.Doc != nil && mongo.IsDuplicateKeyError(we.Err) {
		return failuref("%s on %s: %s is already there, and so probably are the other documents of this run; re-run with %s to add only what is missing, or %s to write them again", name, display, we.Doc, arg(flagResume), arg(flagDrop))
	}
	note := ""
	if e.AtLeast {
		note = " (at least: the server did not answer a count)"
	}
	hint := "re-run with " + arg(flagResume)
	switch {
	case errors.Is(we.Err, mongowrite.ErrNotStored):
		// Another document holds its _id or one of its keys: a resumed
		// run would be refused the same.
		hint = fmt.Sprintf("%s cannot help while the other document is there", arg(flagResume))
	case !e.Seeded:
		hint = "this run cannot be resumed (a template reads the clock)"
	}
	return failure(fmt.Errorf("%s on %s: inserted %d of %d%s; %s: %s", name, display, e.Held, e.Total, note, hint, we.Cause()))
}
