package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// FuzzFilterAndUpdate: any filter and update document compiles or is
// refused with an error, and applying a compiled one never panics.
func FuzzFilterAndUpdate(f *testing.F) {
	f.Add([]byte(bsoncore.NewDocumentBuilder().AppendDocument("a", bsoncore.NewDocumentBuilder().AppendInt32("$gt", 1).Build()).Build()),
		[]byte(bsoncore.NewDocumentBuilder().AppendDocument("$inc", bsoncore.NewDocumentBuilder().AppendInt32("a.b", 1).Build()).Build()))
	f.Add([]byte(bsoncore.NewDocumentBuilder().AppendString("tags", "x").Build()),
		[]byte(bsoncore.NewDocumentBuilder().AppendDocument("$push", bsoncore.NewDocumentBuilder().AppendInt32("tags.$", 1).Build()).Build()))
	doc := bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).AppendDocument("a", bsoncore.NewDocumentBuilder().AppendInt32("b", 2).Build()).
		AppendArray("tags", bsoncore.BuildArray(nil, bsonval.String("x"), bsonval.Int32(3))).Build()
	f.Fuzz(func(t *testing.T, fb, ub []byte) {
		if bsoncore.Document(fb).Validate() != nil || bsoncore.Document(ub).Validate() != nil {
			return
		}
		fl, err := compileFilter(fb, nil)
		if err != nil {
			return
		}
		ok, pos := fl.MatchPos(doc)
		u, err := compileUpdate(bsonval.Doc(ub), nil, nil)
		if err != nil || !ok {
			return
		}
		out, err := u.Apply(doc, pos, false)
		if err == nil && out.Validate() != nil {
			t.Fatalf("update made invalid BSON")
		}
	})
}
