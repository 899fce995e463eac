package engine

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// FuzzReadMessage: no byte string makes the decoder panic or hang, and a
// message it accepts carries a valid command document.
func FuzzReadMessage(f *testing.F) {
	cmd := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()
	f.Add(appendReply(nil, 1, 0, opMsg, cmd))
	f.Add(appendReply(nil, 1, 0, opQuery, cmd))
	f.Add([]byte{16, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xdd, 7, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := readMessage(bytes.NewReader(b))
		if err == nil && m.cmd.Validate() != nil {
			t.Fatalf("accepted an invalid command document")
		}
	})
}

// FuzzFilterAndUpdate: any filter and update document compiles or is
// refused with an error, and applying a compiled one never panics.
func FuzzFilterAndUpdate(f *testing.F) {
	f.Add([]byte(bsoncore.NewDocumentBuilder().AppendDocument("a", bsoncore.NewDocumentBuilder().AppendInt32("$gt", 1).Build()).Build()),
		[]byte(bsoncore.NewDocumentBuilder().AppendDocument("$inc", bsoncore.NewDocumentBuilder().AppendInt32("a.b", 1).Build()).Build()))
	f.Add([]byte(bsoncore.NewDocumentBuilder().AppendString("tags", "x").Build()),
		[]byte(bsoncore.NewDocumentBuilder().AppendDocument("$push", bsoncore.NewDocumentBuilder().AppendInt32("tags.$", 1).Build()).Build()))
	doc := bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).AppendDocument("a", bsoncore.NewDocumentBuilder().AppendInt32("b", 2).Build()).
		AppendArray("tags", bsoncore.BuildArray(nil, vString("x"), vInt32(3))).Build()
	f.Fuzz(func(t *testing.T, fb, ub []byte) {
		if bsoncore.Document(fb).Validate() != nil || bsoncore.Document(ub).Validate() != nil {
			return
		}
		fl, err := compileFilter(fb, nil)
		if err != nil {
			return
		}
		ok, pos := fl.MatchPos(doc)
		u, err := compileUpdate(vDoc(ub), nil, nil)
		if err != nil || !ok {
			return
		}
		out, err := u.apply(doc, pos, false)
		if err == nil && out.Validate() != nil {
			t.Fatalf("update made invalid BSON")
		}
	})
}
