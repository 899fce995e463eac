package engine

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A view answers find, count, distinct, estimatedDocumentCount and
// aggregate with its pipeline's documents, follows the collection it
// stands on, stands on other views, is listed as a view, and refuses
// writes (166) and $out in its definition (167); the same reads of the
// same pipeline over the collection give the same answers.
func TestViews(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	orders := db.Collection("orders")
	var docs []any
	for i := 0; i < 50; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "user", Value: i % 7}, {Key: "total", Value: i * 3}, {Key: "status", Value: []string{"paid", "open"}[i%2]}})
	}
	if _, err := orders.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	paid := bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "status", Value: "paid"}}}}, bson.D{{Key: "$project", Value: bson.D{{Key: "user", Value: 1}, {Key: "total", Value: 1}}}}}
	if err := db.CreateView(ctx, "paid", "orders", paid); err != nil {
		t.Fatal(err)
	}
	big := bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "total", Value: bson.D{{Key: "$gte", Value: 60}}}}}}}
	if err := db.CreateView(ctx, "bigPaid", "paid", big); err != nil {
		t.Fatal(err)
	}
	view := db.Collection("bigPaid")
	ids := func(cur *mongo.Cursor, err error) []int32 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			ID int32 `bson:"_id"`
		}
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		var out []int32
		for _, r := range rows {
			out = append(out, r.ID)
		}
		return out
	}
	filter := bson.D{{Key: "user", Value: bson.D{{Key: "$in", Value: bson.A{1, 3, 5}}}}}
	got := ids(view.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "total", Value: -1}}).SetSkip(1).SetLimit(3).SetBatchSize(2)))
	want := ids(orders.Aggregate(ctx, mongo.Pipeline{paid[0].(bson.D), paid[1].(bson.D), big[0].(bson.D), {{Key: "$match", Value: filter}}, {{Key: "$sort", Value: bson.D{{Key: "total", Value: -1}}}}, {{Key: "$skip", Value: 1}}, {{Key: "$limit", Value: 3}}}))
	if len(got) != 3 || len(want) != 3 || got[0] != want[0] || got[2] != want[2] {
		t.Errorf("find on a view of a view: %v; the pipeline over the collection gives %v", got, want)
	}
	if n, err := view.CountDocuments(ctx, bson.D{}); err != nil || n != 15 {
		t.Errorf("countDocuments on the view: %d, %v; want 15 paid orders of 60 or more", n, err)
	}
	if n, err := view.EstimatedDocumentCount(ctx); err != nil || n != 15 {
		t.Errorf("estimatedDocumentCount on the view: %d, %v; want 15", n, err)
	}
	var users []int32
	if err := view.Distinct(ctx, "user", bson.D{}).Decode(&users); err != nil || len(users) != 7 {
		t.Errorf("distinct user on the view: %v, %v; want 7 users", users, err)
	}
	var one bson.M
	if err := view.FindOne(ctx, bson.D{{Key: "_id", Value: 40}}).Decode(&one); err != nil || one["status"] != nil || one["total"] != int32(120) {
		t.Errorf("findOne by _id on the view: %v, %v; want order 40 projected without status", one, err)
	}
	// the view follows its collection
	if _, err := orders.InsertOne(ctx, bson.D{{Key: "_id", Value: 100}, {Key: "user", Value: 1}, {Key: "total", Value: 500}, {Key: "status", Value: "paid"}}); err != nil {
		t.Fatal(err)
	}
	if n, _ := view.CountDocuments(ctx, bson.D{}); n != 16 {
		t.Errorf("after an insert into orders the view counts %d; want 16", n)
	}
	// listed as a view
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "bigPaid"}})
	if err != nil || len(specs) != 1 || specs[0].Type != "view" || !specs[0].ReadOnly {
		t.Errorf("listCollections of the view: %+v, %v; want type view, read-only", specs, err)
	}
	// writes refused, nothing written
	var se mongo.ServerError
	writes := map[string]error{}
	_, writes["insert"] = view.InsertOne(ctx, bson.D{{Key: "_id", Value: 999}})
	_, writes["update"] = view.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}})
	_, writes["delete"] = view.DeleteMany(ctx, bson.D{})
	_, writes["createIndex"] = view.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "user", Value: 1}}})
	for what, err := range writes {
		if !errors.As(err, &se) || !se.HasErrorCode(166) {
			t.Errorf("%s on a view: %v; want CommandNotSupportedOnView (166)", what, err)
		}
	}
	if n, _ := orders.CountDocuments(ctx, bson.D{}); n != 51 {
		t.Errorf("orders holds %d documents after writes to its view; want 51", n)
	}
	err = db.CreateView(ctx, "bad", "orders", bson.A{bson.D{{Key: "$out", Value: "x"}}})
	if !errors.As(err, &se) || !se.HasErrorCode(167) {
		t.Errorf("a view with $out: %v; want 167", err)
	}
	// a dropped view is gone; its collection stays
	if err := view.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if names, _ := db.ListCollectionNames(ctx, bson.D{}); len(names) != 2 {
		t.Errorf("after dropping the view: %v; want orders and paid", names)
	}
}

// A view kept in the data directory is a view after a restart.
func TestViewSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	func() {
		c, srv, st := serveUnmanaged(t, dir)
		defer func() { _ = c.Disconnect(ctx); srv.Shutdown(0); _ = st.Close() }()
		if _, err := c.Database("app").Collection("src").InsertMany(ctx, []any{bson.D{{Key: "k", Value: 1}}, bson.D{{Key: "k", Value: 2}}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Database("app").CreateView(ctx, "v", "src", bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "k", Value: 2}}}}}); err != nil {
			t.Fatal(err)
		}
	}()
	c, _ := serve(t, dir)
	if n, err := c.Database("app").Collection("v").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Errorf("the view after a restart counts %d, %v; want 1", n, err)
	}
}
