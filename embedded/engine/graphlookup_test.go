package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// $graphLookup on the manual's employees: each one's chain of managers,
// with maxDepth, depthField and restrictSearchWithMatch.
func TestGraphLookup(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("employees")
	docs := []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "Dev"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "name", Value: "Eliot"}, {Key: "reportsTo", Value: "Dev"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "name", Value: "Ron"}, {Key: "reportsTo", Value: "Eliot"}},
		bson.D{{Key: "_id", Value: 4}, {Key: "name", Value: "Andrew"}, {Key: "reportsTo", Value: "Eliot"}},
		bson.D{{Key: "_id", Value: 5}, {Key: "name", Value: "Asya"}, {Key: "reportsTo", Value: "Ron"}},
		bson.D{{Key: "_id", Value: 6}, {Key: "name", Value: "Dan"}, {Key: "reportsTo", Value: "Andrew"}},
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	run := func(extra bson.D) map[string]string {
		t.Helper()
		spec := append(bson.D{{Key: "from", Value: "employees"}, {Key: "startWith", Value: "$reportsTo"},
			{Key: "connectFromField", Value: "reportsTo"}, {Key: "connectToField", Value: "name"}, {Key: "as", Value: "chain"}}, extra...)
		cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$graphLookup", Value: spec}}})
		if err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			Name  string `bson:"name"`
			Chain []struct {
				Name  string `bson:"name"`
				Depth *int64 `bson:"depth"`
			} `bson:"chain"`
		}
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range rows {
			var names []string
			for _, m := range r.Chain {
				n := m.Name
				if m.Depth != nil {
					n = fmt.Sprintf("%s@%d", n, *m.Depth)
				}
				names = append(names, n)
			}
			slices.Sort(names)
			got[r.Name] = fmt.Sprint(names)
		}
		return got
	}
	if got := run(nil); got["Asya"] != "[Dev Eliot Ron]" || got["Dan"] != "[Andrew Dev Eliot]" || got["Dev"] != "[]" {
		t.Errorf("chains: %v", got)
	}
	if got := run(bson.D{{Key: "maxDepth", Value: 0}}); got["Asya"] != "[Ron]" {
		t.Errorf("maxDepth 0: %v", got)
	}
	if got := run(bson.D{{Key: "depthField", Value: "depth"}}); got["Asya"] != "[Dev@2 Eliot@1 Ron@0]" {
		t.Errorf("depthField: %v", got)
	}
	if got := run(bson.D{{Key: "restrictSearchWithMatch", Value: bson.D{{Key: "name", Value: bson.D{{Key: "$ne", Value: "Eliot"}}}}}}); got["Asya"] != "[Ron]" {
		t.Errorf("restrictSearchWithMatch: %v", got)
	}
	_, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$graphLookup", Value: bson.D{{Key: "from", Value: "employees"}}}}})
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(40105) {
		t.Errorf("a $graphLookup without its fields: %v; want a server error", err)
	}
}

// $lookup's equality form, as the manual defines it: a local array
// matches any of its elements, a missing or null local field matches
// foreign documents whose field is missing or null, numbers match by
// value, and the matches come in the foreign collection's order.
func TestLookupEquality(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("d")
	if _, err := db.Collection("items").InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "c"}, {Key: "sku", Value: 3}},
		bson.D{{Key: "_id", Value: "a"}, {Key: "sku", Value: 1}},
		bson.D{{Key: "_id", Value: "b"}, {Key: "sku", Value: int64(2)}},
		bson.D{{Key: "_id", Value: "n"}, {Key: "sku", Value: nil}},
		bson.D{{Key: "_id", Value: "m"}},
		bson.D{{Key: "_id", Value: "t"}, {Key: "sku", Value: bson.A{5, 6}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("orders").InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "sku", Value: 1.0}},
		bson.D{{Key: "_id", Value: 2}, {Key: "sku", Value: bson.A{3, 2, 1}}},
		bson.D{{Key: "_id", Value: 3}},
		bson.D{{Key: "_id", Value: 4}, {Key: "sku", Value: 6}},
		bson.D{{Key: "_id", Value: 5}, {Key: "sku", Value: 9}},
	}); err != nil {
		t.Fatal(err)
	}
	cur, err := db.Collection("orders").Aggregate(ctx, mongo.Pipeline{{{Key: "$lookup", Value: bson.D{
		{Key: "from", Value: "items"}, {Key: "localField", Value: "sku"}, {Key: "foreignField", Value: "sku"}, {Key: "as", Value: "items"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		ID    int32 `bson:"_id"`
		Items []struct {
			ID string `bson:"_id"`
		} `bson:"items"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	got := map[int32]string{}
	for _, r := range rows {
		var ids []string
		for _, it := range r.Items {
			ids = append(ids, it.ID)
		}
		got[r.ID] = fmt.Sprint(ids)
	}
	want := map[int32]string{1: "[a]", 2: "[c a b]", 3: "[n m]", 4: "[t]", 5: "[]"}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("order %d: items %s; want %s", id, got[id], w)
		}
	}
	// as naming a field the order has: replaced where it stands
	if _, err := db.Collection("orders").InsertOne(ctx, bson.D{{Key: "_id", Value: 6}, {Key: "sku", Value: 1}, {Key: "z", Value: true}}); err != nil {
		t.Fatal(err)
	}
	raw, err := db.Collection("orders").Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "_id", Value: 6}}}},
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "items"}, {Key: "localField", Value: "sku"}, {Key: "foreignField", Value: "sku"}, {Key: "as", Value: "sku"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !raw.Next(ctx) {
		t.Fatal(raw.Err())
	}
	els, _ := raw.Current.Elements()
	var keys []string
	for _, e := range els {
		keys = append(keys, e.Key())
	}
	if fmt.Sprint(keys) != "[_id sku z]" || raw.Current.Lookup("sku", "0", "_id").StringValue() != "a" {
		t.Errorf("as over an existing field: %v", raw.Current)
	}
}

// $indexStats lists every index with its name, key and spec.
func TestIndexStats(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("c")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: -1}}}); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$indexStats", Value: bson.D{}}}, {{Key: "$sort", Value: bson.D{{Key: "name", Value: 1}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Name     string `bson:"name"`
		Key      bson.D `bson:"key"`
		Accesses struct {
			Ops int64 `bson:"ops"`
		} `bson:"accesses"`
	}
	if err := cur.All(ctx, &rows); err != nil || len(rows) != 2 || rows[0].Name != "_id_" || rows[1].Name != "a_-1" || rows[1].Key[0].Key != "a" {
		t.Fatalf("$indexStats: %+v, %v", rows, err)
	}
}
