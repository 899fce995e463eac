package mongowrite

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"weak"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The insert command of oidkit's own server. The driver's InsertMany
// marshals every document again and decodes each one's _id into a Go
// value (through reflection and a buffered reader per document) before
// sending it: on the in-process server that costs the client more than
// the server spends storing the document. Documents that are already
// BSON can go as they are, in one insert command. Only the embedded
// server gets it: it is one node with nothing to retry on, and it applies
// no write concern but the failure of one it cannot satisfy, so the
// command and InsertMany store the same and fail the same. Any other
// server gets InsertMany (retryable writes, the client's write concern).

// embedded remembers, per client, whether its server is oidkit's own
// (buildInfo's gitVersion "oidkit"). A weak key does not keep a client.
var embedded sync.Map // weak.Pointer[mongo.Client] -> bool

func isEmbedded(ctx context.Context, client *mongo.Client) bool {
	key := weak.Make(client)
	if v, ok := embedded.Load(key); ok {
		return v.(bool)
	}
	var info struct {
		GitVersion string `bson:"gitVersion"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return false // asked again next time
	}
	is := info.GitVersion == "oidkit"
	embedded.Store(key, is)
	return is
}

// insertCommand inserts docs unordered with an insert command per batch
// (Cut: a command may be 16 MiB and 16 KiB, which BatchBytes of documents
// fit), and returns what InsertMany returns: nil, a
// mongo.BulkWriteException of the refused documents (indexes in docs), or
// the error that stopped it.
func insertCommand(ctx context.Context, coll *mongo.Collection, docs []bson.Raw) error {
	// A command is not cut off once sent (the deadline still bounds it):
	// the in-process server stores it anyway, and its answer makes the
	// batch's outcome known, where a cut-off one would leave the caller to
	// count what the server holds while the server is still storing it.
	// A cancelled ctx stops the next command before it is sent.
	sent, cancel := context.WithoutCancel(ctx), context.CancelFunc(func() {})
	if dl, ok := ctx.Deadline(); ok {
		sent, cancel = context.WithDeadline(sent, dl)
	}
	defer cancel()
	var bwe mongo.BulkWriteException
	var cmd []byte
	for from := 0; from < len(docs); {
		if err := ctx.Err(); err != nil {
			return err
		}
		to, size := from+Cut(docs[from:], len(docs)-from), 0
		for _, d := range docs[from:to] {
			size += len(d)
		}
		if need := size + 8*(to-from) + 64 + len(coll.Name()); cap(cmd) < need {
			cmd = make([]byte, 0, need)
		}
		cmd = appendInsert(cmd[:0], coll.Name(), docs[from:to])
		reply, err := coll.Database().RunCommand(sent, bson.Raw(cmd)).Raw()
		// The driver reads the write errors of a reply as an error of
		// its own; the reply has them all.
		var wex mongo.WriteException
		if err != nil && (reply == nil || !errors.As(err, &wex)) {
			return err
		}
		if err := readInsertReply(reply, docs, from, &bwe); err != nil {
			return err
		}
		from = to
	}
	if len(bwe.WriteErrors) > 0 || bwe.WriteConcernError != nil {
		return bwe
	}
	return nil
}

func appendInsert(dst []byte, coll string, docs []bson.Raw) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendStringElement(dst, "insert", coll)
	aidx, dst := bsoncore.AppendArrayElementStart(dst, "documents")
	var key []byte
	for i, d := range docs {
		key = strconv.AppendInt(key[:0], int64(i), 10)
		dst = append(dst, byte(bsoncore.TypeEmbeddedDocument))
		dst = append(dst, key...)
		dst = append(dst, 0)
		dst = append(dst, d...)
	}
	dst, _ = bsoncore.AppendArrayEnd(dst, aidx)
	dst = bsoncore.AppendBooleanElement(dst, "ordered", false)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// readInsertReply adds the write errors and write concern error of an
// insert command's reply to bwe, as the driver reports them: each error's
// index is in docs (the command's documents start at from).
func readInsertReply(reply bson.Raw, docs []bson.Raw, from int, bwe *mongo.BulkWriteException) error {
	if v, err := reply.LookupErr("writeErrors"); err == nil {
		arr, ok := v.ArrayOK()
		if !ok {
			return errReply("writeErrors is not an array")
		}
		vals, err := arr.Values()
		if err != nil {
			return errReply(err.Error())
		}
		for _, ev := range vals {
			d, ok := ev.DocumentOK()
			if !ok {
				return errReply("a write error is not a document")
			}
			we := mongo.WriteError{Index: int(lookupInt(d, "index")) + from, Code: int(lookupInt(d, "code")), Raw: d}
			if m, ok := d.Lookup("errmsg").StringValueOK(); ok {
				we.Message = m
			}
			if info, ok := d.Lookup("errInfo").DocumentOK(); ok {
				we.Details = info
			}
			var req mongo.WriteModel
			if we.Index >= 0 && we.Index < len(docs) {
				req = mongo.NewInsertOneModel().SetDocument(docs[we.Index])
			}
			bwe.WriteErrors = append(bwe.WriteErrors, mongo.BulkWriteError{WriteError: we, Request: req})
		}
	}
	if d, ok := reply.Lookup("writeConcernError").DocumentOK(); ok && bwe.WriteConcernError == nil {
		wce := &mongo.WriteConcernError{Code: int(lookupInt(d, "code")), Raw: d}
		wce.Name, _ = d.Lookup("codeName").StringValueOK()
		wce.Message, _ = d.Lookup("errmsg").StringValueOK()
		if info, ok := d.Lookup("errInfo").DocumentOK(); ok {
			wce.Details = info
		}
		bwe.WriteConcernError = wce
	}
	if labels, ok := reply.Lookup("errorLabels").ArrayOK(); ok {
		vals, _ := labels.Values()
		for _, l := range vals {
			if s, ok := l.StringValueOK(); ok {
				bwe.Labels = append(bwe.Labels, s)
			}
		}
	}
	return nil
}

func lookupInt(d bson.Raw, key string) int64 {
	v, err := d.LookupErr(key)
	if err != nil {
		return -1
	}
	if n, ok := v.AsInt64OK(); ok {
		return n
	}
	return -1
}

// errReply is an insert reply the client cannot read.
type errReply string

func (e errReply) Error() string { return "the server's insert reply: " + string(e) }
