package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// serve starts a server over a store in dir ("" memory) and a driver
// client connected to it.
func serve(t testing.TB, dir string) (*mongo.Client, *Store) {
	t.Helper()
	_, c, st := serveURI(t, dir)
	return c, st
}

// serveUnmanaged starts a server over a store in dir and a client of it
// that the test stops itself (as a kill -9 would, or not at all).
func serveUnmanaged(t testing.TB, dir string) (*mongo.Client, *Server, *Store) {
	t.Helper()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(st, ln)
	go srv.Serve()
	c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + ln.Addr().String() + "/"))
	if err != nil {
		t.Fatal(err)
	}
	return c, srv, st
}

// serveURI is serve that also returns the server's URI.
func serveURI(t testing.TB, dir string) (string, *mongo.Client, *Store) {
	t.Helper()
	c, srv, st := serveUnmanaged(t, dir)
	uri := "mongodb://" + srv.addr + "/"
	t.Cleanup(func() {
		_ = c.Disconnect(context.Background())
		srv.Shutdown(0)
		_ = st.Close()
	})
	return uri, c, st
}

func TestDriverCRUD(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	coll := c.Database("app").Collection("users")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	docs := []any{}
	for i := 0; i < 50; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "email", Value: "u" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "@x.io"}, {Key: "n", Value: i}, {Key: "tags", Value: bson.A{"a", i % 3}}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "n", Value: bson.D{{Key: "$gte", Value: 10}}}})
	if err != nil || n != 40 {
		t.Fatalf("count = %d, %v; want 40", n, err)
	}
	if n, _ := coll.EstimatedDocumentCount(ctx); n != 50 {
		t.Fatalf("estimated = %d", n)
	}
	var got bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "email", Value: "ubb@x.io"}}).Decode(&got); err != nil || got["n"] != int32(27) {
		t.Fatalf("findOne by email = %v, %v", got, err)
	}
	_, err = coll.InsertOne(ctx, bson.D{{Key: "email", Value: "ubb@x.io"}})
	if !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("duplicate email: %v; want a duplicate key error", err)
	}
	var we mongo.WriteException
	if !errors.As(err, &we) || we.WriteErrors[0].Message != `E11000 duplicate key error collection: app.users index: email_1 dup key: { email: "ubb@x.io" }` {
		t.Fatalf("message: %v", err)
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "tags", Value: 2}}, options.Find().SetSort(bson.D{{Key: "n", Value: -1}}).SetLimit(3).SetProjection(bson.D{{Key: "n", Value: 1}, {Key: "_id", Value: 0}}))
	if err != nil {
		t.Fatal(err)
	}
	var rows []bson.M
	if err := cur.All(ctx, &rows); err != nil || len(rows) != 3 || rows[0]["n"] != int32(47) || len(rows[0]) != 1 {
		t.Fatalf("sorted find = %v, %v", rows, err)
	}
	res, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 100}}}, {Key: "$push", Value: bson.D{{Key: "tags", Value: bson.D{{Key: "$each", Value: bson.A{"z", "y"}}, {Key: "$sort", Value: 1}, {Key: "$slice", Value: 3}}}}}})
	if err != nil || res.ModifiedCount != 1 {
		t.Fatalf("update = %v, %v", res, err)
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 3}}).Decode(&got); err != nil || got["n"] != int32(103) || len(got["tags"].(bson.A)) != 3 {
		t.Fatalf("after update = %v, %v", got, err)
	}
	ur, err := coll.UpdateOne(ctx, bson.D{{Key: "email", Value: "new@x.io"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: -1}}}}, options.UpdateOne().SetUpsert(true))
	if err != nil || ur.UpsertedID == nil {
		t.Fatalf("upsert = %v, %v", ur, err)
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "email", Value: "new@x.io"}}).Decode(&got); err != nil || got["n"] != int32(-1) {
		t.Fatalf("upserted = %v, %v", got, err)
	}
	agg, err := coll.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$lt", Value: 10}, {Key: "$gte", Value: 0}}}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$mod", Value: bson.A{"$n", 2}}}}, {Key: "sum", Value: bson.D{{Key: "$sum", Value: "$n"}}}, {Key: "c", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rows = nil
	if err := agg.All(ctx, &rows); err != nil || len(rows) != 2 || rows[0]["sum"] != int32(0+2+4+6+8) {
		t.Fatalf("group = %v, %v", rows, err)
	}
	dr, err := coll.DeleteMany(ctx, bson.D{{Key: "n", Value: bson.D{{Key: "$gte", Value: 40}}}})
	if err != nil || dr.DeletedCount != 11 {
		t.Fatalf("delete = %v, %v", dr, err)
	}
	vals := coll.Distinct(ctx, "tags", bson.D{})
	var dv []any
	if err := vals.Decode(&dv); err != nil || len(dv) < 4 {
		t.Fatalf("distinct = %v, %v", dv, err)
	}
	fr := coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 5}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}, options.FindOneAndUpdate().SetReturnDocument(options.After).SetProjection(bson.D{{Key: "x", Value: 1}}))
	var fo bson.M
	if err := fr.Decode(&fo); err != nil || fo["x"] != int32(1) || len(fo) != 2 {
		t.Fatalf("findOneAndUpdate = %v, %v", fo, err)
	}
}

// TestConcurrentIncrementsLoseNothing: 8 clients x 1,000 $inc on one
// document; the stored count equals the acknowledged count.
func TestConcurrentIncrementsLoseNothing(t *testing.T) {
	c, _ := serve(t, t.TempDir())
	ctx := context.Background()
	coll := c.Database("t").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	const clients, each = 8, 1000
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := 0
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				r, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
				if err == nil && r.ModifiedCount == 1 {
					mu.Lock()
					acked++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	var got struct{ N int }
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.N != acked || acked != clients*each {
		t.Fatalf("stored n = %d, acknowledged %d, sent %d", got.N, acked, clients*each)
	}
}

// TestReopenKeepsAcknowledgedWrites: what a closed store held is there
// after it is opened again, from the checkpoint and from the journal alone.
func TestReopenKeepsAcknowledgedWrites(t *testing.T) {
	dir := t.TempDir()
	c, srv, st := serveUnmanaged(t, dir)
	ctx := context.Background()
	coll := c.Database("d").Collection("c")
	_, _ = coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetUnique(true)})
	for i := 0; i < 100; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 7}})
	if err := c.Database("d").CreateCollection(ctx, "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096).SetMaxDocuments(2)); err != nil {
		t.Fatal(err)
	}
	uuid := st.view().coll("d", "capped").uuid
	_ = c.Disconnect(ctx)
	srv.Shutdown(0)
	// no Close: as after kill -9, only the journal holds the writes
	st.journal.Abandon()
	st2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	col := st2.view().coll("d", "c")
	if col == nil || col.docs.Len() != 99 || len(col.indexes) != 1 {
		t.Fatalf("after reopen: %v", col)
	}
	if err := st2.Close(); err != nil {
		t.Fatal(err)
	}
	st3, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st3.Close()
	if col := st3.view().coll("d", "c"); col == nil || col.docs.Len() != 99 {
		t.Fatalf("after checkpoint: %v", col)
	}
	// a collection's options and UUID survive the journal and a checkpoint
	for _, st := range []*Store{st2, st3} {
		capped := st.view().coll("d", "capped")
		if capped == nil || capped.uuid != uuid {
			t.Fatalf("capped collection after reopen: %v", capped)
		}
		if _, max, ok := cappedLimits(capped.opts); !ok || max != 2 {
			t.Errorf("capped options after reopen: %s", capped.opts)
		}
	}
}

// A find without a sort returns documents in natural order, as MongoDB
// does: the order of insertion, whatever their _ids; an update keeps a
// document's place, a deleted and re-inserted one goes last; the order
// survives the journal and a checkpoint.
func TestNaturalOrder(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	ids := func(c *mongo.Client) []string {
		t.Helper()
		cur, err := c.Database("d").Collection("c").Find(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for cur.Next(ctx) {
			got = append(got, cur.Current.Lookup("_id").StringValue())
		}
		return got
	}
	want := "[m a z b]"
	func() {
		c, srv, st := serveUnmanaged(t, dir)
		coll := c.Database("d").Collection("c")
		for _, id := range []string{"m", "b", "a", "z"} {
			if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "a"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: "b"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "b"}}); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(ids(c)); got != want {
			t.Fatalf("natural order %s, want %s", got, want)
		}
		_ = c.Disconnect(ctx)
		srv.Shutdown(0)
		st.journal.Abandon() // as after kill -9: the journal alone
	}()
	for _, stage := range []string{"journal", "checkpoint"} {
		c, st := serve(t, dir)
		if got := fmt.Sprint(ids(c)); got != want {
			t.Fatalf("after reopening from the %s: natural order %s, want %s", stage, got, want)
		}
		_ = c.Disconnect(ctx)
		_ = st.Close()
	}
}

// CountDocuments with an empty filter answers from the collection's size:
// the same figure a scan gives, after inserts and deletes, with skip and
// limit, and 0 for a collection that does not exist.
func TestCountDocumentsAll(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("c")
	count := func(opts ...options.Lister[options.CountOptions]) int64 {
		t.Helper()
		n, err := coll.CountDocuments(ctx, bson.D{}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("missing collection: %d", n)
	}
	for i := range 50 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 8}}}}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 42 {
		t.Fatalf("count: %d, want 42", n)
	}
	if n := count(options.Count().SetSkip(40)); n != 2 {
		t.Fatalf("count with skip 40: %d, want 2", n)
	}
	if n := count(options.Count().SetLimit(5)); n != 5 {
		t.Fatalf("count with limit 5: %d, want 5", n)
	}
}

// batchSize 0 asks for an empty first batch (find and aggregate); the
// documents then come with getMore.
func TestBatchSizeZero(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("c")
	for i := range 5 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	for name, open := range map[string]func() (*mongo.Cursor, error){
		"find": func() (*mongo.Cursor, error) { return coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(0)) },
		"aggregate": func() (*mongo.Cursor, error) {
			return coll.Aggregate(ctx, mongo.Pipeline{}, options.Aggregate().SetBatchSize(0))
		},
	} {
		cur, err := open()
		if err != nil {
			t.Fatal(err)
		}
		if n := cur.RemainingBatchLength(); n != 0 {
			t.Errorf("%s: first batch of %d documents; want none", name, n)
		}
		n := 0
		for cur.Next(ctx) {
			n++
		}
		if cur.Err() != nil || n != 5 {
			t.Errorf("%s: %d documents, %v; want the 5 through getMore", name, n, cur.Err())
		}
	}
}

// A hint must name an index of the collection, by name or by key pattern.
func TestHintNamesAnIndex(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	coll := c.Database("d").Collection("c")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []any{"a_1", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 1.0}}, "_id_", bson.D{{Key: "$natural", Value: -1}}} {
		if err := coll.FindOne(ctx, bson.D{}, options.FindOne().SetHint(h)).Err(); err != nil {
			t.Errorf("hint %v: %v", h, err)
		}
	}
	var se mongo.ServerError
	for _, h := range []any{"b_1", bson.D{{Key: "a", Value: -1}}} {
		if err := coll.FindOne(ctx, bson.D{}, options.FindOne().SetHint(h)).Err(); !errors.As(err, &se) || !se.HasErrorCode(2) {
			t.Errorf("find with hint %v: %v; want BadValue", h, err)
		}
	}
	if _, err := coll.UpdateOne(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}, options.UpdateOne().SetHint("b_1")); !errors.As(err, &se) || !se.HasErrorCode(2) {
		t.Errorf("update with a hint to no index: %v; want BadValue", err)
	}
	if _, err := coll.DeleteOne(ctx, bson.D{}, options.DeleteOne().SetHint("b_1")); !errors.As(err, &se) || !se.HasErrorCode(2) {
		t.Errorf("delete with a hint to no index: %v; want BadValue", err)
	}
}

// A write concern a one-node replica set cannot satisfy is a write
// concern error on a write that was made.
func TestUnsatisfiableWriteConcern(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	for w, code := range map[any]int{30: 100, "dc-east": 79} {
		coll := c.Database("d").Collection("c", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: w}))
		_, err := coll.InsertOne(ctx, bson.D{{Key: "w", Value: fmt.Sprint(w)}})
		var we mongo.WriteException
		if !errors.As(err, &we) || we.WriteConcernError == nil || we.WriteConcernError.Code != code {
			t.Errorf("w %v: %v; want write concern error %d", w, err, code)
		}
		if n, _ := c.Database("d").Collection("c").CountDocuments(ctx, bson.D{{Key: "w", Value: fmt.Sprint(w)}}); n != 1 {
			t.Errorf("w %v: the write was not made", w)
		}
	}
	if _, err := c.Database("d").Collection("c", options.Collection().SetWriteConcern(writeconcern.Majority())).InsertOne(ctx, bson.D{}); err != nil {
		t.Errorf("w majority: %v", err)
	}
	// a transaction's commit with w: 10 commits and says so
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if err := sess.StartTransaction(options.Transaction().SetWriteConcern(&writeconcern.WriteConcern{W: 10})); err != nil {
		t.Fatal(err)
	}
	sctx := mongo.NewSessionContext(ctx, sess)
	if _, err := c.Database("d").Collection("c").InsertOne(sctx, bson.D{{Key: "w", Value: "txn"}}); err != nil {
		t.Fatal(err)
	}
	err = sess.CommitTransaction(ctx)
	var se mongo.ServerError
	if err == nil || !errors.As(err, &se) || !se.HasErrorCode(100) {
		t.Errorf("commit with w 10: %v; want write concern error 100", err)
	}
	if n, _ := c.Database("d").Collection("c").CountDocuments(ctx, bson.D{{Key: "w", Value: "txn"}}); n != 1 {
		t.Errorf("commit with w 10: the transaction's write is not there")
	}
}

// A pipeline ending in $out or $merge is refused under the linearizable
// read concern (InvalidOptions) and writes nothing; under local it runs.
func TestWriteStageRefusesLinearizable(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	db := c.Database("d")
	if _, err := db.Collection("src").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []bson.D{{{Key: "$out", Value: "dst"}}, {{Key: "$merge", Value: bson.D{{Key: "into", Value: "dst"}}}}} {
		for _, level := range []string{"linearizable", "local"} {
			err := db.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "src"}, {Key: "pipeline", Value: bson.A{stage}},
				{Key: "cursor", Value: bson.D{}}, {Key: "readConcern", Value: bson.D{{Key: "level", Value: level}}}}).Err()
			n, _ := db.Collection("dst").CountDocuments(ctx, bson.D{})
			var se mongo.ServerError
			if level == "linearizable" && (!errors.As(err, &se) || !se.HasErrorCode(72) || n != 0) {
				t.Errorf("%v under linearizable: %v, %d written; want InvalidOptions and nothing written", stage, err, n)
			}
			if level == "local" && (err != nil || n != 1) {
				t.Errorf("%v under local: %v, %d written", stage, err, n)
			}
			_ = db.Collection("dst").Drop(ctx)
		}
	}
}
