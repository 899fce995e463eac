package mongowrite

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// scanBatch is the documents per batch of the reads of whole collections
// here.
const scanBatch = 1000

// Scan opens a cursor over every document of coll, in the server's natural
// order, batch documents per batch (0: the server's default). It is an
// aggregate with an empty pipeline rather than a find: the same documents
// in the same order, and less work on a server whose find passes every
// document through its filter and projection code even when there is
// neither (docs/benchmarks.md, Reading a whole collection).
func Scan(ctx context.Context, coll *mongo.Collection, batch int32) (*mongo.Cursor, error) {
	opts := options.Aggregate()
	if batch > 0 {
		opts.SetBatchSize(batch)
	}
	return coll.Aggregate(ctx, bson.A{}, opts)
}
