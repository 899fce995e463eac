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

// validationCode is the code a write error or command error carries, and
// the errInfo of a write error (the command's reply for a command error).
func validationCode(err error) (int, bson.Raw) {
	var we mongo.WriteException
	if errors.As(err, &we) && len(we.WriteErrors) > 0 {
		return we.WriteErrors[0].Code, we.WriteErrors[0].Details
	}
	var be mongo.BulkWriteException
	if errors.As(err, &be) && len(be.WriteErrors) > 0 {
		return be.WriteErrors[0].Code, be.WriteErrors[0].Details
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return int(ce.Code), ce.Raw
	}
	return 0, nil
}

// A $jsonSchema validator refuses what fails it on insert, update, replace,
// upsert and findAndModify, with 121 and errInfo naming the document and
// the rules it fails; nothing refused is stored; bypassDocumentValidation
// lets a write through.
func TestValidatorRefusesWrites(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	schema := bson.D{{Key: "$jsonSchema", Value: bson.D{
		{Key: "bsonType", Value: "object"},
		{Key: "required", Value: bson.A{"name", "age"}},
		{Key: "properties", Value: bson.D{
			{Key: "name", Value: bson.D{{Key: "bsonType", Value: "string"}}},
			{Key: "age", Value: bson.D{{Key: "bsonType", Value: "int"}, {Key: "minimum", Value: 0}}},
		}},
	}}}
	if err := db.CreateCollection(ctx, "people", options.CreateCollection().SetValidator(schema)); err != nil {
		t.Fatal(err)
	}
	people := db.Collection("people")
	if _, err := people.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "Ada"}, {Key: "age", Value: int32(36)}}); err != nil {
		t.Fatalf("a valid document: %v", err)
	}
	_, err := people.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}, {Key: "name", Value: "Bob"}})
	code, info := validationCode(err)
	if code != 121 {
		t.Fatalf("insert without age: %v; want DocumentValidationFailure (121)", err)
	}
	if id := info.Lookup("failingDocumentId"); id.Type != bson.TypeInt32 || id.Int32() != 2 {
		t.Errorf("errInfo.failingDocumentId: %v", info)
	}
	details := info.Lookup("details").String()
	if !strings.Contains(details, `"operatorName": "$jsonSchema"`) || !strings.Contains(details, `"missingProperties": ["age"]`) {
		t.Errorf("errInfo.details names neither $jsonSchema nor the missing age: %s", details)
	}
	refused := []struct {
		name string
		run  func() error
	}{
		{"updateOne $set age -1", func() error {
			_, err := people.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "age", Value: int32(-1)}}}})
			return err
		}},
		{"updateOne $unset name", func() error {
			_, err := people.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "name", Value: ""}}}})
			return err
		}},
		{"replaceOne without age", func() error {
			_, err := people.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "name", Value: "Ada"}})
			return err
		}},
		{"upsert of a document without name", func() error {
			_, err := people.UpdateOne(ctx, bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "$set", Value: bson.D{{Key: "age", Value: int32(5)}}}}, options.UpdateOne().SetUpsert(true))
			return err
		}},
		{"findOneAndUpdate age to a string", func() error {
			return people.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "age", Value: "old"}}}}).Err()
		}},
		{"insertMany with one bad document", func() error {
			_, err := people.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 4}, {Key: "name", Value: "Cy"}, {Key: "age", Value: int32(4)}}, bson.D{{Key: "_id", Value: 5}, {Key: "name", Value: 5}, {Key: "age", Value: int32(5)}}})
			return err
		}},
	}
	for _, r := range refused {
		if code, _ := validationCode(r.run()); code != 121 {
			t.Errorf("%s: code %d; want 121", r.name, code)
		}
	}
	var got []bson.M
	cur, err := people.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil || cur.All(ctx, &got) != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0]["age"] != int32(36) || got[0]["name"] != "Ada" || got[1]["_id"] != int32(4) {
		t.Errorf("after the refused writes the collection holds %v; want Ada unchanged and _id 4", got)
	}
	if _, err := people.InsertOne(ctx, bson.D{{Key: "_id", Value: 6}}, options.InsertOne().SetBypassDocumentValidation(true)); err != nil {
		t.Errorf("insert with bypassDocumentValidation: %v", err)
	}
}

// A validator added by collMod applies to later writes; level moderate
// lets a document that already failed be updated, strict does not; action
// warn and level off let every write through; bad options are refused.
func TestValidatorLevelsAndActions(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	items := db.Collection("items")
	if _, err := items.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "qty", Value: -5}}, bson.D{{Key: "_id", Value: 2}, {Key: "qty", Value: 5}}}); err != nil {
		t.Fatal(err)
	}
	collMod := func(opts ...bson.E) error {
		return db.RunCommand(ctx, append(bson.D{{Key: "collMod", Value: "items"}}, opts...)).Err()
	}
	setQty := func(id, qty int) int {
		_, err := items.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "qty", Value: qty}}}})
		code, _ := validationCode(err)
		return code
	}
	if err := collMod(bson.E{Key: "validator", Value: bson.D{{Key: "qty", Value: bson.D{{Key: "$gte", Value: 0}}}}}); err != nil {
		t.Fatal(err)
	}
	if code := setQty(1, -6); code != 121 {
		t.Errorf("strict: an update of a failing document to a failing one: code %d; want 121", code)
	}
	if err := collMod(bson.E{Key: "validationLevel", Value: "moderate"}); err != nil {
		t.Fatal(err)
	}
	if code := setQty(1, -7); code != 0 {
		t.Errorf("moderate: an update of a document that already failed: code %d; want it written", code)
	}
	if code := setQty(2, -1); code != 121 {
		t.Errorf("moderate: an update of a valid document to a failing one: code %d; want 121", code)
	}
	if _, err := items.InsertOne(ctx, bson.D{{Key: "_id", Value: 3}, {Key: "qty", Value: -1}}); err == nil {
		t.Error("moderate: an insert of a failing document was written")
	}
	if err := collMod(bson.E{Key: "validationAction", Value: "warn"}); err != nil {
		t.Fatal(err)
	}
	if code := setQty(2, -2); code != 0 {
		t.Errorf("warn: code %d; want the write through", code)
	}
	if err := collMod(bson.E{Key: "validationAction", Value: "error"}, bson.E{Key: "validationLevel", Value: "off"}); err != nil {
		t.Fatal(err)
	}
	if code := setQty(2, -3); code != 0 {
		t.Errorf("off: code %d; want the write through", code)
	}
	for _, bad := range []struct {
		opt  bson.E
		code int
	}{
		{bson.E{Key: "validationLevel", Value: "sometimes"}, 2},
		{bson.E{Key: "validationAction", Value: "shout"}, 2},
		{bson.E{Key: "validator", Value: 5}, 14},
		{bson.E{Key: "validator", Value: bson.D{{Key: "$where", Value: "true"}}}, 72},
		{bson.E{Key: "validator", Value: bson.D{{Key: "qty", Value: bson.D{{Key: "$bogus", Value: 1}}}}}, 2},
	} {
		if code, _ := validationCode(collMod(bad.opt)); code != bad.code {
			t.Errorf("collMod %v: code %d; want %d", bad.opt, code, bad.code)
		}
	}
	err := db.CreateCollection(ctx, "other", options.CreateCollection().SetValidator(bson.D{{Key: "$where", Value: "true"}}))
	if code, _ := validationCode(err); code != 72 {
		t.Errorf("create with a $where validator: %v; want 72", err)
	}
	if names, _ := db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: "other"}}); len(names) != 0 {
		t.Errorf("a refused create made %v", names)
	}
}

// A validator is kept in the data directory: after a restart it still
// refuses what fails it.
func TestValidatorSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	func() {
		c, srv, st := serveUnmanaged(t, dir)
		defer func() { _ = c.Disconnect(ctx); srv.Shutdown(0); _ = st.Close() }()
		if err := c.Database("app").CreateCollection(ctx, "users", options.CreateCollection().SetValidator(bson.D{{Key: "email", Value: bson.D{{Key: "$type", Value: "string"}}}})); err != nil {
			t.Fatal(err)
		}
	}()
	c, _ := serve(t, dir)
	_, err := c.Database("app").Collection("users").InsertOne(ctx, bson.D{{Key: "email", Value: 42}})
	if code, _ := validationCode(err); code != 121 {
		t.Errorf("after a restart, an insert failing the validator: %v; want 121", err)
	}
}

// $jsonSchema's items in its array (tuple) form with additionalItems, as
// MongoDB's items.js and additional_items.js check them: each schema
// applies at its position; additionalItems (false, or a schema) to the
// elements past the tuple, and to nothing when items is a schema or
// absent.
func TestJSONSchemaItemsTuple(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("schema_items")
	for _, c := range []struct {
		schema, doc string
		want        bool
	}{
		{`{"items": [{"type": "number"}], "additionalItems": false}`, `{}`, true},
		{`{"properties": {"a": {"items": [{"minimum": 0}]}}}`, `{"a": -1}`, true},
		{`{"properties": {"a": {"items": [{"minimum": 0}]}}}`, `{"a": [-1]}`, false},
		{`{"properties": {"a": {"items": [{"minimum": 0}]}}}`, `{"a": [1, -1]}`, true},
		{`{"properties": {"a": {"items": [{"maxLength": 1}, {"maxLength": 2}]}}}`, `{"a": ["1", "12", "123"]}`, true},
		{`{"properties": {"a": {"items": [{"maxLength": 1}, {"maxLength": 2}]}}}`, `{"a": ["12"]}`, false},
		{`{"properties": {"a": {"items": [{"maxLength": 1}, {"maxLength": 2}]}}}`, `{"a": ["1", "123"]}`, false},
		{`{"properties": {"a": {"items": []}}}`, `{"a": [1, "foo", {}]}`, true},
		{`{"properties": {"a": {"items": {"minimum": 0}}}}`, `{"a": [1, -1]}`, false},
		{`{"properties": {"a": {"additionalItems": false}}}`, `{"a": [1, 2, 3]}`, true},
		{`{"properties": {"a": {"items": {}, "additionalItems": false}}}`, `{"a": [1, 2, 3]}`, true},
		{`{"properties": {"a": {"items": [{"type": "number"}, {"type": "string"}], "additionalItems": false}}}`, `{"a": [229, "West 43rd"]}`, true},
		{`{"properties": {"a": {"items": [{"type": "number"}, {"type": "string"}], "additionalItems": false}}}`, `{"a": [229]}`, true},
		{`{"properties": {"a": {"items": [{"type": "number"}, {"type": "string"}], "additionalItems": false}}}`, `{"a": [229, "West 43rd", "Street"]}`, false},
		{`{"properties": {"a": {"items": [{"type": "number"}, {"type": "string"}], "additionalItems": true}}}`, `{"a": [229, "West 43rd", "Street"]}`, true},
		{`{"properties": {"a": {"items": [{"type": "number"}, {"type": "string"}], "additionalItems": {"type": "object"}}}}`, `{"a": [229, "West 43rd", "Street"]}`, false},
		{`{"properties": {"a": {"items": [{"type": "number"}, {"type": "string"}], "additionalItems": {"type": "object"}}}}`, `{"a": [229, "West 43rd", {}]}`, true},
		{`{"properties": {"a": {"items": [{"type": "number"}], "additionalItems": false}}}`, `{"a": []}`, true},
	} {
		if _, err := coll.DeleteMany(ctx, bson.D{}); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.InsertOne(ctx, ext(t, c.doc)); err != nil {
			t.Fatal(err)
		}
		n, err := coll.CountDocuments(ctx, bson.D{{Key: "$jsonSchema", Value: ext(t, c.schema)}})
		if err != nil {
			t.Errorf("%s: %v", c.schema, err)
		} else if (n == 1) != c.want {
			t.Errorf("%s matches %s = %v, want %v", c.schema, c.doc, n == 1, c.want)
		}
	}
	for _, schema := range []string{`{"items": 1}`, `{"items": "true"}`, `{"items": [1]}`, `{"additionalItems": 1}`, `{"additionalItems": "true"}`} {
		_, err := coll.CountDocuments(ctx, bson.D{{Key: "$jsonSchema", Value: ext(t, schema)}})
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(14) {
			t.Errorf("%s: %v; want TypeMismatch (14)", schema, err)
		}
	}
}
