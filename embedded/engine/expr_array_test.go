package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// exprCase is an expression evaluated on one document by $addFields and
// the result as relaxed extended JSON ({"x":...}, or {} when missing),
// or the error code it must fail with and, if msg is set, a part of
// its message.
type exprCase struct {
	expr any
	want string
	code int
	msg  string
}

// checkExprs runs each case against doc in a collection of the server.
func checkExprs(t *testing.T, coll *mongo.Collection, doc bson.D, cases []exprCase) {
	t.Helper()
	ctx := context.Background()
	if _, err := coll.DeleteMany(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, append(bson.D{{Key: "_id", Value: 1}}, doc...)); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		spec, _ := bson.MarshalExtJSON(bson.D{{Key: "x", Value: c.expr}}, false, false)
		cur, err := coll.Aggregate(ctx, mongo.Pipeline{
			{{Key: "$addFields", Value: bson.D{{Key: "x", Value: c.expr}}}},
			{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "x", Value: 1}}}}})
		var got string
		if err == nil {
			var rows []bson.Raw
			if err = cur.All(ctx, &rows); err == nil {
				if len(rows) != 1 {
					t.Errorf("%s: %d rows", spec, len(rows))
					continue
				}
				b, _ := bson.MarshalExtJSON(rows[0], false, false)
				got = string(b)
			}
		}
		if c.code != 0 {
			var se mongo.ServerError
			if !errors.As(err, &se) || !se.HasErrorCode(c.code) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: got %s, %v; want error %d %q", spec, got, err, c.code, c.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s = %s; want %s", spec, got, c.want)
		}
	}
}

func op(name string, arg any) bson.D { return bson.D{{Key: name, Value: arg}} }

// The array operators on the manual's examples and their edge cases.
func TestArrayExprs(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("arr")
	doc := bson.D{
		{Key: "a", Value: bson.A{1, 2, 3}},
		{Key: "s", Value: bson.A{"a", "b", "c"}},
		{Key: "e", Value: bson.A{}},
		{Key: "n", Value: nil},
		{Key: "str", Value: "abc"},
		{Key: "mixed", Value: bson.A{int64(2), 1.5, 1, nil, "x", bson.D{{Key: "k", Value: 1}}, bson.A{1}, true}},
		{Key: "team", Value: bson.A{
			bson.D{{Key: "name", Value: "pat"}, {Key: "age", Value: 30}, {Key: "address", Value: bson.D{{Key: "city", Value: "NYC"}}}},
			bson.D{{Key: "name", Value: "dallas"}, {Key: "age", Value: 36}, {Key: "address", Value: bson.D{{Key: "city", Value: "San Francisco"}}}},
			bson.D{{Key: "name", Value: "charlie"}, {Key: "age", Value: 42}, {Key: "address", Value: bson.D{{Key: "city", Value: "Boston"}}}},
		}},
	}
	reduce := func(input, init, in any) bson.D {
		return op("$reduce", bson.D{{Key: "input", Value: input}, {Key: "initialValue", Value: init}, {Key: "in", Value: in}})
	}
	zip := func(fields ...bson.E) bson.D { return op("$zip", bson.D(fields)) }
	inputs := func(v ...any) bson.E { return bson.E{Key: "inputs", Value: bson.A(v)} }
	sortArr := func(input, by any) bson.D {
		return op("$sortArray", bson.D{{Key: "input", Value: input}, {Key: "sortBy", Value: by}})
	}
	nOp := func(name string, n, input any) bson.D {
		return op(name, bson.D{{Key: "n", Value: n}, {Key: "input", Value: input}})
	}
	checkExprs(t, coll, doc, []exprCase{
		// $reduce
		{expr: reduce(bson.A{"a", "b", "c"}, "", op("$concat", bson.A{"$$value", "$$this"})), want: `{"x":"abc"}`},
		{expr: reduce(bson.A{1, 2, 3, 4}, bson.D{{Key: "sum", Value: 5}, {Key: "product", Value: 2}},
			bson.D{{Key: "sum", Value: op("$add", bson.A{"$$value.sum", "$$this"})}, {Key: "product", Value: op("$multiply", bson.A{"$$value.product", "$$this"})}}),
			want: `{"x":{"sum":15,"product":48}}`},
		{expr: reduce(bson.A{bson.A{3, 4, 5}, bson.A{1, 2}}, bson.A{1, 2}, op("$concatArrays", bson.A{"$$value", "$$this"})), want: `{"x":[1,2,3,4,5,1,2]}`},
		{expr: reduce("$e", 7, op("$add", bson.A{"$$value", "$$this"})), want: `{"x":7}`},
		{expr: reduce("$n", 7, "$$value"), want: `{"x":null}`},
		{expr: reduce("$nope", 7, "$$value"), want: `{"x":null}`},
		{expr: reduce("$str", 0, "$$value"), code: 40080},
		{expr: op("$reduce", bson.D{{Key: "input", Value: "$a"}, {Key: "in", Value: 1}}), code: 40078},
		{expr: op("$reduce", bson.D{{Key: "input", Value: "$a"}, {Key: "initialValue", Value: 0}, {Key: "in", Value: 1}, {Key: "as", Value: "x"}}), code: 40076},
		{expr: op("$reduce", 1), code: 40075},
		// a nested $reduce sees its own $$this
		{expr: reduce(bson.A{bson.A{1, 2}, bson.A{3}}, 0, op("$add", bson.A{"$$value", reduce("$$this", 0, op("$add", bson.A{"$$value", "$$this"}))})), want: `{"x":6}`},
		// $range
		{expr: op("$range", bson.A{0, 10, 2}), want: `{"x":[0,2,4,6,8]}`},
		{expr: op("$range", bson.A{10, 0, -2}), want: `{"x":[10,8,6,4,2]}`},
		{expr: op("$range", bson.A{0, 10, -2}), want: `{"x":[]}`},
		{expr: op("$range", bson.A{0, 5}), want: `{"x":[0,1,2,3,4]}`},
		{expr: op("$range", bson.A{int64(1), 3.0}), want: `{"x":[1,2]}`},
		{expr: op("$range", bson.A{0, 5, 0}), code: 34449},
		{expr: op("$range", bson.A{0.5, 5}), code: 34444},
		{expr: op("$range", bson.A{nil, 5}), code: 34443},
		{expr: op("$range", bson.A{0, "5"}), code: 34445},
		{expr: op("$range", bson.A{0, int64(1) << 40}), code: 34446, msg: "$range requires an ending value that can be represented as a 32-bit integer, found value: 1099511627776"},
		{expr: op("$range", bson.A{0, 5, 1.5}), code: 34448},
		{expr: op("$range", bson.A{0}), code: 28667},
		{expr: op("$range", bson.A{-2147483648, 2147483647}), code: 5029400},
		// $zip
		{expr: zip(inputs(bson.A{"a"}, bson.A{"b", "c"})), want: `{"x":[["a","b"]]}`},
		{expr: zip(inputs(bson.A{1, 2}, bson.A{"a", "b"}, bson.A{true})), want: `{"x":[[1,"a",true]]}`},
		{expr: zip(inputs(bson.A{"a"}, bson.A{"b", "c"}), bson.E{Key: "useLongestLength", Value: true}), want: `{"x":[["a","b"],[null,"c"]]}`},
		{expr: zip(inputs(bson.A{1}, bson.A{1, 2, 3}), bson.E{Key: "useLongestLength", Value: true}, bson.E{Key: "defaults", Value: bson.A{"a", "b"}}),
			want: `{"x":[[1,1],["a",2],["a",3]]}`},
		{expr: zip(inputs("$a", "$e")), want: `{"x":[]}`},
		{expr: zip(inputs("$a", "$n")), want: `{"x":null}`},
		{expr: zip(inputs("$a", "$nope")), want: `{"x":null}`},
		{expr: zip(inputs("$a", "$str")), code: 34468, msg: `$zip found a non-array expression in input: "abc"`},
		{expr: zip(bson.E{Key: "inputs", Value: bson.A{}}), code: 34465},
		{expr: zip(inputs("$a"), bson.E{Key: "defaults", Value: bson.A{1}}), code: 34466},
		{expr: zip(inputs("$a"), bson.E{Key: "useLongestLength", Value: true}, bson.E{Key: "defaults", Value: bson.A{1, 2}}), code: 34467},
		{expr: zip(bson.E{Key: "inputs", Value: "$a"}), code: 34461},
		{expr: zip(inputs("$a"), bson.E{Key: "useLongestLength", Value: 1}), code: 34463},
		{expr: op("$zip", bson.A{}), code: 34460},
		// $indexOfArray
		{expr: op("$indexOfArray", bson.A{bson.A{"a", "abc"}, "a"}), want: `{"x":0}`},
		{expr: op("$indexOfArray", bson.A{bson.A{1, 2}, 5}), want: `{"x":-1}`},
		{expr: op("$indexOfArray", bson.A{bson.A{1, 2, 3, 2}, 2.0, 2}), want: `{"x":3}`},
		{expr: op("$indexOfArray", bson.A{bson.A{1, 2, 3, 2}, int64(2), 0, 1}), want: `{"x":-1}`},
		{expr: op("$indexOfArray", bson.A{bson.A{1, 2, 3, 2}, 2, 3, 1}), want: `{"x":-1}`},
		{expr: op("$indexOfArray", bson.A{bson.A{1, 2}, 2, 9}), want: `{"x":-1}`},
		{expr: op("$indexOfArray", bson.A{bson.A{1, nil}, nil}), want: `{"x":1}`},
		{expr: op("$indexOfArray", bson.A{"$n", 1}), want: `{"x":null}`},
		{expr: op("$indexOfArray", bson.A{"$nope", 1}), want: `{"x":null}`},
		{expr: op("$indexOfArray", bson.A{"$str", 1}), code: 40090},
		{expr: op("$indexOfArray", bson.A{"$a", 1, -1}), code: 40097},
		{expr: op("$indexOfArray", bson.A{"$a", 1, 1.5}), code: 40096, msg: "$indexOfArrayrequires an integral starting index, found a value of type: double, with value: 1.5"},
		{expr: op("$indexOfArray", bson.A{"$a", 1, 0, "x"}), code: 40096},
		{expr: op("$indexOfArray", bson.A{"$a"}), code: 28667, msg: "Expression $indexOfArray takes at least 2 arguments, and at most 4, but 1 were passed in."},
		// $reverseArray
		{expr: op("$reverseArray", "$a"), want: `{"x":[3,2,1]}`},
		{expr: op("$reverseArray", bson.A{"$e"}), want: `{"x":[]}`},
		{expr: op("$reverseArray", bson.A{bson.A{1, bson.A{2, 3}}}), want: `{"x":[[2,3],1]}`},
		{expr: op("$reverseArray", "$n"), want: `{"x":null}`},
		{expr: op("$reverseArray", "$str"), code: 34435},
		// $sortArray
		{expr: sortArr("$team", bson.D{{Key: "name", Value: 1}}), want: `{"x":[{"name":"charlie","age":42,"address":{"city":"Boston"}},{"name":"dallas","age":36,"address":{"city":"San Francisco"}},{"name":"pat","age":30,"address":{"city":"NYC"}}]}`},
		{expr: op("$map", bson.D{{Key: "input", Value: sortArr("$team", bson.D{{Key: "address.city", Value: -1}})}, {Key: "in", Value: "$$this.name"}}), want: `{"x":["dallas","pat","charlie"]}`},
		{expr: op("$map", bson.D{{Key: "input", Value: sortArr("$team", bson.D{{Key: "age", Value: -1}, {Key: "name", Value: 1}})}, {Key: "in", Value: "$$this.age"}}), want: `{"x":[42,36,30]}`},
		{expr: sortArr(bson.A{1, 4, 1, 6, 12, 5}, 1), want: `{"x":[1,1,4,5,6,12]}`},
		{expr: sortArr(bson.A{1, 4, 1, 6, 12, 5}, -1), want: `{"x":[12,6,5,4,1,1]}`},
		{expr: sortArr("$mixed", 1), want: `{"x":[null,1,1.5,2,"x",{"k":1},[1],true]}`},
		{expr: sortArr(bson.A{20, 4, bson.D{{Key: "a", Value: "Free"}}, 6, 21, 5, "Gratis", bson.D{{Key: "a", Value: nil}}, bson.D{{Key: "a", Value: bson.D{{Key: "sale", Value: true}, {Key: "price", Value: 19}}}}, 10.23, bson.D{{Key: "a", Value: "On sale"}}}, 1),
			want: `{"x":[4,5,6,10.23,20,21,"Gratis",{"a":null},{"a":"Free"},{"a":"On sale"},{"a":{"sale":true,"price":19}}]}`},
		{expr: sortArr("$e", 1), want: `{"x":[]}`},
		{expr: sortArr("$n", 1), want: `{"x":null}`},
		{expr: sortArr("$str", 1), code: 2942504},
		{expr: sortArr("$a", 2), code: 2942506},
		{expr: sortArr("$a", "x"), code: 2942506},
		{expr: sortArr("$a", bson.D{{Key: "k", Value: 2}}), code: 15975},
		{expr: op("$sortArray", bson.D{{Key: "input", Value: "$a"}}), code: 2942503},
		// $slice
		{expr: op("$slice", bson.A{"$a", 2}), want: `{"x":[1,2]}`},
		{expr: op("$slice", bson.A{"$a", -2}), want: `{"x":[2,3]}`},
		{expr: op("$slice", bson.A{"$a", 1, 1}), want: `{"x":[2]}`},
		{expr: op("$slice", bson.A{"$a", -2, 5}), want: `{"x":[2,3]}`},
		{expr: op("$slice", bson.A{"$a", 15, 2}), want: `{"x":[]}`},
		{expr: op("$slice", bson.A{"$n", 1}), want: `{"x":null}`},
		{expr: op("$slice", bson.A{"$a", 0, 0}), code: 28729},
		{expr: op("$slice", bson.A{"$str", 1}), code: 28724},
		// $firstN, $lastN, $maxN, $minN
		{expr: nOp("$firstN", 2, "$a"), want: `{"x":[1,2]}`},
		{expr: nOp("$firstN", 5, "$a"), want: `{"x":[1,2,3]}`},
		{expr: nOp("$lastN", 2, "$a"), want: `{"x":[2,3]}`},
		{expr: nOp("$lastN", int64(2), bson.A{nil, 1, nil}), want: `{"x":[1,null]}`},
		{expr: nOp("$maxN", 2, bson.A{nil, 2, 4, 3.5, int64(1)}), want: `{"x":[4,3.5]}`},
		{expr: nOp("$minN", 3, bson.A{nil, 2, 4, 3.5, int64(1)}), want: `{"x":[1,2,3.5]}`},
		{expr: nOp("$minN", 3, bson.A{nil}), want: `{"x":[]}`},
		{expr: nOp("$firstN", 2, "$e"), want: `{"x":[]}`},
		{expr: nOp("$firstN", 2.0, "$a"), want: `{"x":[1,2]}`},
		{expr: nOp("$firstN", 0, "$a"), code: 5787908},
		{expr: nOp("$maxN", 1.5, "$a"), code: 5787903},
		{expr: nOp("$firstN", int64(1)<<40, "$a"), want: `{"x":[1,2,3]}`},
		{expr: nOp("$lastN", 1, "$n"), code: 5788200},
		{expr: nOp("$lastN", 1, "$nope"), code: 5788200},
		{expr: nOp("$maxN", "$n", "$a"), code: 5787902},
		{expr: nOp("$minN", 1, "$str"), code: 5788200},
		{expr: op("$firstN", bson.D{{Key: "input", Value: "$a"}}), code: 5787906},
		// $allElementsTrue, $anyElementTrue
		{expr: op("$allElementsTrue", bson.A{bson.A{true, 1, "someString"}}), want: `{"x":true}`},
		{expr: op("$allElementsTrue", bson.A{bson.A{bson.A{false}}}), want: `{"x":true}`},
		{expr: op("$allElementsTrue", bson.A{bson.A{}}), want: `{"x":true}`},
		{expr: op("$allElementsTrue", bson.A{bson.A{nil, false, 0}}), want: `{"x":false}`},
		{expr: op("$anyElementTrue", bson.A{bson.A{true, false}}), want: `{"x":true}`},
		{expr: op("$anyElementTrue", bson.A{bson.A{bson.A{false}}}), want: `{"x":true}`},
		{expr: op("$anyElementTrue", bson.A{bson.A{nil, false, 0}}), want: `{"x":false}`},
		{expr: op("$anyElementTrue", bson.A{bson.A{}}), want: `{"x":false}`},
		{expr: op("$anyElementTrue", bson.A{"$n"}), code: 17041},
		{expr: op("$allElementsTrue", bson.A{"$nope"}), code: 17040},
		{expr: op("$allElementsTrue", bson.A{"$a", "$a"}), code: 16020},
	})
}
