package mongowrite

// The order of a write into collections, one rule for every writer (a seed
// run's WriteDataset, fixtures.LoadAll): the checks of the indexes, the
// writer's own checks, then the drop, or the indexes of the collections
// that hold documents; per collection its documents, then the indexes that
// waited for them. What a writer does to a collection before its first
// document (Drop) is here too.

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
//  1. the checks of each target's indexes (an *IndexError of IndexCheck):
//     unless drop (which drops the collection and its indexes), its
//     indexes are listed, once, and an index whose name or key it
//     already uses for another definition is refused (indexes.Conflict:
//     nothing but a drop removes an index); then whether the server
//     would create them at all (indexes.Probe), since some servers refuse
//     TTL or partial indexes, and an index created after the documents
//     must be known good before;
//  2. check, the writer's own checks that write nothing (a seed run's
//     _ids, unique keys and shapes, a load's unique keys), given what
//     was listed (have[i]: target i's; nil with drop), its error
//     returned as it is; nil checks nothing;
//  3. without drop, the indexes of each target that already holds
//     documents are created now (an *IndexError of IndexBefore, or a
//     *CollectionError of OpCount), and those of an empty one wait for
//     its documents; with drop, Drop of every target (a
//     *CollectionError): each is then empty, and indexed after its
//     documents.
//
// So nothing is dropped or written when a check fails, and a refused
// index of a collection that holds documents leaves every target's
// indexes as they were (those created here are dropped again). An empty
// collection is indexed after its documents because that is faster
// (docs/benchmarks.md, Index order); one that holds documents before
// them, so that the server judges the stored documents before anything is
// added. The errors name the database of each collection.
func Prepare(ctx context.Context, targets []Target, drop bool, check func(ctx context.Context, have [][]indexes.Index) error) (*Prepared, error) {
	have := make([][]indexes.Index, len(targets))
	for i, t := range targets {
		db, name := t.Coll.Database(), t.Coll.Name()
		var err error
		if !drop {
			if have[i], err = indexes.List(ctx, t.Coll); err == nil {
				err = indexes.Conflict(db.Name(), name, have[i], t.Indexes)
			}
		}
		if err == nil {
			err = indexes.Probe(ctx, db, name, t.Indexes)
		}
		if err != nil {
			return nil, &IndexError{DB: db.Name(), Collection: name, Stage: IndexCheck, Err: err}
		}
	}
	if check != nil {
		if err := check(ctx, have); err != nil {
			return nil, err
		}
	}
	if !drop {
		var done []Target // the indexes created here, dropped again on a failure
		for _, t := range targets {
			db, name := t.Coll.Database().Name(), t.Coll.Name()
			n, err := int64(0), error(nil)
			if len(t.Indexes) > 0 {
				n, err = t.Coll.EstimatedDocumentCount(ctx)
			}
			var list []indexes.Index
			if err != nil {
				err = &CollectionError{DB: db, Collection: name, Op: OpCount, Err: err}
			} else if n > 0 {
				if list, err = indexes.CreateMissing(ctx, t.Coll, t.Indexes); err != nil {
					err = &IndexError{DB: db, Collection: name, Stage: IndexBefore, Err: err}
				}
			}
			if err != nil {
				for _, d := range done {
					indexes.DropCreated(ctx, d.Coll, d.Indexes)
				}
				return nil, err
			}
			done = append(done, Target{Coll: t.Coll, Indexes: list})
		}
		return &Prepared{targets: targets}, nil
	}
	for _, t := range targets {
		if err := Drop(ctx, t.Coll); err != nil {
			return nil, err
		}
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
