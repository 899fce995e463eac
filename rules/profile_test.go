package rules

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// What the detected profile says the server can do is what the server
// does: each capability is tried on the embedded server, and the profile
// must claim exactly the ones that work.
func TestDetectedProfileMatchesTheServer(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	p, err := Detect(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	if p != MongoDB || p.IsFerretDB() || p.SerialWrites() || p.SortsInMemory() {
		t.Fatalf("Detect = %s (ferretDB %v, serial %v, in memory %v); want the MongoDB profile", p.Name(), p.IsFerretDB(), p.SerialWrites(), p.SortsInMemory())
	}
	coll := client.Database("oidkit").Collection("caps")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: bson.NewObjectID()}}); err != nil {
		t.Fatal(err)
	}
	works := func(stage bson.D) bool {
		cur, err := coll.Aggregate(ctx, mongo.Pipeline{stage})
		if err != nil {
			return false
		}
		defer cur.Close(ctx)
		var docs []bson.Raw
		return cur.All(ctx, &docs) == nil
	}
	if got := works(bson.D{{Key: "$project", Value: bson.D{{Key: "t", Value: bson.D{{Key: "$toDate", Value: "$_id"}}}}}}); got != p.HasToDate() {
		t.Errorf("$toDate works: %v; profile HasToDate %v", got, p.HasToDate())
	}
	if got := works(bson.D{{Key: "$sample", Value: bson.D{{Key: "size", Value: 1}}}}); got != p.HasSample() {
		t.Errorf("$sample works: %v; profile HasSample %v", got, p.HasSample())
	}
	d, _ := bson.ParseDecimal128("1.5")
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "dec"}, {Key: "v", Value: d}})
	if got := err == nil; got != p.StoresDecimal128() {
		t.Errorf("Decimal128 stored: %v (%v); profile StoresDecimal128 %v", got, err, p.StoresDecimal128())
	}
	missing := client.Database("oidkit").Collection("missing")
	if _, err := missing.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := missing.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	_, err = missing.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}})
	if got := mongo.IsDuplicateKeyError(err); got != p.IndexesMissingFieldsAsNull() {
		t.Errorf("second document without the unique key refused: %v (%v); profile IndexesMissingFieldsAsNull %v", got, err, p.IndexesMissingFieldsAsNull())
	}
}

// The zero Profile and MongoDB's claim everything MongoDB can do.
func TestMongoDBProfileCapabilities(t *testing.T) {
	for _, p := range []Profile{{}, MongoDB, ProfileOf(false)} {
		if p.IsFerretDB() || p.SerialWrites() || p.SortsInMemory() || !p.QueriesUseIndexes() || !p.IndexesMissingFieldsAsNull() ||
			!p.HasToDate() || !p.HasSample() || !p.StoresDecimal128() {
			t.Errorf("profile %q: a capability of MongoDB is missing", p.Name())
		}
	}
	if ProfileOf(true) != FerretDB {
		t.Errorf("ProfileOf(true) = %s; want FerretDB", ProfileOf(true).Name())
	}
	if ProfileOfBuildInfo(map[string]any{"version": "7.0.77", "ferretdbFeatures": map[string]any{}}) != FerretDB || ProfileOfBuildInfo(map[string]any{"version": "8.0.0"}) != MongoDB {
		t.Error("ProfileOfBuildInfo does not tell FerretDB (ferretdbFeatures) from MongoDB")
	}
}

// FerretDB's profile lacks every capability that its server lacks.
func TestFerretDBProfileCapabilities(t *testing.T) {
	p := FerretDB
	if !p.IsFerretDB() || !p.SerialWrites() || !p.SortsInMemory() || p.QueriesUseIndexes() || p.IndexesMissingFieldsAsNull() ||
		p.HasToDate() || p.HasSample() || p.StoresDecimal128() {
		t.Errorf("profile %q: claims a capability its server lacks, or lacks one it has", p.Name())
	}
}
