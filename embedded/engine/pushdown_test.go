package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A pipeline's leading $match, $sort, $skip and $limit, which read
// through an index, give what the same find gives, and the stages after
// them see exactly those documents; a $limit before a $skip is not the
// find's skip-then-limit and is left to the stages.
func TestLeadingStagesAsFind(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("people")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "age", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i := 0; i < 200; i++ {
		var age any = (i * 37) % 90
		switch i % 17 {
		case 3:
			age = nil
		case 5:
			age = bson.A{i % 7, 80 + i%5}
		case 9:
			age = fmt.Sprint(i)
		}
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "age", Value: age}, {Key: "g", Value: i % 3}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	ids := idsOf(t)
	filter := bson.D{{Key: "g", Value: bson.D{{Key: "$ne", Value: 1}}}}
	for _, dir := range []int{1, -1} {
		sort := bson.D{{Key: "age", Value: dir}, {Key: "_id", Value: 1}}
		find := ids(coll.Find(ctx, filter, options.Find().SetSort(sort).SetSkip(5).SetLimit(20)))
		agg := ids(coll.Aggregate(ctx, mongo.Pipeline{
			{{Key: "$match", Value: filter}}, {{Key: "$sort", Value: sort}}, {{Key: "$skip", Value: 5}}, {{Key: "$limit", Value: 20}},
			{{Key: "$project", Value: bson.D{{Key: "_id", Value: 1}}}}}))
		if find != agg {
			t.Errorf("sort %d: find %s, aggregate %s", dir, find, agg)
		}
		// the same stages after one that keeps them from the index: the pipeline's own $sort
		staged := ids(coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$set", Value: bson.D{{Key: "z", Value: 1}}}},
			{{Key: "$match", Value: filter}}, {{Key: "$sort", Value: sort}}, {{Key: "$skip", Value: 5}}, {{Key: "$limit", Value: 20}},
			{{Key: "$project", Value: bson.D{{Key: "_id", Value: 1}}}}}))
		if staged != agg {
			t.Errorf("sort %d: through the index %s, in the pipeline %s", dir, agg, staged)
		}
	}
	// $limit then $skip: 10 documents, of which the last 7
	find := ids(coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetSkip(3).SetLimit(7)))
	agg := ids(coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}, {{Key: "$limit", Value: 10}}, {{Key: "$skip", Value: 3}}}))
	if find != agg {
		t.Errorf("$limit before $skip: find %s, aggregate %s", find, agg)
	}
}

// A compound index serves equalities on its leading fields and a range
// or $in on the next: explain examines only the matching keys, and the
// answers equal those of the same documents without any index.
func TestCompoundIndexBounds(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	indexed, plain := db.Collection("events"), db.Collection("events_plain")
	if _, err := indexed.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "user", Value: 1}, {Key: "at", Value: -1}, {Key: "kind", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i := 0; i < 2000; i++ {
		var at any = i % 100
		if i%13 == 0 {
			at = fmt.Sprint("s", i%100) // another type class: never in a numeric range
		}
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "user", Value: i % 20}, {Key: "at", Value: at}, {Key: "kind", Value: i % 3}})
	}
	for _, coll := range []*mongo.Collection{indexed, plain} {
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	cases := []bson.D{
		{{Key: "user", Value: 7}, {Key: "at", Value: bson.D{{Key: "$gte", Value: 40}, {Key: "$lt", Value: 60}}}},
		{{Key: "user", Value: 7}, {Key: "at", Value: bson.D{{Key: "$gt", Value: 90}}}},
		{{Key: "user", Value: 7}, {Key: "at", Value: bson.D{{Key: "$lte", Value: 5}}}},
		{{Key: "user", Value: 7}, {Key: "at", Value: 47}},
		{{Key: "user", Value: 7}, {Key: "at", Value: 47}, {Key: "kind", Value: bson.D{{Key: "$in", Value: bson.A{0, 2}}}}},
		{{Key: "user", Value: 7}, {Key: "at", Value: bson.D{{Key: "$in", Value: bson.A{7, 27, "s27"}}}}},
		{{Key: "at", Value: 47}, {Key: "user", Value: 7}, {Key: "kind", Value: 2}},
	}
	for _, q := range cases {
		ids := func(coll *mongo.Collection) string {
			return idsOf(t)(coll.Find(ctx, q, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})))
		}
		got, want := ids(indexed), ids(plain)
		if got != want {
			t.Errorf("%v: with the index %v, without %v", q, got, want)
			continue
		}
		var ex struct {
			ExecutionStats struct {
				TotalKeysExamined int `bson:"totalKeysExamined"`
			} `bson:"executionStats"`
		}
		if err := db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "events"}, {Key: "filter", Value: q}}}, {Key: "verbosity", Value: "executionStats"}}).Decode(&ex); err != nil {
			t.Fatal(err)
		}
		if n := ex.ExecutionStats.TotalKeysExamined; n != strings.Count(want, "{") {
			t.Errorf("%v: %d keys examined for the matches %s", q, n, want)
		}
	}
}

// Equalities on a compound index's leading fields and a sort on the next
// read the keys in order and stop at the limit: the answers equal the
// same documents sorted without an index, across types, both directions.
func TestCompoundIndexSortAfterEqualities(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	indexed, plain := db.Collection("orders"), db.Collection("orders_plain")
	if _, err := indexed.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "user", Value: 1}, {Key: "at", Value: -1}}}); err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i := 0; i < 1000; i++ {
		var at any = i
		if i%11 == 4 {
			at = fmt.Sprint("t", i) // after the numbers
		}
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "user", Value: i % 10}, {Key: "at", Value: at}})
	}
	for _, coll := range []*mongo.Collection{indexed, plain} {
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []int{-1, 1} {
		for _, sk := range [][2]int64{{0, 5}, {3, 4}, {0, 0}} {
			opts := options.Find().SetSort(bson.D{{Key: "at", Value: dir}}).SetSkip(sk[0]).SetLimit(sk[1])
			ids := func(coll *mongo.Collection) string {
				return idsOf(t)(coll.Find(ctx, bson.D{{Key: "user", Value: 3}}, opts))
			}
			if got, want := ids(indexed), ids(plain); got != want {
				t.Errorf("sort %d, skip %d, limit %d: with the index %s, without %s", dir, sk[0], sk[1], got, want)
			}
		}
	}
	var ex struct {
		ExecutionStats struct {
			TotalKeysExamined int `bson:"totalKeysExamined"`
		} `bson:"executionStats"`
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "orders"}, {Key: "filter", Value: bson.D{{Key: "user", Value: 3}}},
		{Key: "sort", Value: bson.D{{Key: "at", Value: -1}}}, {Key: "limit", Value: 5}}}, {Key: "verbosity", Value: "executionStats"}}).Decode(&ex); err != nil {
		t.Fatal(err)
	}
	if n := ex.ExecutionStats.TotalKeysExamined; n != 5 {
		t.Errorf("the latest 5 of a user: %d keys examined, want 5", n)
	}
}

// idsOf reads the _ids of a cursor's documents, as "[{1} {2}]".
func idsOf(t *testing.T) func(*mongo.Cursor, error) string {
	return func(cur *mongo.Cursor, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			ID int `bson:"_id"`
		}
		if err := cur.All(context.Background(), &rows); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(rows)
	}
}

// A sort on _id alone walks the documents in _id order and stops at the
// limit: ascending and descending, with a filter, skip and limit, over
// _ids of several types, the answers equal an in-memory sort of a copy of
// the _id, and explain names the _id index and examines no more keys than
// it needs.
func TestSortByIDWalksTheDocuments(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("mixed")
	var docs []any
	for i := 0; i < 300; i++ {
		var id any = int64(i*7919) % 1000
		switch i % 5 {
		case 1:
			id = fmt.Sprintf("s%03d", i)
		case 2:
			id = bson.NewObjectID()
		case 3:
			id = bson.D{{Key: "n", Value: i}}
		case 4:
			id = float64(i) + 0.5
		}
		docs = append(docs, bson.D{{Key: "_id", Value: id}, {Key: "k", Value: id}, {Key: "even", Value: i%2 == 0}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	raw := func(cur *mongo.Cursor, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var rows []bson.Raw
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range rows {
			ids = append(ids, r.Lookup("_id").String())
		}
		return strings.Join(ids, " ")
	}
	for _, dir := range []int{1, -1} {
		for _, q := range []struct {
			filter      bson.D
			skip, limit int64
		}{{bson.D{}, 0, 0}, {bson.D{}, 0, 5}, {bson.D{{Key: "even", Value: true}}, 3, 10}, {bson.D{{Key: "even", Value: false}}, 0, 0}} {
			got := raw(coll.Find(ctx, q.filter, options.Find().SetSort(bson.D{{Key: "_id", Value: dir}}).SetSkip(q.skip).SetLimit(q.limit)))
			want := raw(coll.Find(ctx, q.filter, options.Find().SetSort(bson.D{{Key: "k", Value: dir}}).SetSkip(q.skip).SetLimit(q.limit)))
			if got == "" || got != want {
				t.Errorf("sort _id %d, %v skip %d limit %d:\n got %s\nwant %s", dir, q.filter, q.skip, q.limit, got, want)
			}
		}
		var ex struct {
			QueryPlanner struct {
				WinningPlan bson.Raw `bson:"winningPlan"`
			} `bson:"queryPlanner"`
			ExecutionStats struct {
				TotalKeysExamined int `bson:"totalKeysExamined"`
			} `bson:"executionStats"`
		}
		cmd := bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "mixed"}, {Key: "sort", Value: bson.D{{Key: "_id", Value: dir}}}, {Key: "limit", Value: 5}}}, {Key: "verbosity", Value: "executionStats"}}
		if err := c.Database("app").RunCommand(ctx, cmd).Decode(&ex); err != nil {
			t.Fatal(err)
		}
		if plan := ex.QueryPlanner.WinningPlan.String(); !strings.Contains(plan, `"_id_"`) || ex.ExecutionStats.TotalKeysExamined != 5 {
			t.Errorf("explain of a sort on _id %d limit 5: %s, %d keys examined; want the _id_ index and 5 keys", dir, plan, ex.ExecutionStats.TotalKeysExamined)
		}
	}
}

// explain's IXSCAN direction: "backward" when a sort against an index's
// order reads it from its end (a descending sort on an ascending index,
// or on _id, or after equalities on the fields before), "forward" when
// the sort follows the index.
func TestExplainDirection(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("d")
	coll := db.Collection("dir")
	for i := range 20 {
		agInsert(t, coll, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 7}, {Key: "b", Value: i}, {Key: "u", Value: i % 3}})
	}
	for _, keys := range []bson.D{{{Key: "a", Value: 1}}, {{Key: "b", Value: -1}}, {{Key: "u", Value: 1}, {Key: "a", Value: 1}}} {
		if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: keys}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		filter, sort bson.D
		index, want  string
	}{
		{bson.D{}, bson.D{{Key: "a", Value: 1}}, "a_1", "forward"},
		{bson.D{}, bson.D{{Key: "a", Value: -1}}, "a_1", "backward"},
		{bson.D{}, bson.D{{Key: "b", Value: -1}}, "b_-1", "forward"},
		{bson.D{}, bson.D{{Key: "b", Value: 1}}, "b_-1", "backward"},
		{bson.D{}, bson.D{{Key: "_id", Value: 1}}, "_id_", "forward"},
		{bson.D{}, bson.D{{Key: "_id", Value: -1}}, "_id_", "backward"},
		{bson.D{{Key: "u", Value: 1}}, bson.D{{Key: "a", Value: -1}}, "u_1_a_1", "backward"},
		{bson.D{{Key: "u", Value: 1}}, bson.D{{Key: "a", Value: 1}}, "u_1_a_1", "forward"},
	} {
		var ex struct {
			QueryPlanner struct {
				WinningPlan struct {
					InputStage struct {
						IndexName string `bson:"indexName"`
						Direction string `bson:"direction"`
					} `bson:"inputStage"`
				} `bson:"winningPlan"`
			} `bson:"queryPlanner"`
		}
		cmd := bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "dir"}, {Key: "filter", Value: c.filter}, {Key: "sort", Value: c.sort}}}}
		if err := db.RunCommand(ctx, cmd).Decode(&ex); err != nil {
			t.Fatal(err)
		}
		if is := ex.QueryPlanner.WinningPlan.InputStage; is.IndexName != c.index || is.Direction != c.want {
			t.Errorf("find %v sort %v: %s %s; want %s %s", c.filter, c.sort, is.IndexName, is.Direction, c.index, c.want)
		}
	}
}

// TestIDRangeReadsTheIDIndex: as the manual describes a range on an indexed
// field, a range, $type or $in on _id is read from the _id index (explain names
// _id_) and keeps MongoDB's type bracketing: over _ids of mixed types
// (numbers, strings, ObjectIDs, documents), each filter returns exactly what
// the same filter on an unindexed copy of the _id returns.
func TestIDRangeReadsTheIDIndex(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("mixed")
	var docs []any
	oids := make([]bson.ObjectID, 0, 60)
	for i := 0; i < 300; i++ {
		var id any = int64(i)
		switch i % 5 {
		case 1:
			id = fmt.Sprintf("s%03d", i)
		case 2:
			o := bson.NewObjectIDFromTimestamp(time.Unix(int64(1_700_000_000+i), 0))
			oids = append(oids, o)
			id = o
		case 3:
			id = bson.D{{Key: "n", Value: i}}
		case 4:
			id = float64(i) + 0.5
		}
		docs = append(docs, bson.D{{Key: "_id", Value: id}, {Key: "k", Value: id}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	ids := func(cur *mongo.Cursor, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var rows []bson.Raw
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Lookup("_id").String())
		}
		return strings.Join(out, " ")
	}
	conds := []bson.D{
		{{Key: "$gte", Value: oids[10]}, {Key: "$lt", Value: oids[40]}},
		{{Key: "$gt", Value: oids[50]}},
		{{Key: "$lte", Value: "s100"}},
		{{Key: "$type", Value: "objectId"}},
		{{Key: "$type", Value: 7}, {Key: "$lt", Value: oids[5]}},
		{{Key: "$gte", Value: 100}, {Key: "$lt", Value: 200.5}},
		{{Key: "$type", Value: "objectId"}, {Key: "$ne", Value: oids[3]}},
		// each _id once, whatever the $in repeats (100 and 100.0 are one)
		{{Key: "$in", Value: bson.A{int32(100), 100.0, "s101", oids[3], bson.D{{Key: "n", Value: 103}}, 104.5, "absent", oids[3]}}},
	}
	for _, cond := range conds {
		got := ids(coll.Find(ctx, bson.D{{Key: "_id", Value: cond}}, options.Find().SetSort(bson.D{{Key: "k", Value: 1}})))
		want := ids(coll.Find(ctx, bson.D{{Key: "k", Value: cond}}, options.Find().SetSort(bson.D{{Key: "k", Value: 1}})))
		if got == "" || got != want {
			t.Errorf("_id %v:\n got %s\nwant %s", cond, got, want)
		}
		var ex struct {
			QueryPlanner struct {
				WinningPlan bson.Raw `bson:"winningPlan"`
			} `bson:"queryPlanner"`
		}
		cmd := bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "mixed"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: cond}}}}}}
		if err := c.Database("app").RunCommand(ctx, cmd).Decode(&ex); err != nil {
			t.Fatal(err)
		}
		if plan := ex.QueryPlanner.WinningPlan.String(); !strings.Contains(plan, `"IXSCAN"`) || !strings.Contains(plan, `"_id_"`) {
			t.Errorf("explain of _id %v: %s; want an IXSCAN of _id_", cond, plan)
		}
	}
}

// TestIDRangeInAndKeepsEveryCondition: the manual's $and is true when every
// one of its expressions is, two ranges on one field in it included
// ({$and: [{_id: {$gte: a}}, {_id: {$lt: b}}]} is a range from a to b), so
// a range on _id read from the _id index inside an $and still meets the
// other conditions: find, count and deleteMany see exactly the documents
// the same filter on an unindexed copy of the _id matches.
func TestIDRangeInAndKeepsEveryCondition(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("and")
	var docs []any
	oids := make([]bson.ObjectID, 0, 40)
	for i := 0; i < 120; i++ {
		var id any = fmt.Sprintf("s%03d", i)
		switch i % 3 {
		case 1:
			o := bson.NewObjectIDFromTimestamp(time.Unix(int64(1_700_000_000+i), 0))
			oids = append(oids, o)
			id = o
		case 2:
			id = time.UnixMilli(int64(1_700_000_000_000 + i)).UTC()
		}
		docs = append(docs, bson.D{{Key: "_id", Value: id}, {Key: "k", Value: id}, {Key: "n", Value: i % 4}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	on := func(field string, conds ...bson.D) bson.D {
		var and bson.A
		for _, cond := range conds {
			if cond[0].Key == "n" {
				and = append(and, cond)
				continue
			}
			and = append(and, bson.D{{Key: field, Value: cond}})
		}
		return bson.D{{Key: "$and", Value: and}}
	}
	cases := [][]bson.D{
		{{{Key: "$gte", Value: oids[5]}}, {{Key: "$lt", Value: oids[20]}}},
		{{{Key: "$gt", Value: "s010"}}, {{Key: "$lte", Value: "s050"}}},
		{{{Key: "$gte", Value: time.UnixMilli(1_700_000_000_020)}}, {{Key: "$lt", Value: time.UnixMilli(1_700_000_000_080)}}},
		{{{Key: "$type", Value: "objectId"}}, {{Key: "$lt", Value: oids[30]}}},
		{{{Key: "$gt", Value: oids[3]}}, {{Key: "n", Value: 1}}},
	}
	sorted := options.Find().SetSort(bson.D{{Key: "k", Value: 1}})
	for _, conds := range cases {
		var got, want []bson.Raw
		cur, err := coll.Find(ctx, on("_id", conds...), sorted)
		if err == nil {
			err = cur.All(ctx, &got)
		}
		if err != nil {
			t.Fatal(err)
		}
		if cur, err = coll.Find(ctx, on("k", conds...), sorted); err == nil {
			err = cur.All(ctx, &want)
		}
		if err != nil {
			t.Fatal(err)
		}
		n, err := coll.CountDocuments(ctx, on("_id", conds...))
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) || n != int64(len(want)) {
			t.Errorf("%v: find %d documents, count %d; want the %d the same filter on k finds", on("_id", conds...), len(got), n, len(want))
		}
	}
	// deleteMany removes what the range in $and selects, and nothing more
	res, err := coll.DeleteMany(ctx, on("_id", cases[1]...))
	if err != nil {
		t.Fatal(err)
	}
	left, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if res.DeletedCount != 13 || left != 107 {
		t.Errorf("deleteMany of _id in (s010, s050]: %d deleted, %d left; want 13 and 107", res.DeletedCount, left)
	}
}
