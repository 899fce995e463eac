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
