package mongowrite_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/seed"
)

// A document the check refuses stops Insert before its batch is sent, and
// CheckAll finds it without writing.
func TestInsertCheckRefusesBeforeSending(t *testing.T) {
	_, client := mongotest.Start(t)
	ds := build(t, &seed.Plan{Seed: 2, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 3000}}})
	col := ds.Collection("users")
	refuse := func(doc bson.Raw) error {
		if doc.Lookup("_id").ObjectID() == bson.ObjectID(col.ObjectID(1234)) {
			return fmt.Errorf("refused for the test")
		}
		return nil
	}
	var de *parts.DocError
	s := col.Stream(context.Background(), seed.StreamOptions{Check: refuse})
	var err error
	for err == nil {
		_, err = s.Next()
	}
	s.Close()
	if !errors.As(err, &de) || de.Index != 1234 {
		t.Fatalf("the stream: %v", err)
	}
	coll := client.Database("oidkit").Collection("users")
	var acked []parts.Range
	_, err = mongowrite.Insert(context.Background(), coll, col, mongowrite.InsertOptions{Batch: 100, Workers: 1, Check: refuse, Acked: func(r parts.Range) { acked = append(acked, r) }})
	if !errors.As(err, &de) || de.Index != 1234 || de.Collection != "users" {
		t.Fatalf("Insert: %v", err)
	}
	ids := bson.A{}
	for i := int64(1200); i < 1300; i++ {
		ids = append(ids, col.ID(i))
	}
	n, err := coll.CountDocuments(context.Background(), bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
	if err != nil || n != 0 {
		t.Fatalf("%d documents of the refused batch are in (%v)", n, err)
	}
	held, _ := coll.EstimatedDocumentCount(context.Background())
	var total int64
	for _, r := range parts.Merge(acked) {
		total += r.Len()
		if r.To > 1200 {
			t.Errorf("acknowledged %v, past the refused batch", r)
		}
	}
	if total != held {
		t.Errorf("acknowledged %d documents; the server holds %d", total, held)
	}
}
