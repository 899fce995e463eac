package engine

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/wire"
)

// A reply being written when Shutdown begins is written whole before the
// connection closes: the request counts as in flight until its reply is
// on the wire. The client here reads a 12 MiB reply only after Shutdown
// has begun, so the server is blocked writing it all that time.
func TestShutdownWritesTheReplyInFlight(t *testing.T) {
	c, srv, _ := serveUnmanaged(t, "")
	coll := c.Database("d").Collection("big")
	pad := strings.Repeat("x", 1<<20)
	for i := range 12 {
		if _, err := coll.InsertOne(t.Context(), bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}}); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	cmd := bsoncore.NewDocumentBuilder().AppendString("find", "big").AppendInt32("batchSize", 100).AppendString("$db", "d").Build()
	msg := binary.LittleEndian.AppendUint32(nil, uint32(16+4+1+len(cmd)))
	msg = binary.LittleEndian.AppendUint32(msg, 1) // request id
	msg = binary.LittleEndian.AppendUint32(msg, 0)
	msg = binary.LittleEndian.AppendUint32(msg, wire.OpMsg)
	msg = binary.LittleEndian.AppendUint32(msg, 0) // flags
	msg = append(append(msg, 0), cmd...)
	if _, err := raw.Write(msg); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the server fills the socket's buffers and waits
	done := make(chan struct{})
	go func() {
		srv.Shutdown(time.Minute)
		close(done)
	}()
	time.Sleep(300 * time.Millisecond)
	_ = raw.SetReadDeadline(time.Now().Add(time.Minute))
	var head [4]byte
	if _, err := io.ReadFull(raw, head[:]); err != nil {
		t.Fatalf("reply header: %v", err)
	}
	size := int(binary.LittleEndian.Uint32(head[:]))
	body := make([]byte, size-4)
	if _, err := io.ReadFull(raw, body); err != nil {
		t.Fatalf("a %d-byte reply cut off by Shutdown: %v", size, err)
	}
	doc := bsoncore.Document(body[12+4+1:])
	if ok, _ := doc.Lookup("ok").AsFloat64OK(); ok != 1 || size < 12<<20 {
		t.Fatalf("reply of %d bytes: %v", size, doc)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Shutdown did not end once the reply was read")
	}
}
