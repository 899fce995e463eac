package wire

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// FuzzRead: no byte string makes the decoder panic or hang, and a
// message it accepts carries a valid command document.
func FuzzRead(f *testing.F) {
	cmd := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()
	f.Add(AppendReply(nil, 1, 0, OpMsg, cmd))
	f.Add(AppendReply(nil, 1, 0, OpQuery, cmd))
	f.Add([]byte{16, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xdd, 7, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Read(bytes.NewReader(b))
		if err == nil && m.Cmd.Validate() != nil {
			t.Fatalf("accepted an invalid command document")
		}
	})
}
