package engine

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// $fill as MongoDB rewrites it: methods by partitionByFields and sortBy
// (the output sorted as $setWindowFields sorts it), values filled after,
// dates as the line's x, and its refusals.
func TestFillForms(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("readings")
	t0 := time.Date(2021, 3, 8, 9, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	agInsert(t, coll,
		bson.D{{Key: "site", Value: "b"}, {Key: "unit", Value: 1}, {Key: "t", Value: at(0)}, {Key: "temp", Value: 20}, {Key: "note", Value: "x"}},
		bson.D{{Key: "site", Value: "a"}, {Key: "unit", Value: 1}, {Key: "t", Value: at(4)}, {Key: "temp", Value: 18.0}},
		bson.D{{Key: "site", Value: "a"}, {Key: "unit", Value: 1}, {Key: "t", Value: at(0)}, {Key: "temp", Value: 10}},
		bson.D{{Key: "site", Value: "a"}, {Key: "unit", Value: 1}, {Key: "t", Value: at(1)}, {Key: "temp", Value: nil}},
		bson.D{{Key: "site", Value: "a"}, {Key: "unit", Value: 2}, {Key: "t", Value: at(2)}},
		bson.D{{Key: "site", Value: "a"}, {Key: "unit", Value: 1}, {Key: "t", Value: at(3)}},
		bson.D{{Key: "site", Value: "b"}, {Key: "unit", Value: 1}, {Key: "t", Value: at(1)}, {Key: "note", Value: nil}},
	)
	spec := func(method string) bson.D {
		return bson.D{{Key: "partitionByFields", Value: bson.A{"site", "unit"}}, {Key: "sortBy", Value: bson.D{{Key: "t", Value: 1}}},
			{Key: "output", Value: bson.D{{Key: "temp", Value: bson.D{{Key: "method", Value: method}}}, {Key: "note", Value: bson.D{{Key: "value", Value: "none"}}}}}}
	}
	show := func(rows []bson.M) string {
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprintf("%v%v@%v=%v/%v", r["site"], r["unit"], r["t"].(bson.DateTime).Time().UTC().Minute(), r["temp"], r["note"]))
		}
		return fmt.Sprint(out)
	}
	if got := show(aggregateM(t, coll, mongo.Pipeline{{{Key: "$fill", Value: spec("linear")}}})); got != "[a1@0=10/none a1@1=12/none a1@3=16/none a1@4=18/none a2@2=<nil>/none b1@0=20/x b1@1=<nil>/none]" {
		t.Errorf("linear: %s", got)
	}
	if got := show(aggregateM(t, coll, mongo.Pipeline{{{Key: "$fill", Value: spec("locf")}}})); got != "[a1@0=10/none a1@1=10/none a1@3=10/none a1@4=18/none a2@2=<nil>/none b1@0=20/x b1@1=20/none]" {
		t.Errorf("locf: %s", got)
	}
	for _, tc := range []struct {
		name string
		spec bson.D
		code int32
	}{
		{"an empty output", bson.D{{Key: "output", Value: bson.D{}}}, 6050203},
		{"no output", bson.D{{Key: "sortBy", Value: bson.D{{Key: "t", Value: 1}}}}, 40414},
		{"an output not an object", bson.D{{Key: "output", Value: bson.D{{Key: "temp", Value: 1}}}}, 6050200},
		{"method and value", bson.D{{Key: "output", Value: bson.D{{Key: "temp", Value: bson.D{{Key: "method", Value: "locf"}, {Key: "value", Value: 1}}}}}}, 6050201},
		{"an unknown method", bson.D{{Key: "output", Value: bson.D{{Key: "temp", Value: bson.D{{Key: "method", Value: "cubic"}}}}}}, 6050202},
		{"partitionBy and partitionByFields", bson.D{{Key: "partitionBy", Value: "$site"}, {Key: "partitionByFields", Value: bson.A{"site"}},
			{Key: "output", Value: bson.D{{Key: "temp", Value: bson.D{{Key: "method", Value: "locf"}}}}}}, 6050204},
		{"an unknown field", bson.D{{Key: "window", Value: 1}, {Key: "output", Value: bson.D{{Key: "temp", Value: bson.D{{Key: "value", Value: 1}}}}}}, 40415},
		{"linear without sortBy", bson.D{{Key: "output", Value: bson.D{{Key: "temp", Value: bson.D{{Key: "method", Value: "linear"}}}}}}, 605001},
	} {
		if got := agErrCode(t, coll, mongo.Pipeline{{{Key: "$fill", Value: tc.spec}}}); got != tc.code {
			t.Errorf("%s: code %d; want %d", tc.name, got, tc.code)
		}
	}
}
