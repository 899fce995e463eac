package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// nextEvent is the stream's next event, failing the test after 5 s.
func nextEvent(t *testing.T, cs *mongo.ChangeStream) bson.M {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !cs.Next(ctx) {
		t.Fatalf("no event: %v", cs.Err())
	}
	dec := bson.NewDecoder(bson.NewDocumentReader(bytes.NewReader(cs.Current)))
	dec.DefaultDocumentM()
	var m bson.M
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func watch(t *testing.T, w interface {
	Watch(context.Context, any, ...options.Lister[options.ChangeStreamOptions]) (*mongo.ChangeStream, error)
}, pipeline any, opts ...options.Lister[options.ChangeStreamOptions]) *mongo.ChangeStream {
	t.Helper()
	if pipeline == nil {
		pipeline = mongo.Pipeline{}
	}
	cs, err := w.Watch(context.Background(), pipeline, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(context.Background()) })
	return cs
}

// The manual's event types on a collection stream, in order: insert,
// update (with what changed), replace, delete, then drop and invalidate,
// after which the stream is closed.
func TestChangeStreamCollectionEvents(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("users")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil { // before the stream: not seen
		t.Fatal(err)
	}
	cs := watch(t, coll, nil)
	other := c.Database("app").Collection("orders")
	ops := []func() error{
		func() error { _, err := other.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); return err }, // another collection: not seen
		func() error {
			_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "b", Value: bson.A{1, 2, 3}}, {Key: "c", Value: "x"}})
			return err
		},
		func() error {
			_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 2}, {Key: "n.m", Value: true}}}, {Key: "$unset", Value: bson.D{{Key: "c", Value: ""}}}, {Key: "$pop", Value: bson.D{{Key: "b", Value: 1}}}})
			return err
		},
		func() error {
			_, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "z", Value: 9}})
			return err
		},
		func() error { _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); return err },
		func() error { return coll.Drop(ctx) },
	}
	for i, op := range ops {
		if err := op(); err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
	}
	ins := nextEvent(t, cs)
	if ins["operationType"] != "insert" || ins["documentKey"].(bson.M)["_id"] != int32(1) || ins["fullDocument"].(bson.M)["a"] != int32(1) {
		t.Errorf("insert event: %v", ins)
	}
	if ns := ins["ns"].(bson.M); ns["db"] != "app" || ns["coll"] != "users" {
		t.Errorf("ns: %v", ns)
	}
	if _, ok := ins["clusterTime"].(bson.Timestamp); !ok {
		t.Errorf("clusterTime: %T", ins["clusterTime"])
	}
	upd := nextEvent(t, cs)
	ud, _ := upd["updateDescription"].(bson.M)
	if upd["operationType"] != "update" || ud == nil {
		t.Fatalf("update event: %v", upd)
	}
	uf := ud["updatedFields"].(bson.M)
	if uf["a"] != int32(2) || uf["n"] == nil {
		t.Errorf("updatedFields: %v", uf)
	}
	if rf := ud["removedFields"].(bson.A); len(rf) != 1 || rf[0] != "c" {
		t.Errorf("removedFields: %v", rf)
	}
	if ta := ud["truncatedArrays"].(bson.A); len(ta) != 1 || ta[0].(bson.M)["field"] != "b" || ta[0].(bson.M)["newSize"] != int32(2) {
		t.Errorf("truncatedArrays: %v", ta)
	}
	if _, has := upd["fullDocument"]; has {
		t.Errorf("update event with fullDocument by default: %v", upd)
	}
	rep := nextEvent(t, cs)
	if rep["operationType"] != "replace" || rep["fullDocument"].(bson.M)["z"] != int32(9) {
		t.Errorf("replace event: %v", rep)
	}
	del := nextEvent(t, cs)
	if del["operationType"] != "delete" || del["documentKey"].(bson.M)["_id"] != int32(1) {
		t.Errorf("delete event: %v", del)
	}
	if drop := nextEvent(t, cs); drop["operationType"] != "drop" {
		t.Errorf("drop event: %v", drop)
	}
	if inv := nextEvent(t, cs); inv["operationType"] != "invalidate" {
		t.Errorf("invalidate event: %v", inv)
	}
	if cs.ID() != 0 {
		t.Errorf("cursor %d still open after invalidate", cs.ID())
	}
}

// Resuming after an event's token sees exactly the events after it;
// startAtOperationTime sees the events from that time; a pipeline
// filters and reshapes events; fullDocument updateLookup reads the
// document as it is now.
func TestChangeStreamResumeAndOptions(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("items")
	cs := watch(t, coll, nil)
	for i := 1; i <= 3; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	nextEvent(t, cs)
	tok := cs.ResumeToken()
	resumed := watch(t, coll, nil, options.ChangeStream().SetResumeAfter(tok))
	for _, want := range []int32{2, 3} {
		if got := nextEvent(t, resumed)["documentKey"].(bson.M)["_id"]; got != want {
			t.Errorf("resumed: _id %v, want %d", got, want)
		}
	}

	filtered := watch(t, coll, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "operationType", Value: "update"}}}},
		{{Key: "$project", Value: bson.D{{Key: "documentKey", Value: 1}, {Key: "fullDocument", Value: 1}}}},
	}, options.ChangeStream().SetFullDocument(options.UpdateLookup))
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 4}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 4}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
			t.Fatal(err)
		}
	}
	ev := nextEvent(t, filtered)
	if _, has := ev["operationType"]; has {
		t.Errorf("$project kept operationType: %v", ev)
	}
	if fd := ev["fullDocument"].(bson.M); fd["n"] != int32(2) { // looked up now: after both updates
		t.Errorf("updateLookup: %v, want n 2", fd)
	}

	// startAtOperationTime: the time of the first event above.
	first := watch(t, coll, nil, options.ChangeStream().SetStartAtOperationTime(nextEventTime(t, coll)))
	if got := nextEvent(t, first)["documentKey"].(bson.M)["_id"]; got != int32(1) {
		t.Errorf("startAtOperationTime: first _id %v, want 1", got)
	}

	// A pipeline that changes _id ends the stream with error 280.
	bad := watch(t, coll, mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}}}}})
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 5}}); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if bad.Next(cctx) {
		t.Fatal("an event without its _id came through")
	}
	var se mongo.ServerError
	if ok := asServerError(bad.Err(), &se); !ok || !se.HasErrorCode(280) {
		t.Errorf("error: %v, want code 280", bad.Err())
	}
}

// nextEventTime is the cluster time of the collection's first insert,
// read through a stream started at time zero.
func nextEventTime(t *testing.T, coll *mongo.Collection) *bson.Timestamp {
	cs := watch(t, coll, nil, options.ChangeStream().SetStartAtOperationTime(&bson.Timestamp{T: 1, I: 0}))
	ts := nextEvent(t, cs)["clusterTime"].(bson.Timestamp)
	return &ts
}

func asServerError(err error, se *mongo.ServerError) bool {
	if e, ok := err.(mongo.ServerError); ok {
		*se = e
		return true
	}
	return false
}

// A database stream sees every collection of its database and ends at
// dropDatabase; a server stream sees every database; a transaction's
// writes appear at commit with its session, never when aborted.
func TestChangeStreamDatabaseServerTransaction(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("shop")
	dbs := watch(t, db, nil)
	all := watch(t, c, nil)
	if _, err := db.Collection("a").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Database("other").Collection("b").InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	for _, commit := range []bool{false, true} {
		if err := sess.StartTransaction(); err != nil {
			t.Fatal(err)
		}
		sc := mongo.NewSessionContext(ctx, sess)
		if _, err := db.Collection("a").InsertOne(sc, bson.D{{Key: "_id", Value: map[bool]int{false: 10, true: 11}[commit]}}); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = sess.CommitTransaction(ctx)
		} else {
			err = sess.AbortTransaction(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"insert a 1", "insert a 11", "drop a", "dropDatabase", "invalidate"}
	for _, w := range want {
		ev := nextEvent(t, dbs)
		got := describe(ev)
		if got != w {
			t.Errorf("database stream: %q, want %q", got, w)
		}
		if w == "insert a 11" && (ev["lsid"] == nil || ev["txnNumber"] == nil) {
			t.Errorf("transaction's event without its session: %v", ev)
		}
	}
	for _, w := range []string{"insert a 1", "insert b 2", "insert a 11", "drop a", "dropDatabase"} {
		if got := describe(nextEvent(t, all)); got != w {
			t.Errorf("server stream: %q, want %q", got, w)
		}
	}
}

func describe(ev bson.M) string {
	s, _ := ev["operationType"].(string)
	if ns, ok := ev["ns"].(bson.M); ok {
		if coll, ok := ns["coll"].(string); ok {
			s += " " + coll
		}
	}
	if dk, ok := ev["documentKey"].(bson.M); ok {
		s += " " + fmt.Sprint(dk["_id"])
	}
	return s
}

// A getMore that fails with a resumable error (the
// failGetMoreAfterCursorCheckout fail point) is labelled
// ResumableChangeStreamError: the driver resumes from its last token and
// the application sees every event once.
func TestChangeStreamResumesAfterResumableError(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("app").Collection("jobs")
	cs := watch(t, coll, nil)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, cs)
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "configureFailPoint", Value: "failGetMoreAfterCursorCheckout"},
		{Key: "mode", Value: bson.D{{Key: "times", Value: 1}}}, {Key: "data", Value: bson.D{{Key: "errorCode", Value: 6}}}}).Err(); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 3; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []int32{2, 3} {
		if got := nextEvent(t, cs)["documentKey"].(bson.M)["_id"]; got != want {
			t.Errorf("after the resume: _id %v, want %d", got, want)
		}
	}
}

// Pre- and post-images: with changeStreamPreAndPostImages enabled by
// collMod, fullDocument whenAvailable gives the document after an update
// and fullDocumentBeforeChange the one before; disabled, whenAvailable
// gives null and required fails the stream (NoMatchingDocument, 47).
func TestChangeStreamPreAndPostImages(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	coll := db.Collection("acct")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	collMod := func(on bool) {
		t.Helper()
		if err := db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "acct"}, {Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "enabled", Value: on}}}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	inc := func() {
		t.Helper()
		if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
			t.Fatal(err)
		}
	}
	collMod(true)
	cs := watch(t, coll, nil, options.ChangeStream().SetFullDocument(options.WhenAvailable).SetFullDocumentBeforeChange(options.WhenAvailable))
	inc()
	inc()
	ev := nextEvent(t, cs)
	if ev["fullDocument"].(bson.M)["n"] != int32(2) || ev["fullDocumentBeforeChange"].(bson.M)["n"] != int32(1) {
		t.Errorf("images of the first update: after %v, before %v; want n 2 and 1", ev["fullDocument"], ev["fullDocumentBeforeChange"])
	}
	var specs []bson.M
	cur, err := db.ListCollections(ctx, bson.D{{Key: "name", Value: "acct"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(ctx, &specs); err != nil || len(specs) != 1 {
		t.Fatalf("listCollections: %v %v", specs, err)
	}
	if opts := fmt.Sprint(specs[0]["options"]); opts != `{"changeStreamPreAndPostImages":{"enabled":true}}` {
		t.Errorf("options after collMod: %s", opts)
	}

	collMod(false)
	off := watch(t, coll, nil, options.ChangeStream().SetFullDocument(options.WhenAvailable))
	inc()
	if ev := nextEvent(t, off); ev["fullDocument"] != nil {
		t.Errorf("whenAvailable without images: %v, want null", ev["fullDocument"])
	}
	req := watch(t, coll, nil, options.ChangeStream().SetFullDocumentBeforeChange(options.Required))
	inc()
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if req.Next(cctx) {
		t.Fatal("required pre-image of a collection without images gave an event")
	}
	var se mongo.ServerError
	if !asServerError(req.Err(), &se) || !se.HasErrorCode(47) {
		t.Errorf("required without images: %v, want code 47", req.Err())
	}
}

// An event over 16 MiB fails the stream (BSONObjectTooLarge, 10334)
// unless the pipeline ends with $changeStreamSplitLargeEvent: then it
// comes in fragments, each with its own token, and a stream resumed from
// the first fragment's token gets the second.
func TestChangeStreamSplitLargeEvent(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("app")
	if err := db.CreateCollection(ctx, "big", options.CreateCollection().SetChangeStreamPreAndPostImages(bson.D{{Key: "enabled", Value: true}})); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("big")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: strings.Repeat("a", 10<<20)}}); err != nil {
		t.Fatal(err)
	}
	split := mongo.Pipeline{{{Key: "$changeStreamSplitLargeEvent", Value: bson.D{}}}}
	cs := watch(t, coll, split, options.ChangeStream().SetFullDocument(options.Required))
	whole := watch(t, coll, nil, options.ChangeStream().SetFullDocument(options.Required))
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: strings.Repeat("b", 10<<20)}}}}); err != nil {
		t.Fatal(err)
	}
	first := nextEvent(t, cs)
	if se := first["splitEvent"].(bson.M); se["fragment"] != int32(1) || se["of"] != int32(2) {
		t.Fatalf("first fragment: %v", se)
	}
	tok := cs.ResumeToken()
	second := nextEvent(t, cs)
	if se := second["splitEvent"].(bson.M); se["fragment"] != int32(2) || se["of"] != int32(2) {
		t.Errorf("second fragment: %v", se)
	}
	if _, ok := second["updateDescription"]; !ok {
		t.Errorf("the second fragment lacks updateDescription: %v", keys(second))
	}
	resumed := watch(t, coll, split, options.ChangeStream().SetFullDocument(options.Required).SetResumeAfter(tok))
	if se := nextEvent(t, resumed)["splitEvent"].(bson.M); se["fragment"] != int32(2) {
		t.Errorf("resumed from fragment 1: got fragment %v", se["fragment"])
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var se mongo.ServerError
	if whole.Next(cctx) || !asServerError(whole.Err(), &se) || !se.HasErrorCode(10334) {
		t.Errorf("a 20 MiB event without the split stage: %v, want code 10334", whole.Err())
	}
}

func keys(m bson.M) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
