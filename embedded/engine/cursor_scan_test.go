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

// A whole-collection find in _id order sorts _ids of every type in BSON
// order, as MongoDB documents it (null, numbers by value whatever their
// type, strings, documents, ObjectIDs, booleans, dates, MaxKey), either
// way, across batches.
func TestWholeCollectionCursorMixedIDs(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("mixed")
	oid := bson.ObjectID{1}
	ordered := []any{nil, int32(-3), 1.5, int64(2), int32(7), "a", "b", bson.D{{Key: "x", Value: 1}}, oid, false, true, bson.DateTime(0), bson.MaxKey{}}
	var docs []any
	for _, k := range []int{5, 0, 12, 3, 8, 1, 10, 2, 7, 11, 4, 9, 6} { // stored out of order
		docs = append(docs, bson.D{{Key: "_id", Value: ordered[k]}, {Key: "k", Value: k}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []int{1, -1} {
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: dir}}).SetBatchSize(4))
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for cur.Next(ctx) {
			got = append(got, int(cur.Current.Lookup("k").Int32()))
		}
		if err := cur.Err(); err != nil {
			t.Fatal(err)
		}
		want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
		if dir < 0 {
			slices.Reverse(want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("sort _id %d: documents %v, want %v", dir, got, want)
		}
	}
}

// The cursor of a whole-collection find is closed (id 0) when its first
// batch holds every document, the collection being empty or not; a first
// batch asked to be empty (batchSize 0) leaves it open on a collection
// that holds documents, for getMore to read them all.
func TestWholeCollectionCursorIDs(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	if err := db.CreateCollection(ctx, "empty"); err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i := range 10 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}})
	}
	if _, err := db.Collection("ten").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	type reply struct {
		Cursor struct {
			ID         int64    `bson:"id"`
			FirstBatch []bson.M `bson:"firstBatch"`
			NextBatch  []bson.M `bson:"nextBatch"`
		} `bson:"cursor"`
	}
	find := func(coll string, bs any) reply {
		cmd := bson.D{{Key: "find", Value: coll}}
		if bs != nil {
			cmd = append(cmd, bson.E{Key: "batchSize", Value: bs})
		}
		var r reply
		if err := db.RunCommand(ctx, cmd).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		coll      string
		bs        any
		first     int
		openAfter bool
	}{
		{"empty", nil, 0, false},
		{"empty", 0, 0, false},
		{"empty", 5, 0, false},
		{"ten", 10, 10, false},
		{"ten", 11, 10, false},
		{"ten", nil, 10, false},
		{"ten", 9, 9, true},
		{"ten", 0, 0, true},
	} {
		r := find(tc.coll, tc.bs)
		if len(r.Cursor.FirstBatch) != tc.first || (r.Cursor.ID != 0) != tc.openAfter {
			t.Errorf("%s, batchSize %v: first batch of %d, cursor %d; want %d and open %v", tc.coll, tc.bs, len(r.Cursor.FirstBatch), r.Cursor.ID, tc.first, tc.openAfter)
			continue
		}
		if !tc.openAfter {
			continue
		}
		var more reply
		if err := db.RunCommand(ctx, bson.D{{Key: "getMore", Value: r.Cursor.ID}, {Key: "collection", Value: tc.coll}}).Decode(&more); err != nil {
			t.Fatal(err)
		}
		if n := tc.first + len(more.Cursor.NextBatch); n != 10 || more.Cursor.ID != 0 {
			t.Errorf("%s, batchSize %v: getMore left cursor %d after %d documents in all, want 0 after 10", tc.coll, tc.bs, more.Cursor.ID, n)
		}
	}
}
