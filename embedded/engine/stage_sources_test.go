package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// stageCase is a pipeline and what running it gives: rows as relaxed
// extended JSON ({"rows":[...]}), or an error's code and a part of its
// message.
type stageCase struct {
	name     string
	pipeline mongo.Pipeline
	want     string
	code     int
	msg      string
}

// checkStages runs each case as an aggregate on coll, or on its database
// (aggregate: 1) when onDB.
func checkStages(t *testing.T, coll *mongo.Collection, onDB bool, cases []stageCase) {
	t.Helper()
	ctx := context.Background()
	for _, c := range cases {
		var cur *mongo.Cursor
		var err error
		if onDB {
			cur, err = coll.Database().Aggregate(ctx, c.pipeline)
		} else {
			cur, err = coll.Aggregate(ctx, c.pipeline)
		}
		rows := []bson.Raw{}
		if err == nil {
			err = cur.All(ctx, &rows)
		}
		b, _ := bson.MarshalExtJSON(bson.D{{Key: "rows", Value: rows}}, false, false)
		if c.code != 0 {
			var se mongo.ServerError
			if !errors.As(err, &se) || !se.HasErrorCode(c.code) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: got %s, %v; want error %d %q", c.name, b, err, c.code, c.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if string(b) != c.want {
			t.Errorf("%s = %s; want %s", c.name, b, c.want)
		}
	}
}

func stg(name string, arg any) bson.D { return bson.D{{Key: name, Value: arg}} }

// $unionWith's argument as MongoDB parses it: a name, or {coll, pipeline}
// where a pipeline without coll starts with $documents.
func TestUnionWithArgs(t *testing.T) {
	c, _ := serve(t, "")
	db := c.Database("d")
	coll := db.Collection("base")
	agInsert(t, coll, bson.D{{Key: "_id", Value: 1}})
	agInsert(t, db.Collection("other"), bson.D{{Key: "_id", Value: 2}})
	docs := stg("$documents", bson.A{bson.D{{Key: "x", Value: 1}}})
	checkStages(t, coll, false, []stageCase{
		{name: "a name", pipeline: mongo.Pipeline{stg("$unionWith", "other")}, want: `{"rows":[{"_id":1},{"_id":2}]}`},
		{name: "coll and pipeline", pipeline: mongo.Pipeline{stg("$unionWith", bson.D{{Key: "coll", Value: "other"}, {Key: "pipeline", Value: bson.A{stg("$project", bson.D{{Key: "_id", Value: 0}, {Key: "y", Value: "$_id"}})}}})},
			want: `{"rows":[{"_id":1},{"y":2}]}`},
		{name: "$documents without coll", pipeline: mongo.Pipeline{stg("$unionWith", bson.D{{Key: "pipeline", Value: bson.A{docs}}})}, want: `{"rows":[{"_id":1},{"x":1}]}`},
		{name: "no coll", pipeline: mongo.Pipeline{stg("$unionWith", bson.D{})}, code: 9,
			msg: "$unionWith stage without explicit collection must have a pipeline with $documents as first stage"},
		{name: "no coll, no $documents", pipeline: mongo.Pipeline{stg("$unionWith", bson.D{{Key: "pipeline", Value: bson.A{stg("$match", bson.D{})}}})}, code: 9},
		{name: "no coll, $documents not first", pipeline: mongo.Pipeline{stg("$unionWith", bson.D{{Key: "pipeline", Value: bson.A{stg("$match", bson.D{}), docs}}})}, code: 9},
		{name: "coll not a string", pipeline: mongo.Pipeline{stg("$unionWith", bson.D{{Key: "coll", Value: 5}})}, code: 14,
			msg: "BSON field '$unionWith.coll' is the wrong type 'int', expected type 'string'"},
		{name: "pipeline not an array", pipeline: mongo.Pipeline{stg("$unionWith", bson.D{{Key: "coll", Value: "other"}, {Key: "pipeline", Value: "x"}})}, code: 14,
			msg: "BSON field '$unionWith.pipeline' is the wrong type 'string', expected type 'array'"},
		{name: "unknown field", pipeline: mongo.Pipeline{stg("$unionWith", bson.D{{Key: "coll", Value: "other"}, {Key: "a", Value: 1}})}, code: 40415,
			msg: "BSON field '$unionWith.a' is an unknown field."},
		{name: "not a name or object", pipeline: mongo.Pipeline{stg("$unionWith", 5)}, code: 9,
			msg: "the $unionWith stage specification must be an object or string, but found int"},
		{name: "an empty name", pipeline: mongo.Pipeline{stg("$unionWith", "")}, code: 73},
		{name: "an empty coll", pipeline: mongo.Pipeline{stg("$unionWith", bson.D{{Key: "coll", Value: ""}})}, code: 73},
	})
}

// $facet's argument: a non-empty object of field names, each an array of
// stages, none of which $facet refuses at any depth (MongoDB's
// facet_validate_pipelines.js).
func TestFacetArgs(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("facet")
	agInsert(t, coll, bson.D{{Key: "_id", Value: 1}})
	facet := func(name string, p any) mongo.Pipeline {
		return mongo.Pipeline{stg("$facet", bson.D{{Key: name, Value: p}})}
	}
	checkStages(t, coll, false, []stageCase{
		{name: "a facet", pipeline: facet("n", bson.A{stg("$count", "n")}), want: `{"rows":[{"n":[{"n":1}]}]}`},
		{name: "no facet", pipeline: mongo.Pipeline{stg("$facet", bson.D{})}, code: 40169, msg: "the $facet specification must be a non-empty object, but found: $facet: {}"},
		{name: "not an object", pipeline: mongo.Pipeline{stg("$facet", 1)}, code: 40169},
		{name: "not an array", pipeline: facet("a", "x"), code: 40170, msg: "arguments to $facet must be arrays, a is type string"},
		{name: "a stage not an object", pipeline: facet("a", bson.A{1}), code: 40171,
			msg: "elements of arrays in $facet spec must be non-empty objects, a argument contained an element of type int"},
		{name: "an empty stage", pipeline: facet("a", bson.A{bson.D{}}), code: 40171},
		{name: "a name with $", pipeline: facet("$a", bson.A{}), code: 16410},
		{name: "a name with a dot", pipeline: facet("a.b", bson.A{}), code: 16412},
		{name: "an empty name", pipeline: facet("", bson.A{}), code: 15998},
		{name: "$facet in $facet", pipeline: facet("x", bson.A{stg("$facet", bson.D{{Key: "y", Value: bson.A{}}})}), code: 40600,
			msg: "$facet is not allowed to be used within a $facet stage"},
		{name: "$out in $facet", pipeline: facet("x", bson.A{stg("$out", "o")}), code: 40600, msg: "$out is not allowed to be used within a $facet stage"},
		{name: "$facet in a $lookup in $facet", pipeline: facet("x", bson.A{stg("$lookup", bson.D{{Key: "from", Value: "f"},
			{Key: "pipeline", Value: bson.A{stg("$facet", bson.D{{Key: "r", Value: bson.A{}}})}}, {Key: "as", Value: "j"}})}), code: 40600,
			msg: "$facet inside of $lookup is not allowed to be used within a $facet stage"},
		{name: "$facet in a $unionWith in $facet", pipeline: facet("x", bson.A{stg("$unionWith", bson.D{{Key: "coll", Value: "f"},
			{Key: "pipeline", Value: bson.A{stg("$facet", bson.D{{Key: "r", Value: bson.A{}}})}}})}), code: 40600,
			msg: "$facet inside of $unionWith is not allowed to be used within a $facet stage"},
		{name: "$documents in a $lookup in $facet", pipeline: facet("x", bson.A{stg("$lookup", bson.D{
			{Key: "pipeline", Value: bson.A{stg("$documents", bson.A{bson.D{{Key: "a", Value: 1}}})}}, {Key: "as", Value: "j"}})}), code: 40600,
			msg: "$documents inside of $lookup is not allowed to be used within a $facet stage"},
	})
}

// $documents: first in a database's pipeline, or in a $lookup's or a
// $unionWith's; an array of documents (MongoDB's documents.js).
func TestDocumentsStage(t *testing.T) {
	c, _ := serve(t, "")
	db := c.Database("d")
	coll := db.Collection("docs")
	agInsert(t, coll, bson.D{{Key: "_id", Value: 1}, {Key: "k", Value: 2}})
	docs := func(arg any) bson.D { return stg("$documents", arg) }
	checkStages(t, coll, true, []stageCase{
		{name: "an array", pipeline: mongo.Pipeline{docs(bson.A{bson.D{{Key: "a1", Value: 1}}, bson.D{{Key: "a1", Value: 2}}})}, want: `{"rows":[{"a1":1},{"a1":2}]}`},
		{name: "an expression", pipeline: mongo.Pipeline{docs(op("$map", bson.D{{Key: "input", Value: op("$range", bson.A{0, 2})}, {Key: "in", Value: bson.D{{Key: "x", Value: "$$this"}}}}))},
			want: `{"rows":[{"x":0},{"x":1}]}`},
		{name: "an empty array", pipeline: mongo.Pipeline{docs(bson.A{})}, want: `{"rows":[]}`},
		{name: "non-documents", pipeline: mongo.Pipeline{docs(bson.A{1, 2})}, code: 40228},
		{name: "a document and a number", pipeline: mongo.Pipeline{docs(bson.A{bson.D{{Key: "a", Value: 1}}, 2})}, code: 40228},
		{name: "a string", pipeline: mongo.Pipeline{docs("string")}, code: 5858203, msg: "an array is expected"},
		{name: "a field of no document", pipeline: mongo.Pipeline{docs("$myField")}, code: 5858203},
		{name: "not first", pipeline: mongo.Pipeline{stg("$project", bson.D{{Key: "a", Value: 1}}), docs(bson.A{})}, code: 40602,
			msg: "$documents is only valid as the first stage in a pipeline"},
	})
	checkStages(t, coll, false, []stageCase{
		{name: "on a collection", pipeline: mongo.Pipeline{docs(bson.A{})}, code: 73},
		{name: "after a $match on a collection", pipeline: mongo.Pipeline{stg("$match", bson.D{}), docs(bson.A{})}, code: 40602},
		{name: "in $lookup", pipeline: mongo.Pipeline{stg("$lookup", bson.D{{Key: "localField", Value: "k"}, {Key: "foreignField", Value: "xx"},
			{Key: "pipeline", Value: bson.A{docs(bson.A{bson.D{{Key: "xx", Value: 1}}, bson.D{{Key: "xx", Value: 2}}})}}, {Key: "as", Value: "n"}})},
			want: `{"rows":[{"_id":1,"k":2,"n":[{"xx":2}]}]}`},
		{name: "not first in $lookup", pipeline: mongo.Pipeline{stg("$lookup", bson.D{{Key: "from", Value: "docs"},
			{Key: "pipeline", Value: bson.A{stg("$match", bson.D{}), docs(bson.A{})}}, {Key: "as", Value: "n"}})}, code: 40602},
	})
}

// $lookup's arguments, each of its type, and the forms they make.
func TestLookupArgs(t *testing.T) {
	c, _ := serve(t, "")
	coll := c.Database("d").Collection("orders")
	agInsert(t, coll, bson.D{{Key: "_id", Value: 1}, {Key: "k", Value: 1}})
	agInsert(t, c.Database("d").Collection("items"), bson.D{{Key: "_id", Value: 5}, {Key: "k", Value: 1}})
	lookup := func(kv ...any) mongo.Pipeline { return mongo.Pipeline{stg("$lookup", dargs(kv...))} }
	checkStages(t, coll, false, []stageCase{
		{name: "equality", pipeline: lookup("from", "items", "localField", "k", "foreignField", "k", "as", "j"), want: `{"rows":[{"_id":1,"k":1,"j":[{"_id":5,"k":1}]}]}`},
		{name: "not an object", pipeline: mongo.Pipeline{stg("$lookup", "items")}, code: 9, msg: "the $lookup specification must be an Object"},
		{name: "unknown argument", pipeline: lookup("from", "items", "localField", "k", "foreignField", "k", "as", "j", "zz", "x"), code: 9,
			msg: "unknown argument to $lookup: zz"},
		{name: "as not a string", pipeline: lookup("from", "items", "localField", "k", "foreignField", "k", "as", 5), code: 9,
			msg: "$lookup argument 'as' must be a string, found as: 5: int"},
		{name: "localField not a string", pipeline: lookup("from", "items", "localField", 1, "foreignField", "k", "as", "j"), code: 9,
			msg: "$lookup argument 'localField' must be a string"},
		{name: "from not a string", pipeline: lookup("from", 5, "localField", "k", "foreignField", "k", "as", "j"), code: 9,
			msg: "$lookup 'from' field must be either a string or an object, but found int"},
		{name: "let not an object", pipeline: lookup("from", "items", "let", 5, "pipeline", bson.A{}, "as", "j"), code: 9,
			msg: "$lookup argument 'let: 5' must be an object, is type int"},
		{name: "pipeline not an array", pipeline: lookup("from", "items", "pipeline", bson.D{}, "as", "j"), code: 14,
			msg: "'pipeline' option must be specified as an array"},
		{name: "a pipeline stage not an object", pipeline: lookup("from", "items", "pipeline", bson.A{1}, "as", "j"), code: 14},
		{name: "no as", pipeline: lookup("from", "items", "localField", "k", "foreignField", "k"), code: 9, msg: "must specify 'as' field for a $lookup"},
		{name: "no from, no $documents", pipeline: lookup("pipeline", bson.A{stg("$match", bson.D{})}, "as", "j"), code: 9},
		{name: "no from, no pipeline", pipeline: lookup("let", bson.D{}, "as", "j"), code: 9},
		{name: "an empty from", pipeline: lookup("from", "", "localField", "k", "foreignField", "k", "as", "j"), code: 73},
		{name: "localField alone", pipeline: lookup("from", "items", "localField", "k", "as", "j"), code: 9,
			msg: "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified"},
		{name: "localField alone with a pipeline", pipeline: lookup("from", "items", "localField", "k", "pipeline", bson.A{}, "as", "j"), code: 9,
			msg: "$lookup requires both or neither of 'localField' and 'foreignField' to be specified"},
		{name: "let without a pipeline", pipeline: lookup("from", "items", "localField", "k", "foreignField", "k", "let", bson.D{}, "as", "j"), code: 9,
			msg: "$lookup with a 'let' argument must also specify 'pipeline'"},
	})
}
