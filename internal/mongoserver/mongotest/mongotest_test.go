package mongotest_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// A server started over the data directory of a stopped one sees its data:
// each subtest's cleanup stops its server.
func TestDataDirRestart(t *testing.T) {
	dir := t.TempDir()
	t.Run("write", func(t *testing.T) {
		_, c := mongotest.Start(t, mongotest.DataDir(dir))
		if _, err := c.Database("db").Collection("kept").InsertOne(t.Context(), bson.D{{Key: "_id", Value: 7}}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("read", func(t *testing.T) {
		_, c := mongotest.Start(t, mongotest.DataDir(dir))
		n, err := c.Database("db").Collection("kept").CountDocuments(t.Context(), bson.D{{Key: "_id", Value: 7}})
		if err != nil || n != 1 {
			t.Fatalf("after a restart over %s: %d documents, %v; want 1", dir, n, err)
		}
	})
}
