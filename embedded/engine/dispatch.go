package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/wire"
)

// handle runs one command and returns its reply; it never panics out.
func (s *Server) handle(ctx context.Context, cn *conn, m *wire.Message) (reply bsoncore.Document) {
	defer func() {
		if r := recover(); r != nil {
			reply = errorReply(mongoerr.New(mongoerr.InternalError, "internal error while running the command"))
		}
	}()
	name, db, h, refused := route(m)
	if refused != nil {
		return refused
	}
	if v, err := m.Cmd.LookupErr("maxTimeMS"); err == nil && bsonval.IsNumber(v) && bsonval.NumberFloat(v) > 0 && name != "getMore" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(bsonval.NumberFloat(v)*float64(time.Millisecond)))
		defer cancel()
	}
	ctx, done := s.ops.begin(ctx, cn, db, name, m.Cmd)
	defer done()
	sa := sessionArgsOf(m.Cmd)
	x, err := s.transactionFor(name, sa)
	if err != nil {
		return errorReply(err)
	}
	if x != nil {
		if !inTransaction[name] {
			return errorReply(mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "Cannot run '%s' in a multi-document transaction.", name))
		}
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.getStatus() == txnAborted {
			return errorReply(noSuchTransaction(x.number))
		}
	} else if r := s.retried(name, sa); r != nil {
		return r
	}
	var wce bsoncore.Document
	var wceLabels []string
	if name != "configureFailPoint" {
		if f := s.failCommand.hit(name, cn.appName); f != nil {
			answer, reply := f.apply(ctx, name, m.Cmd)
			if !answer {
				return nil
			}
			if reply != nil {
				return reply
			}
			wce, wceLabels = f.wce, f.wceLabels(name, m.Cmd)
		}
	}
	var onWrite *fault
	if x == nil && retryableWrite(name, m.Cmd) {
		if onWrite = s.onPrimaryTransactionalWrite.hit(name, cn.appName); onWrite != nil && onWrite.beforeCommit != 0 {
			if onWrite.close {
				return nil
			}
			return errorReply(&mongoerr.Error{Code: mongoerr.Code(onWrite.beforeCommit), Msg: "Failing write via 'onPrimaryTransactionalWrite' failpoint"})
		}
	}
	res, err := s.run(ctx, cn, h, db, name, m.Cmd, x)
	if err == nil && x == nil {
		s.remember(name, sa, res) // a retry gets the answer, not the injected fault
	}
	if onWrite != nil && onWrite.close {
		return nil // made, and the answer lost with the connection
	}
	if err == nil && wce != nil {
		res = withWriteConcernError(res, wce, wceLabels)
	} else if err == nil && (x == nil || name == "commitTransaction" || name == "abortTransaction") {
		// inside a transaction only its end takes a write concern
		if wc := unsatisfiable(m.Cmd); wc != nil {
			res = withWriteConcernError(res, wc, nil)
		}
	}
	return finalReply(ctx, res, err)
}

// route reads a command's name, its database ($db, or an OP_QUERY's
// namespace; admin when neither) and its handler; refused is the error
// reply to an empty or unknown command.
func route(m *wire.Message) (name, db string, h handler, refused bsoncore.Document) {
	els := bsonval.Elements(m.Cmd)
	if len(els) == 0 {
		return "", "", nil, errorReply(mongoerr.New(mongoerr.FailedToParse, "empty command"))
	}
	name = els[0].Key()
	db = "admin"
	if v, err := m.Cmd.LookupErr("$db"); err == nil && v.Type == bsoncore.TypeString {
		db = v.StringValue()
	} else if m.OpCode == wire.OpQuery {
		if i := indexByte(m.Collection, '.'); i > 0 {
			db = m.Collection[:i]
		}
	}
	h, ok := commands[name]
	if !ok {
		return "", "", nil, errorReply(mongoerr.New(mongoerr.CommandNotFound, "no such command: '%s'", name))
	}
	return name, db, h, nil
}

// run runs a command's handler h, in transaction x if any, again each
// time a transaction holds a document it writes, once that ends.
func (s *Server) run(ctx context.Context, cn *conn, h handler, db, name string, cmd bsoncore.Document, x *txn) (bsoncore.Document, error) {
	opsBefore := 0
	if x != nil && x.t != nil {
		opsBefore = len(x.t.ops)
	}
	res, err := h(&call{ctx: ctx, srv: s, conn: cn, db: db, cmd: cmd, name: name, txn: x})
	for held := (*heldError)(nil); errors.As(err, &held); {
		// a document it writes is held by a transaction: run it again once that ends
		if err = s.awaitEnd(ctx, held.x); err == nil {
			res, err = h(&call{ctx: ctx, srv: s, conn: cn, db: db, cmd: cmd, name: name})
		}
	}
	if x != nil {
		err = s.afterInTransaction(x, opsBefore, res, err)
	}
	return res, err
}

// finalReply is the reply to a command that answered res or err: the
// error of a command whose time ran out or that was interrupted, even
// when it answered.
func finalReply(ctx context.Context, res bsoncore.Document, err error) bsoncore.Document {
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = mongoerr.New(mongoerr.MaxTimeMSExpired, "operation exceeded time limit")
		} else if errors.Is(err, context.Canceled) {
			err = mongoerr.New(mongoerr.Interrupted, "operation was interrupted")
		}
		return errorReply(err)
	}
	return res
}

// unsatisfiable is the write concern error MongoDB's one-node replica
// set answers a command whose writeConcern it cannot satisfy: w over one
// node (UnsatisfiableWriteConcern, 100) or a tag set it does not have
// (UnknownReplWriteConcern, 79); the write itself is made. nil when the
// write concern is satisfied.
func unsatisfiable(cmd bsoncore.Document) bsoncore.Document {
	wc, err := cmd.LookupErr("writeConcern")
	if err != nil || wc.Type != bsoncore.TypeEmbeddedDocument {
		return nil
	}
	w, err := bsoncore.Document(wc.Data).LookupErr("w")
	if err != nil {
		return nil
	}
	switch {
	case bsonval.IsNumber(w) && bsonval.NumberFloat(w) > 1:
		return bsoncore.NewDocumentBuilder().AppendInt32("code", 100).AppendString("codeName", "UnsatisfiableWriteConcern").
			AppendString("errmsg", "Not enough data-bearing nodes").Build()
	case w.Type == bsoncore.TypeString && w.StringValue() != "majority":
		return bsoncore.NewDocumentBuilder().AppendInt32("code", 79).AppendString("codeName", "UnknownReplWriteConcern").
			AppendString("errmsg", "No write concern mode named '"+w.StringValue()+"' found in replica set configuration").Build()
	}
	return nil
}

// appendReply appends the wire message that answers m: reply with the
// replica set's logical clock appended, as MongoDB does: operationTime and
// $clusterTime (with a signature of zeros: the server has no keys), which
// drivers gossip and use for causally consistent sessions. Every answer is
// at the latest time (t, i), so any afterClusterTime a driver sends back is
// already reached. The reply is copied once, into the message.
func (s *Server) appendReply(dst []byte, m *wire.Message, reply bsoncore.Document, t, i uint32) []byte {
	dst = wire.AppendReply(dst, int32(s.opID.Add(1)), m.RequestID, m.OpCode, reply)
	doc := len(dst) - len(reply)
	ct := bsoncore.NewDocumentBuilder().AppendTimestamp("clusterTime", t, i).AppendDocument("signature", clusterTimeSignature).Build()
	dst = dst[:len(dst)-1] // the reply's terminating 0
	dst = bsoncore.AppendTimestampElement(dst, "operationTime", t, i)
	dst = bsoncore.AppendDocumentElement(dst, "$clusterTime", ct)
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[doc:], uint32(len(dst)-doc))
	binary.LittleEndian.PutUint32(dst, uint32(len(dst)))
	return dst
}

// clusterTimeSignature signs $clusterTime with no key: a hash of zeros.
var clusterTimeSignature = bsoncore.NewDocumentBuilder().AppendBinary("hash", 0, make([]byte, 20)).AppendInt64("keyId", 0).Build()

// tick is the next time of the logical clock: seconds and an increment.
func (s *Server) tick() (uint32, uint32) { return s.store.clock.tick() }

// hasWriteErrors reports whether a write's reply lists write errors.
func hasWriteErrors(reply bsoncore.Document) bool {
	_, err := reply.LookupErr("writeErrors")
	return err == nil
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

type reply struct{ b *bsoncore.DocumentBuilder }

func newReply() reply { return reply{bsoncore.NewDocumentBuilder()} }

func (r reply) ok() bsoncore.Document {
	r.b.AppendDouble("ok", 1)
	return r.b.Build()
}

func errorReply(err error) bsoncore.Document {
	e := mongoerr.As(err)
	b := bsoncore.NewDocumentBuilder().AppendDouble("ok", 0).AppendString("errmsg", e.Msg).AppendInt32("code", int32(e.Code)).AppendString("codeName", e.Code.Name())
	if len(e.Labels) > 0 {
		vals := make([]bsoncore.Value, len(e.Labels))
		for i, l := range e.Labels {
			vals[i] = bsonval.String(l)
		}
		b.AppendArray("errorLabels", bsoncore.BuildArray(nil, vals...))
	}
	for _, el := range bsonval.Elements(e.Extra) {
		b.AppendValue(el.Key(), el.Value())
	}
	if stateChangeCodes[int32(e.Code)] {
		b.AppendDocument("topologyVersion", topologyVersion())
	}
	return b.Build()
}

// stateChangeCodes are the "not primary" and "node is recovering" codes
// of MongoDB's SDAM specification. An error with one of them carries the
// server's topologyVersion, as MongoDB's do: a driver then knows the
// server has not changed (only a fail point can produce them here) and
// keeps using it, instead of waiting for its next heartbeat.
var stateChangeCodes = map[int32]bool{10107: true, 13435: true, 10058: true, 11600: true, 11602: true, 13436: true, 189: true, 91: true}

// topologyVersion is the server's: this process, and a counter that
// never moves, since a standalone's topology never changes.
func topologyVersion() bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendObjectID("processId", processID).AppendInt64("counter", 0).Build()
}
