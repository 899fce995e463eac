package seed

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/rules"
)

// Coherent documents survive the real server: the shop plan at a 1970 time
// base (birth dates back to 1879, before the Unix epoch) and at the
// default one, written into the embedded server, read back byte for byte,
// and every rule holds on the documents as the server returns them.
func TestCoherentDocumentsRoundTripTheServer(t *testing.T) {
	s, err := embedded.Start(embedded.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	client, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetTimeout(60 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Disconnect(context.Background())
		_ = s.Close()
	})
	ctx := context.Background()
	for _, at := range []time.Time{time.Date(1970, 3, 1, 0, 0, 0, 0, time.UTC), {}} {
		p, _ := BuiltinPlan("shop", 300)
		p.Seed, p.Seeded, p.At, p.Span = 5, true, at, 40*24*time.Hour
		if !at.IsZero() {
			p.Span = 0 // the window may not start before the ObjectID epoch
		}
		ds, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		db := client.Database("coherent" + at.Format("2006"))
		h := newCoherence(t, ds)
		for _, c := range ds.Written() {
			coll := db.Collection(c.Name())
			writeStream(t, coll, c.Stream(ctx, StreamOptions{Check: rules.FerretDB.Check}))
			cur, err := coll.Find(ctx, bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			n := int64(0)
			for cur.Next(ctx) {
				raw := append(bson.Raw(nil), cur.Current...)
				i, ok := c.Index(raw.Lookup("_id"))
				if !ok {
					t.Fatalf("%s: stored _id %v is no document's", c.Name(), raw.Lookup("_id"))
				}
				want := marshal(t, c.Doc(i))
				if !bytes.Equal(raw, want) {
					t.Fatalf("%s[%d]: stored %v; generated %v", c.Name(), i, raw, bson.Raw(want))
				}
				h.check(c, i, raw)
				n++
			}
			if err := cur.Err(); err != nil {
				t.Fatal(err)
			}
			if n != c.Len() {
				t.Fatalf("%s: %d documents stored; want %d", c.Name(), n, c.Len())
			}
		}
	}
}

// writeStream inserts every batch of s into coll with the driver: the
// server's reading of the documents is what is tested, not a writer.
func writeStream(t *testing.T, coll *mongo.Collection, s *Stream) {
	t.Helper()
	defer s.Close()
	for {
		b, err := s.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := coll.InsertMany(context.Background(), b.Docs); err != nil {
			t.Fatal(err)
		}
	}
}
