package mongowrite_test

import (
	"context"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
)

// An unordered batch whose stored _ids are scattered through it inserts
// every other document, and InsertBatch reports exactly those: the count
// and the duplicates' positions agree with what the collection holds.
func TestInsertBatchDuplicatesInTheMiddle(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	coll := client.Database("oidkit").Collection("dups")
	stored := []int{3, 4, 10, 17, 18, 19}
	var pre []bson.Raw
	for _, i := range stored {
		pre = append(pre, rawDoc(t, i, "old"))
	}
	if n, dups, err := mongowrite.InsertBatch(ctx, coll, pre, true); err != nil || n != int64(len(pre)) || dups != nil {
		t.Fatalf("first batch: inserted %d, dups %v, err %v", n, dups, err)
	}
	var docs []bson.Raw
	for i := range 20 {
		docs = append(docs, rawDoc(t, i, "new"))
	}
	n, dups, err := mongowrite.InsertBatch(ctx, coll, docs, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len(docs) - len(stored)); n != want {
		t.Errorf("inserted %d, want %d", n, want)
	}
	if !slices.Equal(dups, stored) {
		t.Errorf("duplicates at %v, want %v", dups, stored)
	}
	if count, err := coll.CountDocuments(ctx, bson.D{}); err != nil || count != int64(len(docs)) {
		t.Errorf("collection holds %d documents (%v), want %d", count, err, len(docs))
	}
}

func rawDoc(t *testing.T, id int, v string) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(bson.D{{Key: "_id", Value: id}, {Key: "v", Value: v}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
