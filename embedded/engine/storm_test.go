package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A storm of requests that time out (maxTimeMS), are cancelled by their
// client's context, or lose their connection mid-way leaves the server
// answering every later request correctly: the data unchanged, writes,
// creates and aggregations working (the failure mode of the Go driver's
// TestClientStress on the previous embedded server, after which every
// create answered "interrupted").
func TestTimeoutStormLeavesServerHealthy(t *testing.T) {
	uri, c, _ := serveURI(t, "")
	ctx := context.Background()
	coll := c.Database("storm").Collection("c")
	const n = 5000 // an aggregation of them takes over the 1 ms some requests allow
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "g", Value: i % 97}, {Key: "s", Value: fmt.Sprint("v", i)}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	group := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$regex", Value: "7"}}}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	kinds := map[string]int{}
	note := func(k string) { mu.Lock(); kinds[k]++; mu.Unlock() }
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				switch (w + i) % 3 {
				case 0: // the server's deadline
					_, err := coll.Aggregate(ctx, group, options.Aggregate().SetCustom(bson.M{"maxTimeMS": 1}))
					note(errKind(err))
				case 1: // the client's deadline
					cctx, cancel := context.WithTimeout(ctx, time.Duration(i%5)*100*time.Microsecond)
					_, err := coll.Aggregate(cctx, group)
					cancel()
					note(errKind(err))
				case 2: // a client that goes away mid-request
					cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(10 * time.Second))
					if err != nil {
						t.Error(err)
						return
					}
					if err := cl.Ping(ctx, nil); err != nil {
						// under the storm (and the race detector) a new
						// client may not get its connection in time; the
						// checks after the storm say whether the server
						// is well
						note("connect: " + errKind(err))
						_ = cl.Disconnect(ctx)
						continue
					}
					done := make(chan struct{})
					go func() {
						_, _ = cl.Database("storm").Collection("c").Aggregate(ctx, group)
						close(done)
					}()
					time.Sleep(time.Duration(i%4) * time.Millisecond)
					_ = cl.Disconnect(ctx)
					<-done
					note("disconnected")
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("storm: %v", kinds)
	if kinds["MaxTimeMSExpired"] == 0 {
		t.Errorf("no request hit its maxTimeMS: %v; the storm did not storm", kinds)
	}
	// Afterwards, everything answers as before.
	if got, err := coll.CountDocuments(ctx, bson.D{}); err != nil || got != n {
		t.Fatalf("count after the storm: %d, %v; want %d", got, err, n)
	}
	cur, err := coll.Aggregate(ctx, group)
	if err != nil {
		t.Fatalf("aggregate after the storm: %v", err)
	}
	var groups []bson.M
	if err := cur.All(ctx, &groups); err != nil || len(groups) != 97 {
		t.Fatalf("aggregate after the storm: %d groups, %v; want 97", len(groups), err)
	}
	for i := range 20 {
		if err := c.Database("storm").CreateCollection(ctx, fmt.Sprint("new", i)); err != nil {
			t.Fatalf("create after the storm: %v", err)
		}
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "g", Value: 1}}}}); err != nil {
		t.Fatalf("update after the storm: %v", err)
	}
}

// errKind names an error by its server code name, or by what ended it.
func errKind(err error) string {
	var ce mongo.CommandError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &ce) && ce.Name != "":
		return ce.Name
	case errors.Is(err, context.DeadlineExceeded), mongo.IsTimeout(err):
		return "client timeout"
	}
	return "other: " + err.Error()
}
