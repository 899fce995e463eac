package engine

import (
	"fmt"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// found prints the documents of a $graphLookup's as field by key, with
// their depth when depthField is "d", sorted.
func found(r bson.M, as, key string) string {
	var out []string
	arr, _ := r[as].(bson.A)
	for _, x := range arr {
		d, _ := x.(bson.D)
		var k, depth any
		for _, e := range d {
			switch e.Key {
			case key:
				k = e.Value
			case "d":
				depth = e.Value
			}
		}
		if depth != nil {
			out = append(out, fmt.Sprintf("%v@%v", k, depth))
		} else {
			out = append(out, fmt.Sprint(k))
		}
	}
	sort.Strings(out)
	return fmt.Sprint(out)
}

// $graphLookup on the manual's airports: connectFromField an array, each
// element followed, up to maxDepth.
func TestGraphLookupArrayConnectFrom(t *testing.T) {
	c, _ := serve(t, "")
	db := c.Database("d")
	agInsert(t, db.Collection("airports"),
		bson.D{{Key: "_id", Value: 0}, {Key: "airport", Value: "JFK"}, {Key: "connects", Value: bson.A{"BOS", "ORD"}}},
		bson.D{{Key: "_id", Value: 1}, {Key: "airport", Value: "BOS"}, {Key: "connects", Value: bson.A{"JFK", "PWM"}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "airport", Value: "ORD"}, {Key: "connects", Value: bson.A{"JFK"}}},
		bson.D{{Key: "_id", Value: 3}, {Key: "airport", Value: "PWM"}, {Key: "connects", Value: bson.A{"BOS", "LHR"}}},
		bson.D{{Key: "_id", Value: 4}, {Key: "airport", Value: "LHR"}, {Key: "connects", Value: bson.A{"PWM"}}},
	)
	travelers := db.Collection("travelers")
	agInsert(t, travelers,
		bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "Dev"}, {Key: "nearestAirport", Value: "JFK"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "name", Value: "Eliot"}, {Key: "nearestAirport", Value: "JFK"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "name", Value: "Jeff"}, {Key: "nearestAirport", Value: "BOS"}},
	)
	rows := aggregateM(t, travelers, mongo.Pipeline{
		{{Key: "$graphLookup", Value: bson.D{{Key: "from", Value: "airports"}, {Key: "startWith", Value: "$nearestAirport"},
			{Key: "connectFromField", Value: "connects"}, {Key: "connectToField", Value: "airport"},
			{Key: "maxDepth", Value: 2}, {Key: "depthField", Value: "d"}, {Key: "as", Value: "destinations"}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	})
	want := []string{"[BOS@1 JFK@0 ORD@1 PWM@2]", "[BOS@1 JFK@0 ORD@1 PWM@2]", "[BOS@0 JFK@1 LHR@2 ORD@2 PWM@1]"}
	for i, r := range rows {
		if got := found(r, "destinations", "airport"); got != want[i] {
			t.Errorf("%v: %s; want %s", r["name"], got, want[i])
		}
	}
}

// connectFromField and connectToField holding arrays, nulls, missing
// values and numbers of other types.
func TestGraphLookupEdgeValues(t *testing.T) {
	c, _ := serve(t, "")
	db := c.Database("d")
	agInsert(t, db.Collection("nodes"),
		bson.D{{Key: "_id", Value: "a"}, {Key: "keys", Value: bson.A{1, 2}}, {Key: "next", Value: bson.A{int64(3), bson.A{4}}}},
		bson.D{{Key: "_id", Value: "b"}, {Key: "keys", Value: 3.0}, {Key: "next", Value: nil}},
		bson.D{{Key: "_id", Value: "c"}, {Key: "keys", Value: bson.A{bson.A{4}, 5}}},
		bson.D{{Key: "_id", Value: "d"}, {Key: "next", Value: 9}},
		bson.D{{Key: "_id", Value: "e"}, {Key: "keys", Value: nil}, {Key: "next", Value: bson.A{}}},
		bson.D{{Key: "_id", Value: "f"}, {Key: "keys", Value: 9}},
	)
	starts := db.Collection("starts")
	agInsert(t, starts,
		bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: 2}},
		bson.D{{Key: "_id", Value: 2}, {Key: "s", Value: bson.A{5}}},
		bson.D{{Key: "_id", Value: 3}, {Key: "s", Value: 7}},
	)
	rows := aggregateM(t, starts, mongo.Pipeline{
		{{Key: "$graphLookup", Value: bson.D{{Key: "from", Value: "nodes"}, {Key: "startWith", Value: "$s"},
			{Key: "connectFromField", Value: "next"}, {Key: "connectToField", Value: "keys"}, {Key: "depthField", Value: "d"}, {Key: "as", Value: "out"}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	})
	// from 2: a (keys [1, 2]); a's next 3 finds b (3.0) and [4] finds c
	// (an array element equal to [4]); b's null finds e (null keys) but
	// not d (no keys); e's empty array goes nowhere
	want := []string{"[a@0 b@1 c@1 e@2]", "[c@0]", "[]"}
	for i, r := range rows {
		if got := found(r, "out", "_id"); got != want[i] {
			t.Errorf("start %v: %s; want %s", r["s"], got, want[i])
		}
	}
}

// Null and missing values, as MongoDB's own tests hold them: null finds
// null only, never a missing field or undefined; missing finds nothing.
func TestGraphLookupNullAndMissing(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("local")
	agInsert(t, coll,
		bson.D{{Key: "_id", Value: 0}, {Key: "x", Value: 1}, {Key: "y", Value: 1}},
		bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 1}, {Key: "y", Value: nil}},
		bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 1}, {Key: "y", Value: 1}},
		bson.D{{Key: "_id", Value: 3}, {Key: "x", Value: 1}},
	)
	run := func(start any) string {
		rows := aggregateM(t, coll, mongo.Pipeline{
			{{Key: "$graphLookup", Value: bson.D{{Key: "from", Value: "local"}, {Key: "startWith", Value: start},
				{Key: "connectFromField", Value: "x"}, {Key: "connectToField", Value: "y"}, {Key: "as", Value: "arr"}, {Key: "maxDepth", Value: 0}}}},
			{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		})
		var out []string
		for _, r := range rows {
			out = append(out, found(r, "arr", "_id"))
		}
		return fmt.Sprint(out)
	}
	if got := run("$y"); got != "[[0 2] [1] [0 2] []]" {
		t.Errorf("startWith $y: %s", got)
	}
	agInsert(t, coll, bson.D{{Key: "_id", Value: 4}, {Key: "x", Value: 1}, {Key: "y", Value: bson.Undefined{}}})
	if got := run(nil); got != "[[1] [1] [1] [1] [1]]" {
		t.Errorf("startWith null: %s", got)
	}
}

// connectFromField and connectToField through arrays of documents, as
// in MongoDB's own tests: each element's value followed and matched.
func TestGraphLookupNestedArrays(t *testing.T) {
	c, _ := serve(t, "")
	db := c.Database("d")
	agInsert(t, db.Collection("local"), bson.D{{Key: "starting", Value: 0}})
	count := func(from, fromField, toField string) int {
		rows := aggregateM(t, db.Collection("local"), mongo.Pipeline{{{Key: "$graphLookup", Value: bson.D{{Key: "from", Value: from},
			{Key: "startWith", Value: "$starting"}, {Key: "connectFromField", Value: fromField}, {Key: "connectToField", Value: toField}, {Key: "as", Value: "n"}}}}})
		arr, _ := rows[0]["n"].(bson.A)
		return len(arr)
	}
	var a, b, both []any
	for i := range 20 {
		a = append(a, bson.D{{Key: "_id", Value: i}, {Key: "neighbors", Value: bson.A{bson.D{{Key: "id", Value: i + 1}}, bson.D{{Key: "id", Value: i + 2}}}}})
		b = append(b, bson.D{{Key: "previous", Value: bson.A{bson.D{{Key: "neighbor", Value: i}}, bson.D{{Key: "neighbor", Value: i - 1}}}}, {Key: "value", Value: i + 1}})
		both = append(both, bson.D{{Key: "previous", Value: bson.A{bson.D{{Key: "neighbor", Value: i}}, bson.D{{Key: "neighbor", Value: i - 1}}}},
			{Key: "values", Value: bson.A{bson.D{{Key: "neighbor", Value: i + 1}}, bson.D{{Key: "neighbor", Value: i + 2}}}}})
	}
	agInsert(t, db.Collection("a"), a...)
	agInsert(t, db.Collection("b"), b...)
	agInsert(t, db.Collection("both"), both...)
	for _, tc := range []struct{ from, fromField, toField string }{
		{"a", "neighbors.id", "_id"}, {"b", "value", "previous.neighbor"}, {"both", "values.neighbor", "previous.neighbor"},
	} {
		if got := count(tc.from, tc.fromField, tc.toField); got != 20 {
			t.Errorf("%s from %s to %s: %d found; want 20", tc.from, tc.fromField, tc.toField, got)
		}
	}
}
