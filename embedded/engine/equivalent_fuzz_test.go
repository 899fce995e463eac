package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// FuzzEquivalentForms: forms MongoDB documents as equivalent give the
// same answer on a real server over the driver, for random documents and
// operations drawn from the seed:
//   - a find filter, the same $match leading a pipeline (read through an
//     index when the seed makes one) and the same $match after a stage
//     (matched in the pipeline), and the count of each;
//   - $group with {$sum: 1}, with the $count accumulator, and the $count
//     stage;
//   - an update operator ($set, $unset, $inc, $push) and the pipeline
//     update that does the same, on two copies of the documents.
func FuzzEquivalentForms(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3, 7, 42, 99, 1234, 5678, 31337, 271828} {
		f.Add(seed)
	}
	c, _ := serve(f, "")
	db := c.Database("equivalent")
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, seed uint64) {
		ctx := context.Background()
		g := &formGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
		k := n.Add(1)
		c1, c2 := db.Collection(fmt.Sprint("c", k, "a")), db.Collection(fmt.Sprint("c", k, "b"))
		defer func() { _ = c1.Drop(ctx); _ = c2.Drop(ctx) }()
		docs := g.docs()
		for _, coll := range []*mongo.Collection{c1, c2} {
			if len(docs) > 0 {
				if _, err := coll.InsertMany(ctx, docs); err != nil {
					t.Fatal(err)
				}
			}
		}
		if g.r.IntN(2) == 0 {
			keys := bson.D{{Key: g.field(), Value: 1}}
			if g.r.IntN(2) == 0 {
				keys = append(keys, bson.E{Key: g.field(), Value: -1})
			}
			// on both copies, so that an update the index refuses (two
			// array fields in one key) is refused in both forms; a key the
			// documents do not allow is not made
			if keys[0].Key != keys[len(keys)-1].Key || len(keys) == 1 {
				if _, err := c1.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: keys}); err == nil {
					if _, err := c2.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: keys}); err != nil {
						t.Fatalf("index %v made on one copy only: %v", keys, err)
					}
				}
			}
		}
		for range 4 {
			filter := g.filter(2)
			checkFilterForms(t, c1, filter)
		}
		checkCountForms(t, c1, g.field(), g.filter(1))
		for range 3 {
			checkUpdateForms(t, c1, c2, g)
		}
	})
}

// formGen draws documents, filters and updates.
type formGen struct{ r *rand.Rand }

var formFields = []string{"a", "b", "c", "d.x"}

func (g *formGen) field() string { return formFields[g.r.IntN(len(formFields))] }

// value is a small value of a random type; ok false for "missing".
func (g *formGen) value(depth int) (any, bool) {
	switch g.r.IntN(12) {
	case 0:
		return int32(g.r.IntN(7) - 3), true
	case 1:
		return int64(g.r.IntN(7) - 3), true
	case 2:
		return float64(g.r.IntN(13)-6) / 2, true
	case 3:
		return []string{"a", "b", "", "B"}[g.r.IntN(4)], true
	case 4:
		return nil, true
	case 5:
		return g.r.IntN(2) == 0, true
	case 6, 7:
		if depth > 0 {
			arr := bson.A{}
			for range g.r.IntN(4) {
				if v, ok := g.value(depth - 1); ok {
					arr = append(arr, v)
				}
			}
			return arr, true
		}
		return int32(g.r.IntN(3)), true
	case 8:
		if depth > 0 {
			d := bson.D{}
			if v, ok := g.value(depth - 1); ok {
				d = append(d, bson.E{Key: "x", Value: v})
			}
			return d, true
		}
		return "x", true
	}
	return nil, false
}

func (g *formGen) docs() []any {
	var docs []any
	for i := range g.r.IntN(25) {
		d := bson.D{{Key: "_id", Value: i}}
		for _, f := range []string{"a", "b", "c", "d"} {
			if v, ok := g.value(2); ok {
				d = append(d, bson.E{Key: f, Value: v})
			}
		}
		docs = append(docs, d)
	}
	return docs
}

// filter is a random query filter, nested depth levels at most.
func (g *formGen) filter(depth int) bson.D {
	if depth > 0 && g.r.IntN(3) == 0 {
		op := []string{"$and", "$or", "$nor"}[g.r.IntN(3)]
		var subs bson.A
		for range 1 + g.r.IntN(3) {
			subs = append(subs, g.filter(depth-1))
		}
		return bson.D{{Key: op, Value: subs}}
	}
	f := g.field()
	v, ok := g.value(1)
	if !ok {
		v = int32(1)
	}
	switch g.r.IntN(12) {
	case 0:
		return bson.D{{Key: f, Value: v}}
	case 1, 2, 3, 4, 5:
		op := []string{"$eq", "$ne", "$gt", "$gte", "$lt", "$lte"}[g.r.IntN(6)]
		return bson.D{{Key: f, Value: bson.D{{Key: op, Value: v}}}}
	case 6, 7:
		op := []string{"$in", "$nin"}[g.r.IntN(2)]
		vals := bson.A{v}
		if w, ok := g.value(0); ok {
			vals = append(vals, w)
		}
		return bson.D{{Key: f, Value: bson.D{{Key: op, Value: vals}}}}
	case 8:
		return bson.D{{Key: f, Value: bson.D{{Key: "$exists", Value: g.r.IntN(2) == 0}}}}
	case 9:
		t := []string{"number", "string", "null", "array", "object", "bool", "int", "long", "double"}[g.r.IntN(9)]
		return bson.D{{Key: f, Value: bson.D{{Key: "$type", Value: t}}}}
	case 10:
		return bson.D{{Key: f, Value: bson.D{{Key: "$size", Value: g.r.IntN(3)}}}}
	}
	op := []string{"$gt", "$lte", "$eq"}[g.r.IntN(3)]
	return bson.D{{Key: f, Value: bson.D{{Key: "$not", Value: bson.D{{Key: op, Value: v}}}}}}
}

// rawRows reads a cursor into its documents' bytes, or the error's code.
func rawRows(cur *mongo.Cursor, err error) ([]bson.Raw, int32) {
	if err == nil {
		var rows []bson.Raw
		if err = cur.All(context.Background(), &rows); err == nil {
			return rows, 0
		}
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for _, c := range []int32{2, 9, 14, 15983, 16410, 40324, 51024} {
			if se.HasErrorCode(int(c)) {
				return nil, c
			}
		}
	}
	return nil, -1
}

func sameRows(a, b []bson.Raw) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// checkFilterForms: find, a leading $match and a $match inside the
// pipeline give the same documents, or the same error; their counts
// agree.
func checkFilterForms(t *testing.T, coll *mongo.Collection, filter bson.D) {
	t.Helper()
	ctx := context.Background()
	byID := bson.D{{Key: "_id", Value: 1}}
	found, fcode := rawRows(coll.Find(ctx, filter, options.Find().SetSort(byID)))
	leading, lcode := rawRows(coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: filter}}, {{Key: "$sort", Value: byID}}}))
	inner, icode := rawRows(coll.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$set", Value: bson.D{{Key: "zz", Value: 1}}}}, {{Key: "$match", Value: filter}},
		{{Key: "$unset", Value: "zz"}}, {{Key: "$sort", Value: byID}}}))
	if fcode != lcode || fcode != icode || !sameRows(found, leading) || !sameRows(found, inner) {
		t.Fatalf("filter %v:\nfind   %d %v\n$match %d %v\ninner  %d %v", filter, fcode, found, lcode, leading, icode, inner)
	}
	if fcode != 0 {
		return
	}
	n, err := coll.CountDocuments(ctx, filter)
	counted, _ := rawRows(coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: filter}}, {{Key: "$count", Value: "n"}}}))
	want := "[]"
	if len(found) > 0 {
		want = fmt.Sprintf(`[{"n": {"$numberInt":"%d"}}]`, len(found))
	}
	if err != nil || n != int64(len(found)) || fmt.Sprint(counted) != want {
		t.Fatalf("filter %v: %d found, countDocuments %d (%v), $count %v", filter, len(found), n, err, counted)
	}
}

// checkCountForms: per group of field, {$sum: 1}, {$count: {}} and a
// $count stage after a $match of the group count the same.
func checkCountForms(t *testing.T, coll *mongo.Collection, field string, filter bson.D) {
	t.Helper()
	ctx := context.Background()
	group := func(acc bson.D) []bson.Raw {
		rows, code := rawRows(coll.Aggregate(ctx, mongo.Pipeline{
			{{Key: "$match", Value: filter}},
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$" + field}, {Key: "n", Value: acc}}}},
			{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}}))
		if code != 0 {
			t.Fatalf("$group by %s with %v after %v: code %d", field, acc, filter, code)
		}
		return rows
	}
	sum, count := group(bson.D{{Key: "$sum", Value: 1}}), group(bson.D{{Key: "$count", Value: bson.D{}}})
	if !sameRows(sum, count) {
		t.Fatalf("$group by %s after %v:\n{$sum: 1} %v\n{$count}  %v", field, filter, sum, count)
	}
	total := 0
	for _, r := range sum {
		total += int(r.Lookup("n").Int32())
	}
	stage, code := rawRows(coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: filter}}, {{Key: "$count", Value: "n"}}}))
	if code != 0 || (total == 0) != (len(stage) == 0) || (total > 0 && int(stage[0].Lookup("n").Int32()) != total) {
		t.Fatalf("after %v: groups count %d, the $count stage %v (code %d)", filter, total, stage, code)
	}
}

// checkUpdateForms applies an update operator to a and the same change
// as a pipeline update to b, then holds the two collections equal.
func checkUpdateForms(t *testing.T, a, b *mongo.Collection, g *formGen) {
	t.Helper()
	ctx := context.Background()
	f := []string{"a", "b", "c"}[g.r.IntN(3)]
	v, ok := g.value(1)
	if !ok {
		v = "v"
	}
	ref := "$" + f
	var filter, op bson.D
	var pipe mongo.Pipeline
	switch g.r.IntN(4) {
	case 0:
		filter = g.filter(1)
		op = bson.D{{Key: "$set", Value: bson.D{{Key: f, Value: v}}}}
		pipe = mongo.Pipeline{{{Key: "$set", Value: bson.D{{Key: f, Value: bson.D{{Key: "$literal", Value: v}}}}}}}
	case 1:
		filter = g.filter(1)
		op = bson.D{{Key: "$unset", Value: bson.D{{Key: f, Value: ""}}}}
		pipe = mongo.Pipeline{{{Key: "$unset", Value: f}}}
	case 2:
		// $inc applies to numbers (not arrays holding one) and creates a
		// missing field
		filter = bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: f, Value: bson.D{{Key: "$type", Value: "number"}}}}, bson.D{{Key: f, Value: bson.D{{Key: "$exists", Value: false}}}}}},
			{Key: f, Value: bson.D{{Key: "$not", Value: bson.D{{Key: "$type", Value: "array"}}}}}}
		by := []any{int32(g.r.IntN(5) - 2), int64(g.r.IntN(5) - 2), float64(g.r.IntN(5)-2) / 2}[g.r.IntN(3)]
		op = bson.D{{Key: "$inc", Value: bson.D{{Key: f, Value: by}}}}
		pipe = mongo.Pipeline{{{Key: "$set", Value: bson.D{{Key: f, Value: bson.D{{Key: "$add", Value: bson.A{bson.D{{Key: "$ifNull", Value: bson.A{ref, int32(0)}}}, by}}}}}}}}
	default:
		// $push applies to arrays and creates a missing field
		filter = bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: f, Value: bson.D{{Key: "$type", Value: "array"}}}}, bson.D{{Key: f, Value: bson.D{{Key: "$exists", Value: false}}}}}}}
		op = bson.D{{Key: "$push", Value: bson.D{{Key: f, Value: v}}}}
		pipe = mongo.Pipeline{{{Key: "$set", Value: bson.D{{Key: f, Value: bson.D{{Key: "$concatArrays", Value: bson.A{
			bson.D{{Key: "$ifNull", Value: bson.A{ref, bson.A{}}}}, bson.A{bson.D{{Key: "$literal", Value: v}}}}}}}}}}}
	}
	ra, errA := a.UpdateMany(ctx, filter, op)
	rb, errB := b.UpdateMany(ctx, filter, pipe)
	if (errA == nil) != (errB == nil) || errA == nil && (ra.MatchedCount != rb.MatchedCount || ra.ModifiedCount != rb.ModifiedCount) {
		t.Fatalf("update of %v by %v and by %v: %v (%v), %v (%v)", filter, op, pipe, ra, errA, rb, errB)
	}
	byID := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})
	da, _ := rawRows(a.Find(ctx, bson.D{}, byID))
	db, _ := rawRows(b.Find(ctx, bson.D{}, byID))
	if !sameRows(da, db) {
		t.Fatalf("after updating %v by %v and by %v:\n%v\n%v", filter, op, pipe, da, db)
	}
}
