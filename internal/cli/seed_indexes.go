package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/seed"
)

// indexConflicts refuses, before anything is written, a plan index whose
// name or key the collection already uses for another definition: seed
// never drops an index but with --drop, which drops the collection.
func indexConflicts(ctx context.Context, db *mongo.Database, ds *seed.Dataset, written []*seed.Collection) error {
	for _, col := range written {
		want := col.Spec().Indexes
		if len(want) == 0 {
			continue
		}
		if err := indexes.Conflicts(ctx, db.Collection(col.Name()), want); err != nil {
			return indexError(ds.DB, col.Name(), err, "nothing was written")
		}
	}
	return nil
}

// probeIndexes asks the server, before anything is written, whether it
// would create the plan's indexes (indexes.Probe): an empty collection is
// indexed after its documents are in (faster), and a server that refuses an
// index (FerretDB refuses TTL and partial indexes) must say so before, not
// after.
func probeIndexes(ctx context.Context, db *mongo.Database, ds *seed.Dataset, written []*seed.Collection) error {
	for _, col := range written {
		if err := indexes.Probe(ctx, db, col.Name(), col.Spec().Indexes); err != nil {
			return indexError(ds.DB, col.Name(), err, "nothing was written")
		}
	}
	return nil
}

// indexesFirst says whether the plan's indexes of coll are created before
// its documents are inserted: when it already holds documents (a resumed
// run, or other data), so that the server judges those first and refuses
// before anything is added; an empty collection is indexed after the
// insert, which is faster (docs/benchmarks.md, Index order).
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

// indexError is the CLI's error for creating a collection's indexes: a
// conflict or a refusal by the server is a failure (exit 1) that says what
// happened to the documents.
func indexError(db, coll string, err error, written string) error {
	var ce *indexes.ConflictError
	var re *indexes.RefusedError
	switch {
	case errors.As(err, &ce), errors.As(err, &re):
		// The server's message without its source locations.
		return failuref("%s; %s", mongowrite.ServerMessage(err.Error()), written)
	case errors.Is(err, indexes.ErrInvalid):
		return usageErrorf("%s.%s: %v; %s", db, coll, err, written)
	}
	return failure(fmt.Errorf("%s.%s: creating indexes: %w; %s", db, coll, err, written))
}

// indexNote lists the indexes a collection has once written.
func indexNote(list []indexes.Index) string {
	names := make([]string, len(list))
	for k, ix := range list {
		names[k] = ix.NameOrDefault()
	}
	if len(list) == 1 {
		return "index " + names[0]
	}
	return fmt.Sprintf("%d indexes: %s", len(list), strings.Join(names, ", "))
}
