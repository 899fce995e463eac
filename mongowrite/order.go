package mongowrite

// The order of a write into collections, one rule for every writer (a seed
// run's WriteDataset, fixtures.LoadAll): the checks of the indexes, the
// writer's own checks, then the drop, or the indexes of the collections
// that hold documents; per collection its documents, then the indexes that
// waited for them. What a writer does to a collection before its first
// document (CheckIndexes, Drop) is here too.

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
)

// Target is a collection a writer fills, and the indexes it has once
// written.
type Target struct {
	Coll    *mongo.Collection
	Indexes []indexes.Index
}

// Prepared is a write that passed Prepare: its targets are checked and
// dropped, or indexed where they hold documents; each one's documents go
// in next, then its indexes (After).
type Prepared struct {
	targets []Target
}

// Prepare does what comes before the first document of a write into
// targets, in this order, and stops at the first failure:
//
//  1. CheckIndexes of every target (an *IndexError of IndexCheck);
//  2. check, the writer's own checks that write nothing (a seed run's
//     _ids, unique keys and shapes, a load's unique keys), its error
//     returned as it is; nil checks nothing;
//  3. with drop, Drop of every target (a *CollectionError): each is then
//     empty, and indexed after its documents; without drop, the indexes
//     of each target that already holds documents are created now
//     (createFirst: an *IndexError of IndexBefore, or a *CollectionError
//     of OpCount), and those of an empty one wait for its documents.
//
// So nothing is dropped or written when a check fails, and a refused
// index of a collection that holds documents leaves every target's
// indexes as they were. An empty collection is indexed after its
// documents because that is faster (docs/benchmarks.md, Index order);
// one that holds documents before them, so that the server judges the
// stored documents before anything is added. The errors name the
// database of each collection.
func Prepare(ctx context.Context, targets []Target, drop bool, check func(context.Context) error) (*Prepared, error) {
	for _, t := range targets {
		if err := CheckIndexes(ctx, t.Coll, t.Indexes, drop); err != nil {
			return nil, &IndexError{DB: t.Coll.Database().Name(), Collection: t.Coll.Name(), Stage: IndexCheck, Err: err}
		}
	}
	if check != nil {
		if err := check(ctx); err != nil {
			return nil, err
		}
	}
	if drop {
		for _, t := range targets {
			if err := Drop(ctx, t.Coll); err != nil {
				return nil, err
			}
		}
	} else if err := indexesBeforeWriting(ctx, targets); err != nil {
		return nil, err
	}
	return &Prepared{targets: targets}, nil
}

// After creates the indexes of target i (as given to Prepare) that its
// collection lacks, once its documents are written: those of a collection
// that was empty, and also, after a write run again, those an earlier one
// stopped before (the ones created by Prepare are there already). A
// failure is an *IndexError of IndexAfter, with written, the documents of
// the write the collection holds.
func (p *Prepared) After(ctx context.Context, i int, written int64) error {
	t := p.targets[i]
	if err := indexes.Create(ctx, t.Coll, t.Indexes); err != nil {
		return &IndexError{DB: t.Coll.Database().Name(), Collection: t.Coll.Name(), Stage: IndexAfter, Written: written, Err: err}
	}
	return nil
}

// indexesBeforeWriting creates, before any document of the write, the
// indexes of each target that already holds documents (createFirst): the
// server judges the stored documents first, and a unique index their keys
// repeat is refused before anything is added. On a failure every index
// created here is dropped again: a refused write leaves the targets as
// they were.
func indexesBeforeWriting(ctx context.Context, targets []Target) error {
	var done []Target
	for _, t := range targets {
		list, err := createFirst(ctx, t)
		if err != nil {
			for _, d := range done {
				indexes.DropCreated(ctx, d.Coll, d.Indexes)
			}
			return err
		}
		done = append(done, Target{Coll: t.Coll, Indexes: list})
	}
	return nil
}

// createFirst creates the indexes of t that its collection lacks when it
// holds documents (indexesFirst), and returns those it created. A failed
// count is a *CollectionError of OpCount, a failed index an *IndexError of
// IndexBefore (indexes.Create has dropped again what it created).
func createFirst(ctx context.Context, t Target) ([]indexes.Index, error) {
	db, name := t.Coll.Database().Name(), t.Coll.Name()
	first, err := indexesFirst(ctx, t.Coll, t.Indexes)
	if err != nil {
		return nil, &CollectionError{DB: db, Collection: name, Op: OpCount, Err: err}
	}
	if !first {
		return nil, nil
	}
	list, err := indexes.CreateMissing(ctx, t.Coll, t.Indexes)
	if err != nil {
		return nil, &IndexError{DB: db, Collection: name, Stage: IndexBefore, Err: err}
	}
	return list, nil
}

// indexesFirst says whether the indexes want of coll are created before
// its documents are written: when it already holds documents (a resumed
// or repeated write, or other data), so that the server judges those first
// and refuses before anything is added; an empty collection is indexed
// after its documents, which is faster (docs/benchmarks.md, Index order).
func indexesFirst(ctx context.Context, coll *mongo.Collection, want []indexes.Index) (bool, error) {
	if len(want) == 0 {
		return false, nil
	}
	n, err := coll.EstimatedDocumentCount(ctx)
	if err != nil {
		return false, err
	}
	return n > 0, nil
}

// PendingSuffix ends the name of the collection that holds the new versions
// of documents being replaced on a server whose queries read the whole
// collection (rules.Profile.QueriesUseIndexes): for users,
// users.oidkit-pending. It exists only while a replacement runs, or after
// one was killed; the next load into the collection puts them back.
const PendingSuffix = ".oidkit-pending"

// Pending is the collection of coll's pending replacements (PendingSuffix).
func Pending(coll *mongo.Collection) *mongo.Collection {
	return coll.Database().Collection(coll.Name() + PendingSuffix)
}

// CheckIndexes is a writer's check of the indexes want of coll before
// anything is written or dropped: unless drop (which drops the collection
// and its indexes), an index whose name or key coll already uses for
// another definition (*indexes.RefusedError with Have, from indexes.Conflicts:
// nothing but a drop removes an index); then whether the server would
// create them at all (indexes.Probe), since some servers refuse TTL or
// partial indexes, and a writer that creates them after its documents must
// know before.
func CheckIndexes(ctx context.Context, coll *mongo.Collection, want []indexes.Index, drop bool) error {
	if len(want) == 0 {
		return nil
	}
	if !drop {
		if err := indexes.Conflicts(ctx, coll, want); err != nil {
			return err
		}
	}
	return indexes.Probe(ctx, coll.Database(), coll.Name(), want)
}

// Drop drops coll and its pending replacements (Pending): restored into
// the emptied collection, those would be documents no run wrote. A writer
// drops only once every check before writing passed. A failure is a
// *CollectionError of OpDrop naming the collection whose drop failed (DB
// "").
func Drop(ctx context.Context, coll *mongo.Collection) error {
	for _, c := range []*mongo.Collection{coll, Pending(coll)} {
		if err := c.Drop(ctx); err != nil {
			return &CollectionError{Collection: c.Name(), Op: OpDrop, Err: err}
		}
	}
	return nil
}
