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
	// (an array element equal to [4]); b's null finds d and e (missing and
	// null keys); d's 9 finds f; e's empty array goes nowhere
	want := []string{"[a@0 b@1 c@1 d@2 e@2 f@3]", "[c@0]", "[]"}
	for i, r := range rows {
		if got := found(r, "out", "_id"); got != want[i] {
			t.Errorf("start %v: %s; want %s", r["s"], got, want[i])
		}
	}
}
