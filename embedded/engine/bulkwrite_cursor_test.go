package engine

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// bulkWrite's results are a cursor like any other: when they pass what
// one reply holds (16 MiB), the first batch keeps what fits and the driver
// reads the rest with a getMore, inside a transaction too (two upserts of
// _ids of half the largest document each, as MongoDB's CRUD prose test 7
// and 8 do).
func TestBulkWriteResultsCursorGetMore(t *testing.T) {
	ctx := context.Background()
	uri, _, _ := serveURI(t, "")
	cl, getMores := countingClient(t, uri, "getMore")
	half := 16 * 1024 * 1024 / 2
	models := func(db string) []mongo.ClientBulkWrite {
		var w []mongo.ClientBulkWrite
		for _, c := range "ab" {
			w = append(w, mongo.ClientBulkWrite{Database: db, Collection: "c", Model: mongo.NewClientUpdateOneModel().
				SetFilter(bson.D{{Key: "_id", Value: strings.Repeat(string(c), half)}}).
				SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}).SetUpsert(true)})
		}
		return w
	}
	res, err := cl.BulkWrite(ctx, models("plain"), options.ClientBulkWrite().SetVerboseResults(true))
	if err != nil {
		t.Fatal(err)
	}
	if res.UpsertedCount != 2 || len(res.UpdateResults) != 2 || getMores.Load() != 1 {
		t.Errorf("upserted %d, %d update results, %d getMores; want 2, 2, 1", res.UpsertedCount, len(res.UpdateResults), getMores.Load())
	}
	getMores.Store(0)
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	sc := mongo.NewSessionContext(ctx, sess)
	res, err = cl.BulkWrite(sc, models("txn"), options.ClientBulkWrite().SetVerboseResults(true))
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.CommitTransaction(ctx); err != nil {
		t.Fatal(err)
	}
	if res.UpsertedCount != 2 || len(res.UpdateResults) != 2 || getMores.Load() != 1 {
		t.Errorf("in a transaction: upserted %d, %d update results, %d getMores; want 2, 2, 1", res.UpsertedCount, len(res.UpdateResults), getMores.Load())
	}
}
