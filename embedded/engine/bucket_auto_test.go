package engine

import (
	"fmt"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// bucketRows runs $bucketAuto on coll and prints each bucket as
// [min,max)count.
func bucketRows(t *testing.T, coll *mongo.Collection, spec bson.D) string {
	t.Helper()
	s := ""
	for _, r := range aggregateM(t, coll, mongo.Pipeline{{{Key: "$bucketAuto", Value: spec}}}) {
		lo, hi := bucketBounds(r)
		s += fmt.Sprintf("[%v,%v)%v ", lo, hi, r["count"])
	}
	return s
}

// granularityCases checks $bucketAuto by field into n buckets with each
// granularity against the buckets it should give.
func granularityCases(t *testing.T, coll *mongo.Collection, field string, n int, cases [][2]string) {
	t.Helper()
	for _, tc := range cases {
		spec := bson.D{{Key: "groupBy", Value: field}, {Key: "buckets", Value: n}, {Key: "granularity", Value: tc[0]}}
		if got := bucketRows(t, coll, spec); got != tc[1] {
			t.Errorf("%s: %s; want %s", tc[0], got, tc[1])
		}
	}
}

// bucketBounds is a bucket's _id.min and _id.max.
func bucketBounds(r bson.M) (lo, hi any) {
	id, _ := r["_id"].(bson.D)
	for _, e := range id {
		switch e.Key {
		case "min":
			lo = e.Value
		case "max":
			hi = e.Value
		}
	}
	return lo, hi
}

// $bucketAuto's granularity on the manual's hundred things: each max
// rounded up to the series, taking in the documents below it.
func TestBucketAutoGranularity(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("things")
	var docs []any
	for i := range 100 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}})
	}
	agInsert(t, coll, docs...)
	granularityCases(t, coll, "$_id", 5, [][2]string{
		{"R20", "[0,20)20 [20,40)20 [40,63)23 [63,90)27 [90,100)10 "},
		{"E24", "[0,20)20 [20,43)23 [43,68)25 [68,91)23 [91,100)9 "},
		{"1-2-5", "[0,20)20 [20,50)30 [50,100)50 "},
		{"POWERSOF2", "[0,32)32 [32,64)32 [64,128)36 "},
		{"R5", "[0,25)25 [25,63)38 [63,100)37 "},
	})
	// without granularity: round(100/3) = 33 a bucket, the last taking the rest
	if got := bucketRows(t, coll, bson.D{{Key: "groupBy", Value: "$_id"}, {Key: "buckets", Value: 3}}); got != "[0,33)33 [33,66)33 [66,99)34 " {
		t.Errorf("3 buckets: %s", got)
	}
}

// Granularity over small, fractional and decimal values, and the values
// it refuses.
func TestBucketAutoGranularityValues(t *testing.T) {
	c, _ := serve(t, "")
	small := c.Database("d").Collection("small")
	agInsert(t, small, bson.D{{Key: "v", Value: 0.012}}, bson.D{{Key: "v", Value: 0.3}}, bson.D{{Key: "v", Value: 3.5}}, bson.D{{Key: "v", Value: 12.0}})
	granularityCases(t, small, "$v", 4, [][2]string{
		{"E6", "[0.01,0.015)1 [0.015,0.33)1 [0.33,4.7)1 [4.7,15)1 "},
		{"R10", "[0.01,0.0125)1 [0.0125,0.315)1 [0.315,4)1 [4,12.5)1 "},
		{"POWERSOF2", "[0.0078125,0.015625)1 [0.015625,0.5)1 [0.5,4)1 [4,16)1 "},
	})
	// all zeros in the first bucket: its max is the next value rounded down
	zeros := c.Database("d").Collection("zeros")
	agInsert(t, zeros, bson.D{{Key: "v", Value: 0}}, bson.D{{Key: "v", Value: 0}}, bson.D{{Key: "v", Value: 5}}, bson.D{{Key: "v", Value: 7}})
	if got := bucketRows(t, zeros, bson.D{{Key: "groupBy", Value: "$v"}, {Key: "buckets", Value: 2}, {Key: "granularity", Value: "R5"}}); got != "[0,4)2 [4,10)2 " {
		t.Errorf("zeros: %s", got)
	}
	// the smallest double still gets a bucket above it
	tiny := c.Database("d").Collection("tiny")
	agInsert(t, tiny, bson.D{{Key: "v", Value: 4.940656484124654e-324}})
	rows := aggregateM(t, tiny, mongo.Pipeline{{{Key: "$bucketAuto", Value: bson.D{{Key: "groupBy", Value: "$v"}, {Key: "buckets", Value: 8}, {Key: "granularity", Value: "R80"}}}}})
	if lo, hi := bucketBounds(rows[0]); len(rows) != 1 || lo != 0.0 || hi != 1.02e-321 {
		t.Errorf("near zero: %v", rows)
	}
	// a decimal keeps its type
	dec := c.Database("d").Collection("dec")
	agInsert(t, dec, bson.D{{Key: "v", Value: mustDecimal(t, "3.5")}})
	rows = aggregateM(t, dec, mongo.Pipeline{{{Key: "$bucketAuto", Value: bson.D{{Key: "groupBy", Value: "$v"}, {Key: "buckets", Value: 1}, {Key: "granularity", Value: "R5"}}}}})
	_, hi := bucketBounds(rows[0])
	if got := fmt.Sprintf("%T %v", hi, hi); got != "bson.Decimal128 4.00000000000000" && got != "bson.Decimal128 4" {
		t.Errorf("decimal max: %s", got)
	}

	bad := c.Database("d").Collection("bad")
	for _, tc := range []struct {
		name string
		doc  bson.D
		spec bson.D
		code int32
	}{
		{"a string", bson.D{{Key: "v", Value: "x"}}, nil, 40258},
		{"a missing value", bson.D{{Key: "w", Value: 1}}, nil, 40258},
		{"NaN", bson.D{{Key: "v", Value: math.NaN()}}, nil, 40259},
		{"a negative number", bson.D{{Key: "v", Value: -1}}, nil, 40260},
		{"an unknown series", bson.D{{Key: "v", Value: 1}}, bson.D{{Key: "groupBy", Value: "$v"}, {Key: "buckets", Value: 2}, {Key: "granularity", Value: "R7"}}, 40257},
		{"buckets 0", bson.D{{Key: "v", Value: 1}}, bson.D{{Key: "groupBy", Value: "$v"}, {Key: "buckets", Value: 0}}, 40243},
		{"buckets a string", bson.D{{Key: "v", Value: 1}}, bson.D{{Key: "groupBy", Value: "$v"}, {Key: "buckets", Value: "2"}}, 40241},
		{"an unknown option", bson.D{{Key: "v", Value: 1}}, bson.D{{Key: "groupBy", Value: "$v"}, {Key: "buckets", Value: 2}, {Key: "size", Value: 2}}, 40245},
		{"groupBy not a path", bson.D{{Key: "v", Value: 1}}, bson.D{{Key: "groupBy", Value: "v"}, {Key: "buckets", Value: 2}}, 40239},
		{"output not an object", bson.D{{Key: "v", Value: 1}}, bson.D{{Key: "groupBy", Value: "$v"}, {Key: "buckets", Value: 2}, {Key: "output", Value: 1}}, 40244},
	} {
		if _, err := bad.DeleteMany(t.Context(), bson.D{}); err != nil {
			t.Fatal(err)
		}
		agInsert(t, bad, tc.doc)
		spec := tc.spec
		if spec == nil {
			spec = bson.D{{Key: "groupBy", Value: "$v"}, {Key: "buckets", Value: 2}, {Key: "granularity", Value: "R10"}}
		}
		if got := agErrCode(t, bad, mongo.Pipeline{{{Key: "$bucketAuto", Value: spec}}}); got != tc.code {
			t.Errorf("%s: code %d; want %d", tc.name, got, tc.code)
		}
	}
}

// $bucket's groupBy must be a path or an expression object, and its
// output an object.
func TestBucketSpecErrors(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("b")
	agInsert(t, coll, bson.D{{Key: "v", Value: 1}})
	for _, tc := range []struct {
		name string
		spec bson.D
		code int32
	}{
		{"groupBy not a path", bson.D{{Key: "groupBy", Value: "v"}, {Key: "boundaries", Value: bson.A{0, 5}}}, 40202},
		{"output not an object", bson.D{{Key: "groupBy", Value: "$v"}, {Key: "boundaries", Value: bson.A{0, 5}}, {Key: "output", Value: "n"}}, 40196},
	} {
		if got := agErrCode(t, coll, mongo.Pipeline{{{Key: "$bucket", Value: tc.spec}}}); got != tc.code {
			t.Errorf("%s: code %d; want %d", tc.name, got, tc.code)
		}
	}
	rows := aggregateM(t, coll, mongo.Pipeline{{{Key: "$bucket", Value: bson.D{{Key: "groupBy", Value: bson.D{{Key: "$multiply", Value: bson.A{"$v", 2}}}},
		{Key: "boundaries", Value: bson.A{0, 5}}}}}})
	if len(rows) != 1 || rows[0]["count"] != int32(1) {
		t.Errorf("groupBy an expression: %v", rows)
	}
}
