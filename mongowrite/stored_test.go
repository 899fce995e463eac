package mongowrite_test

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
)

// Stored's rule is the same whether it asks by _id or reads the whole
// collection: a document stored as it is is there and the same; one whose
// _id holds other bytes, also under another numeric type of the same
// value (1 stored as 1.0), is there and not the same; one whose _id is not
// stored is not there, whether the collection was read before or after it.
func TestStoredConfirm(t *testing.T) {
	_, client := server(t, t.TempDir())
	ctx := context.Background()
	coll := client.Database("stored").Collection("docs")
	stored := []any{
		bson.D{{Key: "_id", Value: 1.0}, {Key: "v", Value: "a"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "v", Value: "b"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "v", Value: "old"}},
	}
	if _, err := coll.InsertMany(ctx, stored); err != nil {
		t.Fatal(err)
	}
	docs := []bson.Raw{rawDoc(t, 1, "a"), rawDoc(t, 2, "b"), rawDoc(t, 3, "new"), rawDoc(t, 4, "late"), rawDoc(t, 5, "none")}
	wantSame := []bool{false, true, false, true, false}
	wantThere := []bool{true, true, true, true, false}
	read := func(ctx context.Context) (*mongowrite.Digests, error) {
		return mongowrite.ReadDigests(ctx, coll, maphash.MakeSeed())
	}
	for _, s := range []struct {
		name string
		st   *mongowrite.Stored
	}{
		{"by _id", &mongowrite.Stored{Coll: coll}},
		{"read, then by _id", &mongowrite.Stored{Coll: coll, Read: read}},
		{"read, then read again", &mongowrite.Stored{Coll: coll, Read: read, Scan: true}},
	} {
		t.Run(s.name, func(t *testing.T) {
			if s.st.Read != nil {
				// Read on the first duplicate, before document 4 is stored.
				if _, _, err := s.st.Confirm(ctx, docs, []int{1}); err != nil || s.st.Digests() == nil {
					t.Fatalf("first Confirm: %v, digests %v", err, s.st.Digests())
				}
			}
			late := rawDoc(t, 4, "late")
			if _, err := coll.InsertOne(ctx, late); err != nil {
				t.Fatal(err)
			}
			defer func() { _, _ = coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 4}}) }()
			same, there, err := s.st.Confirm(ctx, docs, []int{0, 1, 2, 3, 4})
			if err != nil {
				t.Fatal(err)
			}
			for i := range docs {
				if same[i] != wantSame[i] || there[i] != wantThere[i] {
					t.Errorf("document %d: same %v, there %v; want %v, %v", i, same[i], there[i], wantSame[i], wantThere[i])
				}
			}
		})
	}
}

// scanDoc is document i: every _id type a collection of the tests holds
// and nested values.
func scanDoc(i int) bson.D {
	ids := []any{int32(i), int64(i) << 40, fmt.Sprintf("s%05d", i), bson.NewObjectID(), float64(i) + 0.5}
	return bson.D{{Key: "_id", Value: ids[i%len(ids)]}, {Key: "n", Value: int32(i)},
		{Key: "sub", Value: bson.D{{Key: "a", Value: bson.A{int32(i), "x", bson.D{{Key: "deep", Value: true}}}}}}}
}

func readAll(t testing.TB, open func() (*mongo.Cursor, error)) [][]byte {
	t.Helper()
	cur, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(context.Background())
	var out [][]byte
	for cur.Next(context.Background()) {
		out = append(out, bytes.Clone(cur.Current))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Scan gives the documents a find without filter gives, byte for byte and
// in the same order, also after deletes and replacements moved some, and
// in batches smaller than the collection.
func TestScanIsFindInTheSameOrder(t *testing.T) {
	ctx := context.Background()
	_, client := mongotest.Start(t)
	coll := client.Database("scan").Collection("docs")
	docs := make([]any, 2500)
	for i := range docs {
		docs[i] = scanDoc(i)
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "n", Value: bson.D{{Key: "$mod", Value: bson.A{7, 3}}}}}); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{5, 600, 1999} {
		d := scanDoc(i)
		if _, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: d[0].Value}}, append(d, bson.E{Key: "replaced", Value: true})); err != nil {
			t.Fatal(err)
		}
	}
	want := readAll(t, func() (*mongo.Cursor, error) { return coll.Find(ctx, bson.D{}) })
	for _, batch := range []int32{0, 1, 333, 1000} {
		got := readAll(t, func() (*mongo.Cursor, error) { return mongowrite.Scan(ctx, coll, batch) })
		if len(got) != len(want) {
			t.Fatalf("batch %d: %d documents; find gives %d", batch, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("batch %d: document %d is %v; find gives %v", batch, i, bson.Raw(got[i]), bson.Raw(want[i]))
			}
		}
	}
	if len(want) < 2000 {
		t.Fatalf("only %d documents read", len(want))
	}
}

// BenchmarkScan reads 50,000 documents of about 200 bytes through Scan,
// beside a find without filter of the same collection in the same run.
func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	_, client := mongotest.Start(b)
	coll := client.Database("scan").Collection("bench")
	for range 50 {
		docs := make([]any, 1000)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "name", Value: "some name here"}, {Key: "n", Value: int32(i)},
				{Key: "tags", Value: bson.A{"a", "b"}}, {Key: "pad", Value: string(bytes.Repeat([]byte("x"), 120))}}
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			b.Fatal(err)
		}
	}
	read := func(b *testing.B, open func() (*mongo.Cursor, error)) {
		for b.Loop() {
			cur, err := open()
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for cur.Next(ctx) {
				n++
			}
			if err := cur.Close(ctx); err != nil || n != 50_000 {
				b.Fatalf("%d documents: %v", n, err)
			}
		}
		b.ReportMetric(50_000*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
	}
	b.Run("scan", func(b *testing.B) { read(b, func() (*mongo.Cursor, error) { return mongowrite.Scan(ctx, coll, 1000) }) })
	b.Run("find", func(b *testing.B) {
		read(b, func() (*mongo.Cursor, error) { return coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(1000)) })
	})
}
