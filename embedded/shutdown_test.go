package embedded

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestCloseAnswersWriteInFlight stops the server while one InsertMany (one
// message) is being written: the client must get its answer, and every
// document must be there after a restart.
func TestCloseAnswersWriteInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("writes for a second or more")
	}
	// Size the write to last about a second at this machine's present
	// speed, within one message (100,000 documents at most).
	rate := insertRate(t)
	n := min(100_000, max(2_000, int(rate)))
	took, err := closeDuringInsert(t, n)
	t.Logf("%d documents at %.0f/s measured: answered %v after Close began: %v", n, rate, took.Round(time.Millisecond), err)
	if err != nil && strings.Contains(err.Error(), ".go:") {
		t.Fatalf("the client got the server's source locations: %v", err)
	}
	if err != nil {
		t.Fatalf("InsertMany in flight at Close: %v; want it answered", err)
	}
}

// testDocs are n documents of about 250 bytes.
func testDocs(n int) []any {
	pad := strings.Repeat("x", 200)
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}}
	}
	return docs
}

// insertRate is documents per second of one InsertMany on this machine now.
func insertRate(t *testing.T) float64 {
	_, c := serve(t, Options{DataDir: t.TempDir()})
	const n = 2000
	st := time.Now()
	if _, err := c.Database("t").Collection("c").InsertMany(context.Background(), testDocs(n)); err != nil {
		t.Fatal(err)
	}
	return n / time.Since(st).Seconds()
}

// closeDuringInsert starts an InsertMany of n documents, closes the server
// once the first are stored, and returns how long after Close began the
// insert was answered and its error. It checks that all n documents are
// stored when the insert succeeded.
func closeDuringInsert(t *testing.T, n int) (time.Duration, error) {
	dir := t.TempDir()
	s, c := serve(t, Options{DataDir: dir})
	s.grace = 5 * time.Minute // the test's write may be slow under load
	coll := c.Database("t").Collection("c")
	if err := c.Database("t").CreateCollection(context.Background(), "c"); err != nil {
		t.Fatal(err)
	}
	docs := testDocs(n)
	type answer struct {
		at  time.Time
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		_, err := coll.InsertMany(context.Background(), docs)
		answered <- answer{time.Now(), err}
	}()
	// Another client watches until the first documents are stored.
	w, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		t.Fatal(err)
	}
	for {
		got, err := w.Database("t").Collection("c").EstimatedDocumentCount(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = w.Disconnect(context.Background())
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	a := <-answered
	if a.err != nil {
		return a.at.Sub(start), a.err
	}
	_, c2 := serve(t, Options{DataDir: dir})
	got, err := c2.Database("t").Collection("c").CountDocuments(context.Background(), bson.D{})
	if err != nil || got != int64(n) {
		t.Fatalf("after a restart: %d documents, %v; want the %d acknowledged", got, err, n)
	}
	return a.at.Sub(start), nil
}

// serve starts a server and a client of it; both end with the test, if
// not before (Close may be called twice).
func serve(t *testing.T, opts Options) (*Server, *mongo.Client) {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The server may be gone: the driver would wait its 30 s server
		// selection to end the sessions.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = c.Disconnect(ctx)
	})
	return s, c
}
