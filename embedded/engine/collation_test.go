package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Strings compare by the command's collation, as MongoDB's manual
// describes: strength 1 ignores case and diacritics, 2 ignores case,
// 3 (the default) tells them apart; numericOrdering sorts digits as
// numbers; a collation applies to find's filter and sort, count, distinct,
// updates, deletes, findAndModify and aggregate's $match and $sort; an
// index is not used for it, and the answers equal those without indexes.
func TestCollationCompares(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	words := db.Collection("words")
	if _, err := words.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "w", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	var docs []any
	for i, w := range []string{"cafe", "Café", "CAFE", "café", "apple", "Banana", "banana", "item10", "item9", "item100"} {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "w", Value: w}})
	}
	if _, err := words.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	col := func(strength int) *options.Collation { return &options.Collation{Locale: "en", Strength: strength} }
	words1 := func(cur *mongo.Cursor, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			W string `bson:"w"`
		}
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.W)
		}
		return strings.Join(out, " ")
	}
	byID := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})
	for _, q := range []struct {
		coll *options.Collation
		want string
	}{
		{col(1), "cafe Café CAFE café"},
		{col(2), "cafe CAFE"},
		{col(3), "cafe"},
		{nil, "cafe"},
	} {
		got := words1(words.Find(ctx, bson.D{{Key: "w", Value: "cafe"}}, byID.SetCollation(q.coll)))
		if got != q.want {
			t.Errorf("find w = cafe with %+v: %q; want %q", q.coll, got, q.want)
		}
		n, err := words.CountDocuments(ctx, bson.D{{Key: "w", Value: "cafe"}}, options.Count().SetCollation(q.coll))
		if err != nil || int(n) != len(strings.Fields(q.want)) {
			t.Errorf("count w = cafe with %+v: %d, %v; want %d", q.coll, n, err, len(strings.Fields(q.want)))
		}
	}
	byW := options.Find().SetSort(bson.D{{Key: "w", Value: 1}, {Key: "_id", Value: 1}})
	if got, want := words1(words.Find(ctx, bson.D{{Key: "w", Value: bson.D{{Key: "$in", Value: bson.A{"BANANA", "apple"}}}}}, byW.SetCollation(col(2)))), "apple Banana banana"; got != want {
		t.Errorf("$in under strength 2, sorted: %q; want %q", got, want)
	}
	if got, want := words1(words.Find(ctx, bson.D{{Key: "w", Value: bson.D{{Key: "$gte", Value: "b"}, {Key: "$lt", Value: "c"}}}}, byW.SetCollation(col(3)))), "banana Banana"; got != want {
		t.Errorf("range [b, c) under en, sorted: %q; want %q (lower case first at strength 3)", got, want)
	}
	if got, want := words1(words.Find(ctx, bson.D{{Key: "w", Value: bson.D{{Key: "$regex", Value: "^item"}}}}, options.Find().SetSort(bson.D{{Key: "w", Value: 1}}).SetCollation(&options.Collation{Locale: "en", NumericOrdering: true}))), "item9 item10 item100"; got != want {
		t.Errorf("numericOrdering sort: %q; want %q", got, want)
	}
	// binary order without a collation, through the index
	if got, want := words1(words.Find(ctx, bson.D{{Key: "w", Value: bson.D{{Key: "$regex", Value: "^item"}}}}, options.Find().SetSort(bson.D{{Key: "w", Value: 1}}))), "item10 item100 item9"; got != want {
		t.Errorf("binary sort: %q; want %q", got, want)
	}
	var vals []string
	if err := words.Distinct(ctx, "w", bson.D{{Key: "w", Value: bson.D{{Key: "$regex", Value: "^[bB]"}}}}, options.Distinct().SetCollation(col(1))).Decode(&vals); err != nil || len(vals) != 1 {
		t.Errorf("distinct under strength 1: %v, %v; want one of Banana and banana", vals, err)
	}
	agg, err := words.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "w", Value: "CAFÉ"}}}}, {{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}}, options.Aggregate().SetCollation(col(1)))
	if got, want := words1(agg, err), "cafe Café CAFE café"; got != want {
		t.Errorf("aggregate $match under strength 1: %q; want %q", got, want)
	}
	res, err := words.UpdateMany(ctx, bson.D{{Key: "w", Value: "BANANA"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "fruit", Value: true}}}}, options.UpdateMany().SetCollation(col(2)))
	if err != nil || res.ModifiedCount != 2 {
		t.Errorf("updateMany under strength 2: %+v, %v; want 2 modified", res, err)
	}
	del, err := words.DeleteMany(ctx, bson.D{{Key: "w", Value: "Cafe"}}, options.DeleteMany().SetCollation(col(1)))
	if err != nil || del.DeletedCount != 4 {
		t.Errorf("deleteMany under strength 1: %+v, %v; want 4 deleted", del, err)
	}
	if n, _ := words.CountDocuments(ctx, bson.D{}); n != 6 {
		t.Errorf("after the delete %d documents; want 6", n)
	}
}

// A collection's default collation applies to its operations that name
// none; an explicit simple collation overrides it.
func TestCollationDefaultOfCollection(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	if err := db.CreateCollection(ctx, "names", options.CreateCollection().SetCollation(&options.Collation{Locale: "fr", Strength: 1})); err != nil {
		t.Fatal(err)
	}
	names := db.Collection("names")
	if _, err := names.InsertMany(ctx, []any{bson.D{{Key: "n", Value: "Élodie"}}, bson.D{{Key: "n", Value: "elodie"}}}); err != nil {
		t.Fatal(err)
	}
	if n, err := names.CountDocuments(ctx, bson.D{{Key: "n", Value: "ELODIE"}}); err != nil || n != 2 {
		t.Errorf("count under the default collation: %d, %v; want 2", n, err)
	}
	if n, err := names.CountDocuments(ctx, bson.D{{Key: "n", Value: "ELODIE"}}, options.Count().SetCollation(&options.Collation{Locale: "simple"})); err != nil || n != 0 {
		t.Errorf("count under an explicit simple collation: %d, %v; want 0", n, err)
	}
	_, err := names.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "n", Value: 1}}, Options: options.Index().SetUnique(true)})
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(238) {
		t.Errorf("a unique index inheriting a default collation: %v; want NotImplemented (238)", err)
	}
	if _, err := names.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "n", Value: 1}}, Options: options.Index().SetUnique(true).SetCollation(&options.Collation{Locale: "simple"})}); err != nil {
		t.Errorf("a unique index with the simple collation: %v", err)
	}
}

// Bad collations are refused naming the field; one oidkit's server cannot
// honour is NotImplemented, never ignored.
func TestCollationRefusals(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("x")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "s", Value: "a"}}); err != nil {
		t.Fatal(err)
	}
	for _, cs := range []struct {
		coll bson.D
		code int
		msg  string
	}{
		{bson.D{{Key: "strength", Value: 1}}, 9, "locale"},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 7}}, 2, "strength"},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "bogus", Value: 1}}, 40415, "bogus"},
		{bson.D{{Key: "locale", Value: "simple"}, {Key: "strength", Value: 1}}, 2, "simple"},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "caseFirst", Value: "upper"}}, 238, "caseFirst"},
		{bson.D{{Key: "locale", Value: "!!"}}, 2, "locale"},
	} {
		err := c.Database("app").RunCommand(ctx, bson.D{{Key: "find", Value: "x"}, {Key: "collation", Value: cs.coll}}).Err()
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(cs.code) || !strings.Contains(err.Error(), cs.msg) {
			t.Errorf("find with collation %v: %v; want code %d naming %s", cs.coll, err, cs.code, cs.msg)
		}
	}
	_, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}}, Options: options.Index().SetCollation(&options.Collation{Locale: "en"})})
	if err == nil || !strings.Contains(err.Error(), "collation") {
		t.Errorf("an index with a collation: %v; want it refused", err)
	}
}

// Aggregation expressions compare strings by the command's collation, as
// the manual says a collation applies to an aggregate's string
// comparisons: $eq and the other comparisons, $cmp, $in, $indexOfArray,
// the set operators, $max/$min (expressions and accumulators), $maxN,
// $addToSet and $sortArray; in $project and $addFields, and in a find's
// $expr and projection.
func TestCollationInExpressions(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("exprcoll")
	agInsert(t, coll, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: "café"}, {Key: "b", Value: "CAFE"},
		{Key: "arr", Value: bson.A{"x", "Cafe", "y"}}, {Key: "m", Value: bson.A{"b", "Z", "a"}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: "Z"}, {Key: "b", Value: "a"}})
	x := func(name string, arg any) bson.E { return bson.E{Key: name, Value: op(name, arg)} }
	proj := bson.D{{Key: "_id", Value: 0},
		x("$eq", bson.A{"$a", "$b"}), x("$ne", bson.A{"$a", "$b"}), x("$cmp", bson.A{"$a", "$b"}),
		x("$gte", bson.A{"$b", "$a"}), x("$lt", bson.A{"$b", "$a"}),
		x("$in", bson.A{"$b", "$arr"}), x("$indexOfArray", bson.A{"$arr", "CAFÉ"}),
		x("$setEquals", bson.A{bson.A{"A", "b"}, bson.A{"a", "B", "b"}}),
		x("$setIntersection", bson.A{bson.A{"A", "b"}, bson.A{"a"}}),
		x("$max", "$m"), x("$min", "$m"),
		{Key: "$maxN", Value: op("$maxN", bson.D{{Key: "n", Value: 1}, {Key: "input", Value: "$m"}})},
		{Key: "$sortArray", Value: op("$sortArray", bson.D{{Key: "input", Value: "$m"}, {Key: "sortBy", Value: 1}})},
	}
	run := func(k *options.Collation, pipeline mongo.Pipeline) string {
		t.Helper()
		cur, err := coll.Aggregate(ctx, pipeline, options.Aggregate().SetCollation(k))
		if err != nil {
			t.Fatal(err)
		}
		var rows []bson.Raw
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		b, _ := bson.MarshalExtJSON(bson.D{{Key: "rows", Value: rows}}, false, false)
		return string(b)
	}
	first := mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "_id", Value: 1}}}}, {{Key: "$project", Value: proj}}}
	for _, c := range []struct {
		k    *options.Collation
		want string
	}{
		{nil, `{"rows":[{"$eq":false,"$ne":true,"$cmp":1,"$gte":false,"$lt":true,"$in":false,"$indexOfArray":-1,` +
			`"$setEquals":false,"$setIntersection":[],"$max":"b","$min":"Z","$maxN":["b"],"$sortArray":["Z","a","b"]}]}`},
		{&options.Collation{Locale: "en", Strength: 2}, `{"rows":[{"$eq":false,"$ne":true,"$cmp":1,"$gte":false,"$lt":true,"$in":true,` +
			`"$indexOfArray":-1,"$setEquals":true,"$setIntersection":["A"],"$max":"Z","$min":"a","$maxN":["Z"],"$sortArray":["a","b","Z"]}]}`},
		{&options.Collation{Locale: "en", Strength: 1}, `{"rows":[{"$eq":true,"$ne":false,"$cmp":0,"$gte":true,"$lt":false,"$in":true,` +
			`"$indexOfArray":1,"$setEquals":true,"$setIntersection":["A"],"$max":"Z","$min":"a","$maxN":["Z"],"$sortArray":["a","b","Z"]}]}`},
	} {
		if got := run(c.k, first); got != c.want {
			t.Errorf("collation %v:\n got %s\nwant %s", c.k, got, c.want)
		}
	}
	// accumulators of $group
	group := mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil},
		{Key: "max", Value: op("$max", "$b")}, {Key: "min", Value: op("$min", "$b")}, {Key: "set", Value: op("$addToSet", op("$cond", bson.A{op("$eq", bson.A{"$_id", 1}), "$a", "CAFE"}))},
		{Key: "set2", Value: op("$addToSet", "$a")}}}}}
	if got, want := run(nil, group), `{"rows":[{"_id":null,"max":"a","min":"CAFE","set":["café","CAFE"],"set2":["café","Z"]}]}`; got != want {
		t.Errorf("$group without collation: %s; want %s", got, want)
	}
	if got, want := run(&options.Collation{Locale: "en", Strength: 1}, group), `{"rows":[{"_id":null,"max":"CAFE","min":"a","set":["café"],"set2":["café","Z"]}]}`; got != want {
		t.Errorf("$group under strength 1: %s; want %s", got, want)
	}
	// $group's keys: strings equal under the collation are one group,
	// whose _id is the first of them
	keys := mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "_id", Value: 1}}}},
		{{Key: "$project", Value: bson.D{{Key: "w", Value: op("$literal", bson.A{"cafe", "Café", "CAFE", "z", "Z", bson.A{"Z"}, bson.A{"z"}})}}}},
		{{Key: "$unwind", Value: "$w"}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$w"}, {Key: "n", Value: op("$sum", 1)}}}}}
	if got, want := run(nil, keys), `{"rows":[{"_id":"cafe","n":1},{"_id":"Café","n":1},{"_id":"CAFE","n":1},{"_id":"z","n":1},{"_id":"Z","n":1},{"_id":["Z"],"n":1},{"_id":["z"],"n":1}]}`; got != want {
		t.Errorf("$group keys without collation: %s; want %s", got, want)
	}
	if got, want := run(&options.Collation{Locale: "en", Strength: 2}, keys), `{"rows":[{"_id":"cafe","n":2},{"_id":"Café","n":1},{"_id":"z","n":2},{"_id":["Z"],"n":2}]}`; got != want {
		t.Errorf("$group keys under strength 2: %s; want %s", got, want)
	}
	// a find's $expr and projection
	cur, err := coll.Find(ctx, bson.D{{Key: "$expr", Value: op("$eq", bson.A{"$a", "cafe"})}},
		options.Find().SetCollation(&options.Collation{Locale: "en", Strength: 1}).
			SetProjection(bson.D{{Key: "same", Value: op("$eq", bson.A{"$a", "$b"})}}))
	if err != nil {
		t.Fatal(err)
	}
	var rows []bson.M
	if err := cur.All(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0]["_id"] != int32(1) || rows[0]["same"] != true {
		t.Errorf("find with $expr under strength 1: %v; want the document 1 with same: true", rows)
	}
}

// $lookup's localField and foreignField compare by the aggregate's
// collation, and so do the expressions of its pipeline.
func TestCollationInLookup(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	orders := db.Collection("orders")
	agInsert(t, orders, bson.D{{Key: "_id", Value: 1}, {Key: "sku", Value: "ABC"}})
	agInsert(t, db.Collection("items"), bson.D{{Key: "_id", Value: 10}, {Key: "sku", Value: "abc"}}, bson.D{{Key: "_id", Value: 11}, {Key: "sku", Value: "abd"}})
	run := func(k *options.Collation, lookup bson.D) string {
		t.Helper()
		cur, err := orders.Aggregate(ctx, mongo.Pipeline{{{Key: "$lookup", Value: lookup}}, {{Key: "$project", Value: bson.D{{Key: "j._id", Value: 1}}}}},
			options.Aggregate().SetCollation(k))
		if err != nil {
			t.Fatal(err)
		}
		var rows []bson.Raw
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		b, _ := bson.MarshalExtJSON(bson.D{{Key: "rows", Value: rows}}, false, false)
		return string(b)
	}
	equality := bson.D{{Key: "from", Value: "items"}, {Key: "localField", Value: "sku"}, {Key: "foreignField", Value: "sku"}, {Key: "as", Value: "j"}}
	let := bson.D{{Key: "from", Value: "items"}, {Key: "let", Value: bson.D{{Key: "s", Value: "$sku"}}},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "$expr", Value: op("$eq", bson.A{"$sku", "$$s"})}}}}}}, {Key: "as", Value: "j"}}
	ci := &options.Collation{Locale: "en", Strength: 2}
	for _, c := range []struct {
		name   string
		k      *options.Collation
		lookup bson.D
		want   string
	}{
		{"equality", nil, equality, `{"rows":[{"_id":1,"j":[]}]}`},
		{"equality, strength 2", ci, equality, `{"rows":[{"_id":1,"j":[{"_id":10}]}]}`},
		{"let and $expr", nil, let, `{"rows":[{"_id":1,"j":[]}]}`},
		{"let and $expr, strength 2", ci, let, `{"rows":[{"_id":1,"j":[{"_id":10}]}]}`},
	} {
		if got := run(c.k, c.lookup); got != c.want {
			t.Errorf("%s: %s; want %s", c.name, got, c.want)
		}
	}
}
