package mongowrite

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

func docWithID(t *testing.T, id int, pad int) bson.Raw {
	t.Helper()
	raw, err := bson.Marshal(bson.D{{Key: "_id", Value: int32(id)}, {Key: "pad", Value: strings.Repeat("x", pad)}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// The insert command of the embedded server stores and refuses what
// InsertMany does, and reports the refusals the same way.
func TestInsertCommandIsInsertMany(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	if !isEmbedded(ctx, client) {
		t.Fatal("the test server is not recognized as oidkit's own")
	}
	db := client.Database("raw")
	var pre, docs []bson.Raw
	stored := []int{2, 5, 200, 299}
	for _, i := range stored {
		pre = append(pre, docWithID(t, i, 10))
	}
	for i := range 300 {
		docs = append(docs, docWithID(t, i, 10))
	}
	type outcome struct {
		indexes, codes []int
		count          int64
	}
	run := func(name string, insert func(*mongo.Collection, []bson.Raw) error) outcome {
		coll := db.Collection(name)
		if err := insert(coll, pre); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err := insert(coll, docs)
		var bwe mongo.BulkWriteException
		if !errors.As(err, &bwe) {
			t.Fatalf("%s: %v (%T), want a mongo.BulkWriteException", name, err, err)
		}
		var o outcome
		for _, we := range bwe.WriteErrors {
			o.indexes = append(o.indexes, we.Index)
			o.codes = append(o.codes, we.Code)
			if !mongo.IsDuplicateKeyError(err) || we.Message == "" {
				t.Errorf("%s: %+v is not read as a duplicate key", name, we)
			}
		}
		o.count, _ = coll.CountDocuments(ctx, bson.D{})
		return o
	}
	many := run("many", func(c *mongo.Collection, d []bson.Raw) error {
		batch := make([]any, len(d))
		for i := range d {
			batch[i] = d[i]
		}
		_, err := c.InsertMany(ctx, batch, options.InsertMany().SetOrdered(false))
		return err
	})
	command := run("command", func(c *mongo.Collection, d []bson.Raw) error { return insertCommand(ctx, c, d) })
	if !slices.Equal(many.indexes, stored) {
		t.Fatalf("InsertMany refused %v, want %v", many.indexes, stored)
	}
	if !slices.Equal(command.indexes, many.indexes) || !slices.Equal(command.codes, many.codes) || command.count != many.count {
		t.Errorf("insert command: %+v; InsertMany: %+v", command, many)
	}
}

// Documents beyond one command's size go in several commands, and a
// refusal in a later one is reported by its position in the batch.
func TestInsertCommandSplits(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	coll := client.Database("raw").Collection("big")
	const pad = 6 << 20
	if _, _, err := InsertBatch(ctx, coll, []bson.Raw{docWithID(t, 3, 1)}, true); err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	for i := range 4 {
		docs = append(docs, docWithID(t, i, pad))
	}
	n, dups, err := InsertBatch(ctx, coll, docs, true)
	if err != nil || n != 3 || !slices.Equal(dups, []int{3}) {
		t.Fatalf("inserted %d, duplicates %v, err %v; want 3, [3], nil", n, dups, err)
	}
	if count, err := coll.CountDocuments(ctx, bson.D{}); err != nil || count != 4 {
		t.Fatalf("the collection holds %d documents (%v), want 4", count, err)
	}
}
