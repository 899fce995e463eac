package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Search index commands and search stages answer SearchNotEnabled (31082)
// with a message naming Atlas, as a MongoDB without search does, so that
// code falling back from search on that code works here too.
func TestSearchNotEnabled(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	coll := db.Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error) {
		t.Helper()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != 31082 || ce.Name != "SearchNotEnabled" || !strings.Contains(ce.Message, "Atlas") {
			t.Errorf("%s: %v; want SearchNotEnabled (31082) naming Atlas", what, err)
		}
	}
	check("createSearchIndexes", db.RunCommand(ctx, bson.D{{Key: "createSearchIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{bson.D{{Key: "definition", Value: bson.D{}}}}}}).Err())
	check("dropSearchIndex", db.RunCommand(ctx, bson.D{{Key: "dropSearchIndex", Value: "c"}, {Key: "name", Value: "x"}}).Err())
	for _, st := range []string{"$search", "$searchMeta", "$vectorSearch", "$listSearchIndexes"} {
		_, err := coll.Aggregate(ctx, bson.A{bson.D{{Key: st, Value: bson.D{}}}})
		check(st, err)
	}
}
