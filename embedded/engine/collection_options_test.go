package engine

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// listCollections shows a capped collection's size (rounded up to 256
// bytes) and max as MongoDB keeps them: 32-bit integers when they fit,
// whatever numeric type the create sent; a size past 32 bits stays 64-bit.
func TestCappedOptionsAsMongoDBKeepsThem(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	// The driver sends size and max as 64-bit integers.
	if err := db.CreateCollection(ctx, "a", options.CreateCollection().SetCapped(true).SetSizeInBytes(1000).SetMaxDocuments(100)); err != nil {
		t.Fatal(err)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "create", Value: "b"}, {Key: "capped", Value: true}, {Key: "size", Value: 5.0e9}}).Err(); err != nil {
		t.Fatal(err)
	}
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bson.Raw{}
	for _, s := range specs {
		got[s.Name] = s.Options
	}
	for _, tc := range []struct {
		coll, key string
		typ       bson.Type
		want      int64
	}{
		{"a", "size", bson.TypeInt32, 1024},
		{"a", "max", bson.TypeInt32, 100},
		{"b", "size", bson.TypeInt64, 5_000_000_000},
	} {
		v, err := got[tc.coll].LookupErr(tc.key)
		n, ok := v.AsInt64OK()
		if err != nil || v.Type != tc.typ || !ok || n != tc.want {
			t.Errorf("%s.%s = %s (%s); want %d as %s", tc.coll, tc.key, v, v.Type, tc.want, tc.typ)
		}
	}
}

// An index whose key pattern equals an existing one's by value ({a: 1.0}
// and {a: 1}) under the same name is the same index: createIndexes
// answers without creating one, as MongoDB does.
func TestCreateIndexNumericallyEqualKey(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	create := func(v any) (bson.M, error) {
		var out bson.M
		err := db.RunCommand(ctx, bson.D{{Key: "createIndexes", Value: "files"}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: bson.D{{Key: "filename", Value: v}, {Key: "uploadDate", Value: v}}}, {Key: "name", Value: "filename_1_uploadDate_1"}},
		}}}).Decode(&out)
		return out, err
	}
	if _, err := create(1.0); err != nil {
		t.Fatal(err)
	}
	out, err := create(int32(1))
	if err != nil {
		t.Fatalf("the same pattern with int32 values: %v", err)
	}
	if out["numIndexesBefore"] != out["numIndexesAfter"] {
		t.Errorf("reply %v; want no index created", out)
	}
	if _, err := create(int32(-1)); err == nil {
		t.Error("another direction under the same name: no error; want IndexKeySpecsConflict")
	}
}
