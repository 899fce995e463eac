package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// The count command's skip and limit: skip a non-negative number (51024
// for a negative one), limit any number (a negative one counts as its
// absolute value), both of a numeric type (14); and its query under the
// command's collation.
func TestCountArgs(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("d")
	agInsert(t, db.Collection("cnt"), bson.D{{Key: "s", Value: "a"}}, bson.D{{Key: "s", Value: "A"}}, bson.D{{Key: "s", Value: "b"}})
	count := func(extra ...bson.E) (int32, error) {
		var r struct {
			N int32 `bson:"n"`
		}
		cmd := append(bson.D{{Key: "count", Value: "cnt"}}, extra...)
		err := db.RunCommand(ctx, cmd).Decode(&r)
		return r.N, err
	}
	for _, c := range []struct {
		name  string
		extra []bson.E
		want  int32
	}{
		{"skip", []bson.E{{Key: "skip", Value: 1}}, 2},
		{"limit", []bson.E{{Key: "limit", Value: 2}}, 2},
		{"a negative limit", []bson.E{{Key: "limit", Value: -2}}, 2},
		{"skip and limit with a query", []bson.E{{Key: "query", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$gte", Value: "a"}}}}}, {Key: "skip", Value: int64(1)}, {Key: "limit", Value: 1.0}}, 1},
		{"a null skip", []bson.E{{Key: "skip", Value: nil}}, 3},
		{"a collation", []bson.E{{Key: "query", Value: bson.D{{Key: "s", Value: "a"}}}, {Key: "collation", Value: bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}}}, 2},
	} {
		if n, err := count(c.extra...); err != nil || n != c.want {
			t.Errorf("%s: %d, %v; want %d", c.name, n, err, c.want)
		}
	}
	for _, c := range []struct {
		name  string
		extra []bson.E
		code  int
		msg   string
	}{
		{"a negative skip", []bson.E{{Key: "skip", Value: -1}}, 51024, "BSON field 'skip' value must be >= 0, actual value '-1'"},
		{"a negative skip with a query", []bson.E{{Key: "query", Value: bson.D{{Key: "s", Value: "a"}}}, {Key: "skip", Value: int64(-5)}}, 51024, "actual value '-5'"},
		{"a string skip", []bson.E{{Key: "skip", Value: "1"}}, 14, "BSON field 'count.skip' is the wrong type 'string'"},
		{"a document limit", []bson.E{{Key: "limit", Value: bson.D{}}}, 14, "BSON field 'count.limit' is the wrong type 'object'"},
		{"a boolean limit", []bson.E{{Key: "limit", Value: true}}, 14, "BSON field 'count.limit' is the wrong type 'bool'"},
	} {
		_, err := count(c.extra...)
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(c.code) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v; want %d %q", c.name, err, c.code, c.msg)
		}
	}
}
