package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A time-series collection is listed as one with its options filled in,
// refuses a document without a date in its time field (nothing written),
// is queried as any collection, and with expireAfterSeconds loses its old
// documents when the TTL monitor runs, as a TTL index's collection does.
func TestTimeSeriesAndTTL(t *testing.T) {
	c, srv, st := serveUnmanaged(t, "")
	defer func() { _ = c.Disconnect(context.Background()); srv.Shutdown(0); _ = st.Close() }()
	ctx := context.Background()
	db := c.Database("app")
	ts := options.TimeSeries().SetTimeField("at").SetMetaField("sensor").SetGranularity("minutes")
	if err := db.CreateCollection(ctx, "readings", options.CreateCollection().SetTimeSeriesOptions(ts).SetExpireAfterSeconds(3600)); err != nil {
		t.Fatal(err)
	}
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "readings"}})
	if err != nil || len(specs) != 1 || specs[0].Type != "timeseries" {
		t.Fatalf("listCollections: %+v, %v; want type timeseries", specs, err)
	}
	if got := specs[0].Options.Lookup("timeseries", "bucketMaxSpanSeconds"); got.Type != bson.TypeInt32 || got.Int32() != 86400 {
		t.Errorf("options.timeseries: %s; want bucketMaxSpanSeconds 86400 for minutes", specs[0].Options)
	}
	readings := db.Collection("readings")
	now := time.Now()
	if _, err := readings.InsertMany(ctx, []any{
		bson.D{{Key: "at", Value: now}, {Key: "sensor", Value: "a"}, {Key: "v", Value: 1}},
		bson.D{{Key: "at", Value: now.Add(-2 * time.Hour)}, {Key: "sensor", Value: "a"}, {Key: "v", Value: 2}},
	}); err != nil {
		t.Fatal(err)
	}
	var se mongo.ServerError
	for _, bad := range []bson.D{{{Key: "sensor", Value: "b"}}, {{Key: "at", Value: "yesterday"}}} {
		if _, err := readings.InsertOne(ctx, bad); !errors.As(err, &se) || !se.HasErrorCode(2) {
			t.Errorf("insert of %v: %v; want BadValue naming the time field", bad, err)
		}
	}
	if n, _ := readings.CountDocuments(ctx, bson.D{{Key: "sensor", Value: "a"}}); n != 2 {
		t.Errorf("count by meta field: %d; want 2", n)
	}
	err = db.CreateCollection(ctx, "plain", options.CreateCollection().SetExpireAfterSeconds(10))
	if !errors.As(err, &se) || !se.HasErrorCode(72) {
		t.Errorf("expireAfterSeconds on a plain collection: %v; want 72", err)
	}
	events := db.Collection("events")
	if _, err := events.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "created", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(60)}); err != nil {
		t.Fatal(err)
	}
	if _, err := events.InsertMany(ctx, []any{bson.D{{Key: "created", Value: now}}, bson.D{{Key: "created", Value: now.Add(-time.Hour)}}, bson.D{{Key: "created", Value: "not a date"}}}); err != nil {
		t.Fatal(err)
	}
	srv.expire(time.Now())
	if n, _ := readings.CountDocuments(ctx, bson.D{}); n != 1 {
		t.Errorf("time-series after the TTL monitor: %d documents; want the recent one", n)
	}
	if n, _ := events.CountDocuments(ctx, bson.D{}); n != 2 {
		t.Errorf("TTL index's collection after the TTL monitor: %d documents; want the recent one and the one without a date", n)
	}
}
