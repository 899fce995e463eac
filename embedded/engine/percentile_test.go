package engine

import (
	"fmt"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// groupValue is the field p of the single group $group makes of coll
// with the accumulator acc, printed.
func groupValue(t *testing.T, coll *mongo.Collection, acc bson.D) string {
	t.Helper()
	rows := aggregateM(t, coll, mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "p", Value: acc}}}}})
	if len(rows) != 1 {
		t.Fatalf("%d groups", len(rows))
	}
	return fmt.Sprint(rows[0]["p"])
}

func pct(p any, input any, method string) bson.D {
	return bson.D{{Key: "$percentile", Value: bson.D{{Key: "p", Value: p}, {Key: "input", Value: input}, {Key: "method", Value: method}}}}
}

// $percentile and $median as MongoDB documents their results: a value of
// the input of rank ceil(p*n) (exact for the small data sets whose every
// value the approximation keeps), non-numeric values and NaN ignored,
// null when nothing is numeric; "continuous" interpolates.
func TestPercentile(t *testing.T) {
	c, _ := serve(t, "")
	db := c.Database("d")
	mixed := db.Collection("mixed")
	agInsert(t, mixed, bson.D{{Key: "x", Value: 0}}, bson.D{{Key: "x", Value: "non-numeric"}}, bson.D{{Key: "x", Value: int64(1)}},
		bson.D{{Key: "no_x", Value: 0}}, bson.D{{Key: "x", Value: 2.0}}, bson.D{{Key: "x", Value: math.NaN()}})
	none := db.Collection("none")
	agInsert(t, none, bson.D{{Key: "x", Value: "s"}}, bson.D{{Key: "x", Value: nil}}, bson.D{{Key: "x", Value: bson.A{42, 43}}}, bson.D{{Key: "x", Value: math.NaN()}})
	three := db.Collection("three")
	agInsert(t, three, bson.D{{Key: "x", Value: 10}}, bson.D{{Key: "x", Value: 5}}, bson.D{{Key: "x", Value: mustDecimal(t, "27")}})
	scores := db.Collection("scores")
	for _, s := range []int{62, 61, 60, 63, 64, 71, 80, 90, 55, 48} {
		agInsert(t, scores, bson.D{{Key: "x", Value: s}})
	}
	for _, tc := range []struct {
		name string
		coll *mongo.Collection
		acc  bson.D
		want string
	}{
		{"non-numeric ignored", mixed, pct(bson.A{0.5}, "$x", "approximate"), "[1]"},
		{"nothing numeric", none, pct(bson.A{0.5, 0.9}, "$x", "approximate"), "[<nil> <nil>]"},
		{"minimum", three, pct(bson.A{0}, "$x", "approximate"), "[5]"},
		{"maximum", three, pct(bson.A{1.0}, "$x", "approximate"), "[27]"},
		{"several, in the order asked", mixed, pct(bson.A{0.5, 0.9, 0.1}, "$x", "approximate"), "[1 2 0]"},
		{"p from an expression", mixed, pct(bson.D{{Key: "$concatArrays", Value: bson.A{bson.A{0.1, 0.5}, bson.A{0.9}}}}, "$x", "approximate"), "[0 1 2]"},
		{"input an expression", three, pct(bson.A{0.5, 0.9, 0.1}, bson.D{{Key: "$add", Value: bson.A{42, "$x"}}}, "approximate"), "[52 69 47]"},
		{"discrete", scores, pct(bson.A{0.5, 0.75, 0.9, 0.95}, "$x", "discrete"), "[62 71 80 90]"},
		{"continuous", scores, pct(bson.A{0.5, 0.75, 0.9}, "$x", "continuous"), "[62.5 69.25 81]"},
		{"median", scores, bson.D{{Key: "$median", Value: bson.D{{Key: "input", Value: "$x"}, {Key: "method", Value: "approximate"}}}}, "62"},
		{"median of nothing", none, bson.D{{Key: "$median", Value: bson.D{{Key: "input", Value: "$x"}, {Key: "method", Value: "approximate"}}}}, "<nil>"},
	} {
		if got := groupValue(t, tc.coll, tc.acc); got != tc.want {
			t.Errorf("%s: %s; want %s", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		acc  bson.D
		code int32
	}{
		{"not an object", bson.D{{Key: "$percentile", Value: 0.5}}, 7429703},
		{"$median not an object", bson.D{{Key: "$median", Value: "x"}}, 7436100},
		{"no p", bson.D{{Key: "$percentile", Value: bson.D{{Key: "input", Value: "$x"}, {Key: "method", Value: "approximate"}}}}, 40414},
		{"no input", bson.D{{Key: "$percentile", Value: bson.D{{Key: "p", Value: bson.A{0.5}}, {Key: "method", Value: "approximate"}}}}, 40414},
		{"no method", bson.D{{Key: "$percentile", Value: bson.D{{Key: "p", Value: bson.A{0.5}}, {Key: "input", Value: "$x"}}}}, 40414},
		{"an unknown field", bson.D{{Key: "$percentile", Value: bson.D{{Key: "p", Value: bson.A{0.5}}, {Key: "input", Value: "$x"}, {Key: "method", Value: "approximate"}, {Key: "extras", Value: 42}}}}, 40415},
		{"p a number", pct(0.5, "$x", "approximate"), 7750301},
		{"p empty", pct(bson.A{}, "$x", "approximate"), 7750301},
		{"p a string", pct(bson.A{0.5, "foo"}, "$x", "approximate"), 7750302},
		{"p above 1", pct(bson.A{0.5, 10}, "$x", "approximate"), 7750302},
		{"p NaN", pct(bson.A{math.NaN()}, "$x", "approximate"), 7750302},
		{"p infinite", pct(bson.A{math.Inf(1)}, "$x", "approximate"), 7750302},
		{"p a field", pct(bson.A{"$x"}, "$x", "approximate"), 7750302},
		{"method a number", pct(bson.A{0.5}, "$x", "42"), 2},
		{"method unknown", pct(bson.A{0.5}, "$x", "fancy"), 2},
		{"$median with p", bson.D{{Key: "$median", Value: bson.D{{Key: "p", Value: bson.A{0.5}}, {Key: "input", Value: "$x"}, {Key: "method", Value: "approximate"}}}}, 40415},
	} {
		p := mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "p", Value: tc.acc}}}}}
		if got := agErrCode(t, scores, p); got != tc.code {
			t.Errorf("%s: code %d; want %d", tc.name, got, tc.code)
		}
	}
}
