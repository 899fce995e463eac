package mongowrite_test

import (
	"context"
	"hash/maphash"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

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
