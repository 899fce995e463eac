package verify

import (
	"context"
	"encoding/binary"
	"strings"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/oid"
)

// The server's $toDate summary of a collection equals the one the read
// computes from the bytes: ObjectIDs of many timestamps (the least and
// greatest of 32 bits among them), documents with other _ids and without
// an ObjectID, and an empty collection.
func TestIDSummaryAgreesWithServer(t *testing.T) {
	ctx := context.Background()
	cl := startServer(t)
	coll := cl.Database("sum").Collection("c")
	var docs []any
	var want idSummary
	for i, secs := range []uint32{0, 1, 999, 1_700_000_000, 1 << 31, 1<<32 - 1, 86_399, 1_700_000_001} {
		var id oid.ID
		binary.BigEndian.PutUint32(id[:4], secs)
		id[11] = byte(i)
		raw, err := bson.Marshal(bson.D{{Key: "_id", Value: bson.ObjectID(id)}, {Key: "i", Value: i}})
		if err != nil {
			t.Fatal(err)
		}
		want.add(bson.Raw(raw).Lookup("_id"))
		docs = append(docs, bson.Raw(raw))
	}
	docs = append(docs, bson.D{{Key: "_id", Value: "text"}}, bson.D{{Key: "_id", Value: int64(7)}})
	for _, d := range docs[len(docs)-2:] {
		raw, _ := bson.Marshal(d)
		want.add(bson.Raw(raw).Lookup("_id")) // not ObjectIDs: not counted
	}
	if want.n != 8 {
		t.Fatalf("client summary counted %d ObjectIDs, want 8", want.n)
	}
	v := &dbVerifier{opts: DBOptions{Batch: 100}}
	var row Row
	got, err := v.summarizeIDs(ctx, &Expected{DB: "sum", Collection: "c"}, coll, &row)
	if err != nil || row.skipped || got != (idSummary{}) {
		t.Fatalf("empty collection: %+v, %v, row %+v; want a zero summary", got, err, row)
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	got, err = v.summarizeIDs(ctx, &Expected{DB: "sum", Collection: "c"}, coll, &row)
	if err != nil || row.skipped {
		t.Fatalf("summary: %v, row %+v", err, row)
	}
	if got != want {
		t.Errorf("server summary %+v, client %+v", got, want)
	}
}

// When the summaries differ, every _id is converted one by one (a
// $project of each, seen here as a second aggregate) and the row counts
// each conversion; a summary that agrees takes one aggregate. Fewer
// conversions than documents read fails the row, saying so.
func TestServerTimestampsFallsBackToEachID(t *testing.T) {
	ctx := context.Background()
	uri, _ := mongotest.Start(t)
	var aggregates atomic.Int64
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "aggregate" {
			aggregates.Add(1)
		}
	}}
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	coll := cl.Database("fb").Collection("c")
	var sum idSummary
	for i := range 5 {
		id := oid.New()
		id[11] = byte(i)
		raw, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.ObjectID(id)}})
		sum.add(bson.Raw(raw).Lookup("_id"))
		if _, err := coll.InsertOne(ctx, bson.Raw(raw)); err != nil {
			t.Fatal(err)
		}
	}
	v := &dbVerifier{opts: DBOptions{Batch: 100}, rep: &Report{}}
	check := func(read idSummary, oidDocs int64) (*Row, int64) {
		aggregates.Store(0)
		st := &collState{e: &Expected{DB: "fb", Collection: "c", oids: true}, coll: coll, rows: &collRows{server: &Row{}}, ids: read}
		sc := v.startServerCheck(ctx, st)
		if err := v.serverTimestamps(ctx, st, sc, oidDocs); err != nil {
			t.Fatal(err)
		}
		return st.rows.server, aggregates.Load()
	}
	if r, n := check(sum, 5); r.Cases != 5 || r.Mismatches != 0 || n != 1 {
		t.Errorf("agreeing summary: %+v after %d aggregates; want 5 cases, none failed, one aggregate", r, n)
	}
	off := sum
	off.ms += 1000
	if r, n := check(off, 5); r.Cases != 5 || r.Mismatches != 0 || n != 2 {
		t.Errorf("differing summary: %+v after %d aggregates; want 5 cases converted one by one (2 aggregates), none failed", r, n)
	}
	r, _ := check(sum, 6)
	if r.Mismatches != 1 || !strings.Contains(strings.Join(r.Examples, ""), "server converted 5 ObjectID _ids, the read found 6") {
		t.Errorf("fewer conversions: %+v", r)
	}
}
