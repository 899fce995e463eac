package mongowrite

// What a writer does to a collection before its first document: the checks
// of its indexes, and the drop.

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
)

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
