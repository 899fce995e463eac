package engine

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// insert, update and delete with no statements are refused as MongoDB
// refuses them: InvalidLength (16), naming the bounds and the count.
func TestWriteBatchOfNothing(t *testing.T) {
	c, _ := serve(t, "")
	db := c.Database("app")
	for _, cmd := range []bson.D{
		{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{}}},
		{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{}}},
		{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{}}},
	} {
		err := db.RunCommand(context.Background(), cmd).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Name != "InvalidLength" || ce.Message != "Write batch sizes must be between 1 and 100000. Got 0 operations." {
			t.Errorf("%s with no statements: %v; want InvalidLength", cmd[0].Key, err)
		}
	}
}
