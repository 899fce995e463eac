package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A find of a whole collection, read batch by batch as getMores come,
// gives every document once, in natural or _id order (either way), in
// batches of the size asked for, and gives the documents the collection
// held at the find: writes after it, inserts and deletes alike, are not
// seen by its cursor.
func TestWholeCollectionCursorIsTheSnapshotOfTheFind(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	var docs []any
	var natural []int
	for i := range 300 {
		id := (i * 7919) % 1000 // inserted out of _id order
		docs = append(docs, bson.D{{Key: "_id", Value: id}, {Key: "pad", Value: strings.Repeat("x", i)}})
		natural = append(natural, id)
	}
	byID := slices.Sorted(slices.Values(natural))
	desc := slices.Clone(byID)
	slices.Reverse(desc)
	n := 0
	for _, tc := range []struct {
		name string
		sort any
		want []int
	}{
		{"natural", nil, natural},
		{"_id ascending", bson.D{{Key: "_id", Value: 1}}, byID},
		{"_id descending", bson.D{{Key: "_id", Value: -1}}, desc},
	} {
		for _, bs := range []int32{-1, 0, 1, 7, 299, 300, 1000} {
			n++
			coll := c.Database("app").Collection(fmt.Sprint("scan", n))
			if _, err := coll.InsertMany(ctx, docs); err != nil {
				t.Fatal(err)
			}
			opts := options.Find()
			if tc.sort != nil {
				opts.SetSort(tc.sort)
			}
			wantFirst := 101
			if bs >= 0 {
				opts.SetBatchSize(bs)
				wantFirst = min(300, int(bs))
			}
			cur, err := coll.Find(ctx, bson.D{}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if first := cur.RemainingBatchLength(); first != wantFirst {
				t.Errorf("%s, batchSize %d: first batch of %d, want %d", tc.name, bs, first, wantFirst)
			}
			// changes after the find: the cursor does not see them
			if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 5000}}); err != nil {
				t.Fatal(err)
			}
			if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: tc.want[len(tc.want)-1]}}); err != nil {
				t.Fatal(err)
			}
			var got []int
			for cur.Next(ctx) {
				got = append(got, int(cur.Current.Lookup("_id").Int32()))
			}
			if err := cur.Err(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s, batchSize %d: read %d documents %v..., want %d %v...", tc.name, bs, len(got), got[:min(5, len(got))], len(tc.want), tc.want[:5])
			}
		}
	}
}

// A whole-collection cursor that is killed, or read past its end, is
// gone: getMore answers CursorNotFound.
func TestWholeCollectionCursorKilled(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	coll := db.Collection("kill")
	var docs []any
	for i := range 50 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Cursor struct {
			ID         int64    `bson:"id"`
			FirstBatch []bson.M `bson:"firstBatch"`
		} `bson:"cursor"`
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "find", Value: "kill"}, {Key: "batchSize", Value: 10}}).Decode(&res); err != nil {
		t.Fatal(err)
	}
	if res.Cursor.ID == 0 || len(res.Cursor.FirstBatch) != 10 {
		t.Fatalf("cursor %d with %d documents, want an open cursor after 10", res.Cursor.ID, len(res.Cursor.FirstBatch))
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "killCursors", Value: "kill"}, {Key: "cursors", Value: bson.A{res.Cursor.ID}}}).Err(); err != nil {
		t.Fatal(err)
	}
	err := db.RunCommand(ctx, bson.D{{Key: "getMore", Value: res.Cursor.ID}, {Key: "collection", Value: "kill"}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 43 {
		t.Fatalf("getMore after killCursors: %v, want CursorNotFound (43)", err)
	}
}
