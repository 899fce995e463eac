package mongowrite_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
)

// uniqueInput hands CheckUniqueInput docs at the positions 10, 20, ...,
// named "doc@pos", with the indexes coll has (as Prepare lists them).
func uniqueInput(t *testing.T, coll *mongo.Collection, declared []indexes.Index, drop bool, docs ...bson.D) mongowrite.UniqueInput {
	t.Helper()
	have, err := indexes.List(context.Background(), coll)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	return mongowrite.UniqueInput{
		Collection: coll, Have: have, Declared: declared, Drop: drop, Profile: rules.MongoDB,
		Next: func() (bson.Raw, int64, error) {
			if k == len(docs) {
				return nil, 0, io.EOF
			}
			k++
			raw, err := bson.Marshal(docs[k-1])
			return raw, int64(k * 10), err
		},
		Place: func(pos int64) string { return fmt.Sprintf("doc@%d", pos) },
	}
}

// The input is checked against itself in the declared indexes, and against
// the stored documents in the collection's own, clashes listed in input
// order whatever the index; with Drop the stored documents are not asked,
// and a stored document does not clash with itself.
func TestCheckUniqueInput(t *testing.T) {
	_, client := mongotest.Start(t)
	ctx := context.Background()
	coll := client.Database("oidkit").Collection("people")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "email", Value: "a"}, {Key: "nick", Value: "x"}}); err != nil {
		t.Fatal(err)
	}
	for _, ix := range []indexes.Index{{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true}, {Key: bson.D{{Key: "nick", Value: int32(-1)}}, Unique: true}} {
		if err := indexes.Create(ctx, coll, []indexes.Index{ix}); err != nil {
			t.Fatal(err)
		}
	}
	code := bson.D{{Key: "code", Value: int32(1)}}
	declared := []indexes.Index{{Key: code, Unique: true}}

	_, err := mongowrite.CheckUniqueInput(ctx, uniqueInput(t, client.Database("oidkit").Collection("codes"), declared, false,
		bson.D{{Key: "_id", Value: 2}, {Key: "code", Value: 7}}, bson.D{{Key: "_id", Value: 3}, {Key: "code", Value: int64(7)}}))
	var ue *mongowrite.UniqueInputError
	if !errors.As(err, &ue) || ue.Count != 1 || ue.Listed[0] != (mongowrite.UniqueDuplicate{Index: "code_1", Key: `{"$numberLong":"7"}`, First: "doc@10", Second: "doc@20"}) || ue.ExitCode() != 2 {
		t.Fatalf("a key twice in the input: %v", err)
	}

	clashing := []bson.D{
		{{Key: "_id", Value: 4}, {Key: "email", Value: "b"}, {Key: "nick", Value: "x"}},
		{{Key: "_id", Value: 5}, {Key: "email", Value: "a"}, {Key: "nick", Value: "y"}},
	}
	_, err = mongowrite.CheckUniqueInput(ctx, uniqueInput(t, coll, nil, false, clashing...))
	var uc *mongowrite.UniqueClashError
	if !errors.As(err, &uc) || uc.Count != 2 || uc.ExitCode() != 1 ||
		uc.Listed[0] != (mongowrite.UniqueClash{Index: "nick_-1", Key: `"x"`, StoredID: "1", At: "doc@10"}) || uc.Listed[1].At != "doc@20" {
		t.Fatalf("keys held by a stored document: %v", err)
	}
	if _, err := mongowrite.CheckUniqueInput(ctx, uniqueInput(t, coll, nil, true, clashing...)); err != nil {
		t.Fatalf("with Drop: %v", err)
	}
	if _, err := mongowrite.CheckUniqueInput(ctx, uniqueInput(t, coll, nil, false, bson.D{{Key: "_id", Value: 1}, {Key: "email", Value: "a"}, {Key: "nick", Value: "x"}})); err != nil {
		t.Fatalf("the stored document itself: %v", err)
	}
}
