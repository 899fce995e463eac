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

// Messages worded and quoted as MongoDB's: a field name in single quotes
// (never Go's double-quoted form), and the words of MongoDB's own.
func TestMessagesAsMongoDB(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("messages")
	agInsert(t, coll, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.DateTime(0)}, {Key: "n", Value: int32(5)}})
	want := func(what string, err error, code int, msg string) {
		t.Helper()
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(code) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v; want %d %q", what, err, code, msg)
		}
	}
	agg := func(stage bson.D) error {
		cur, err := coll.Aggregate(ctx, mongo.Pipeline{stage})
		if err == nil {
			var rows []bson.M
			err = cur.All(ctx, &rows)
		}
		return err
	}
	densify := func(rng bson.D) bson.D {
		return bson.D{{Key: "$densify", Value: bson.D{{Key: "field", Value: "a"}, {Key: "range", Value: rng}}}}
	}
	want("a fractional step over dates", agg(densify(bson.D{{Key: "step", Value: 1.5}, {Key: "bounds", Value: "full"}, {Key: "unit", Value: "day"}})),
		6586400, "The step parameter in a range statement must be a whole number when densifying a date range")
	want("a date in a numeric densify", agg(densify(bson.D{{Key: "step", Value: 1}, {Key: "bounds", Value: "full"}})),
		6053600, "in the densify field 'a';")
	_, err := coll.UpdateOne(ctx, bson.D{}, bson.D{{Key: "$bit", Value: bson.D{{Key: "n", Value: bson.D{{Key: "nand", Value: 1}}}}}})
	want("$bit with an unknown operator", err, 2, "The $bit modifier only supports 'and', 'or', and 'xor', not 'nand' which is an unknown operator: {nand: 1}")
	_, err = coll.UpdateOne(ctx, bson.D{}, bson.D{{Key: "$bit", Value: bson.D{{Key: "n", Value: bson.D{{Key: "and", Value: 1.5}}}}}})
	want("$bit with a double", err, 2, "The $bit modifier field must be an Integer(32/64 bit); a 'double' is not supported here: {and: 1.5}")
}

// An update with array filters it does not use names the first of them
// in the order given, every time (MongoDB reads them in order).
func TestUnusedArrayFilterNamedInOrder(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("af")
	agInsert(t, coll, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{1, 2}}})
	filters := []any{bson.D{{Key: "p", Value: 1}}, bson.D{{Key: "q", Value: 1}}, bson.D{{Key: "r", Value: 1}}, bson.D{{Key: "s", Value: 1}}}
	for range 20 {
		_, err := coll.UpdateOne(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "a.$[q]", Value: 0}}}},
			options.UpdateOne().SetArrayFilters(filters))
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(9) || !strings.Contains(err.Error(), "The array filter for identifier 'p' was not used in the update") {
			t.Fatalf("%v; want 9 naming 'p', the first unused filter", err)
		}
	}
}
