package engine

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// Fault injection as mongod does it with test commands enabled:
//
//	{configureFailPoint: "failCommand", mode: "alwaysOn" | "off" | {times: N} | {skip: N},
//	 data: {failCommands: [names], errorCode, errorLabels, closeConnection,
//	        blockConnection, blockTimeMS, writeConcernError, appName}}
//
// A command named in failCommands (from a client whose application name is
// appName, when given) then fails with errorCode, has its connection closed
// without an answer, is held for blockTimeMS first, or runs and answers
// with writeConcernError. configureFailPoint and the handshake's hello are
// never failed unless named. Test commands are always on: the server is
// for tests.
//
// failGetMoreAfterCursorCheckout fails getMores with errorCode once their
// cursor is taken. onPrimaryTransactionalWrite acts on retryable writes
// (a txnNumber outside a transaction), data {closeConnection (default
// true), failBeforeCommitExceptionCode}: the write is made and its
// connection closed before the answer, or with
// failBeforeCommitExceptionCode it fails with that code unmade (the
// connection closed too, unless closeConnection is false), as MongoDB's
// retryable-writes tests use it.

// failCommand is the state of the failCommand fail point.
type failCommand struct {
	mu      sync.Mutex
	on      bool
	times   int // >0: fail this many more times; 0 with on: always
	skip    int // commands to let through first
	entered int64
	cmds    map[string]bool
	code    int32
	labels  []string
	hasLbl  bool // errorLabels given, even empty: exactly those
	close   bool
	block   time.Duration
	wce     bsoncore.Document
	appName string
	// beforeCommit is onPrimaryTransactionalWrite's
	// failBeforeCommitExceptionCode.
	beforeCommit int32
}

// fault is what a fail point does to one command.
type fault struct {
	code   int32
	labels []string
	hasLbl bool
	close  bool
	block  time.Duration
	wce    bsoncore.Document
	// beforeCommit fails a retryable write with this code, unmade.
	beforeCommit int32
}

// hit reports the fault for a command named name from a client named
// app, counting it, or nil.
func (f *failCommand) hit(name, app string) *fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.on || !f.cmds[name] || f.appName != "" && f.appName != app {
		return nil
	}
	if f.skip > 0 {
		f.skip--
		return nil
	}
	f.entered++
	if f.times > 0 {
		f.times--
		if f.times == 0 {
			f.on = false
		}
	}
	return &fault{code: f.code, labels: f.labels, hasLbl: f.hasLbl, close: f.close, block: f.block, wce: f.wce, beforeCommit: f.beforeCommit}
}

func cmdConfigureFailPoint(c *call) (bsoncore.Document, error) {
	name := c.arg("configureFailPoint")
	if name.Type != bsoncore.TypeString {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "configureFailPoint: expected the fail point's name as a string")
	}
	var f *failCommand
	next := failCommand{}
	switch name.StringValue() {
	case "failCommand":
		f = &c.srv.failCommand
	case "failGetMoreAfterCursorCheckout":
		f = &c.srv.failGetMoreAfterCheckout
	case "onPrimaryTransactionalWrite":
		f = &c.srv.onPrimaryTransactionalWrite
		next.close = true
	default:
		return nil, mongoerr.New(mongoerr.BadValue, "unknown fail point %q: oidkit's server has failCommand, failGetMoreAfterCursorCheckout and onPrimaryTransactionalWrite", name.StringValue())
	}
	if err := next.readMode(c.arg("mode")); err != nil {
		return nil, err
	}
	if d := c.arg("data"); d.Type == bsoncore.TypeEmbeddedDocument {
		next.readData(bsoncore.Document(d.Data))
	}
	switch f {
	case &c.srv.failGetMoreAfterCheckout:
		next.cmds = map[string]bool{"getMore": true}
	case &c.srv.onPrimaryTransactionalWrite:
		next.cmds = map[string]bool{"insert": true, "update": true, "delete": true, "findAndModify": true, "bulkWrite": true}
	}
	f.mu.Lock()
	count := f.entered
	next.entered = f.entered
	f.on, f.times, f.skip, f.cmds, f.code, f.labels, f.hasLbl = next.on, next.times, next.skip, next.cmds, next.code, next.labels, next.hasLbl
	f.close, f.block, f.wce, f.appName, f.beforeCommit = next.close, next.block, next.wce, next.appName, next.beforeCommit
	f.mu.Unlock()
	return newReply().b.AppendInt64("count", count).AppendDouble("ok", 1).Build(), nil
}

// readMode reads a configureFailPoint's mode into f: "alwaysOn",
// "off", {times: N} or {skip: N}.
func (f *failCommand) readMode(mode bsoncore.Value) error {
	switch {
	case mode.Type == bsoncore.TypeString && mode.StringValue() == "alwaysOn":
		f.on = true
	case mode.Type == bsoncore.TypeString && mode.StringValue() == "off":
	case mode.Type == bsoncore.TypeEmbeddedDocument:
		md := bsoncore.Document(mode.Data)
		if v, err := md.LookupErr("times"); err == nil && bsonval.IsNumber(v) {
			f.on, f.times = bsonval.NumberFloat(v) > 0, int(bsonval.NumberFloat(v))
		} else if v, err := md.LookupErr("skip"); err == nil && bsonval.IsNumber(v) {
			f.on, f.skip = true, int(bsonval.NumberFloat(v))
		} else {
			return mongoerr.New(mongoerr.BadValue, "configureFailPoint: mode %s: expected {times: N} or {skip: N}", bsonval.Shell(mode))
		}
	default:
		return mongoerr.New(mongoerr.BadValue, "configureFailPoint: mode %s: expected \"alwaysOn\", \"off\", {times: N} or {skip: N}", bsonval.Shell(mode))
	}
	return nil
}

// readData reads a configureFailPoint's data into f: the commands it
// fails and how.
func (f *failCommand) readData(d bsoncore.Document) {
	f.cmds = map[string]bool{}
	for _, el := range bsonval.Elements(d) {
		v := el.Value()
		switch el.Key() {
		case "failCommands":
			for _, n := range bsonval.ArrayValues(v) {
				if n.Type == bsoncore.TypeString {
					f.cmds[n.StringValue()] = true
				}
			}
		case "errorCode":
			f.code = int32(bsonval.NumberFloat(v))
		case "errorLabels":
			f.hasLbl = true
			for _, l := range bsonval.ArrayValues(v) {
				if l.Type == bsoncore.TypeString {
					f.labels = append(f.labels, l.StringValue())
				}
			}
		case "closeConnection":
			f.close = bsonval.Truthy(v)
		case "blockConnection":
			if !bsonval.Truthy(v) {
				f.block = -1
			}
		case "blockTimeMS":
			if f.block >= 0 {
				f.block = time.Duration(bsonval.NumberFloat(v) * float64(time.Millisecond))
			}
		case "writeConcernError":
			if v.Type == bsoncore.TypeEmbeddedDocument {
				f.wce = bsoncore.Document(v.Data)
			}
		case "appName":
			if v.Type == bsoncore.TypeString {
				f.appName = v.StringValue()
			}
		case "failBeforeCommitExceptionCode":
			f.beforeCommit = int32(bsonval.NumberFloat(v))
		}
	}
	if f.block < 0 {
		f.block = 0
	}
}

// resumableCodes are the codes MongoDB labels ResumableChangeStreamError
// on a change stream's getMore: a driver resumes the stream after them.
var resumableCodes = map[int32]bool{6: true, 7: true, 89: true, 91: true, 189: true, 262: true, 9001: true, 10107: true,
	11600: true, 11602: true, 13435: true, 13436: true, 63: true, 150: true, 13388: true, 234: true, 133: true, 43: true}

// failGetMore is the failGetMoreAfterCursorCheckout fail point on a
// getMore of cursor cur: the error it answers, the cursor killed, or nil.
func (s *Server) failGetMore(cur *cursor) error {
	f := s.failGetMoreAfterCheckout.hit("getMore", "")
	if f == nil || f.code == 0 {
		return nil
	}
	e := &mongoerr.Error{Code: mongoerr.Code(f.code), Msg: "Failing command via 'failGetMoreAfterCursorCheckout' failpoint"}
	if _, stream := cur.src.(*changeStream); stream && resumableCodes[f.code] {
		e.Labels = []string{"ResumableChangeStreamError"}
	}
	return e
}

// retryableCodes are the codes MongoDB labels RetryableWriteError on a
// retryable write (the retryable-writes specification's list).
var retryableCodes = map[int32]bool{6: true, 7: true, 89: true, 91: true, 189: true, 262: true, 9001: true, 10107: true,
	11600: true, 11602: true, 13435: true, 13436: true}

// transientCodes fail a transaction in a way that running it again may
// not: WriteConflict, NoSuchTransaction, LockTimeout, SnapshotUnavailable,
// PreparedTransactionInProgress.
var transientCodes = map[int32]bool{112: true, 251: true, 24: true, 246: true, 267: true}

// retryableWrite reports whether cmd is a write a driver may retry: a
// write with a txnNumber outside a transaction, or the end of one.
func retryableWrite(name string, cmd bsoncore.Document) bool {
	switch name {
	case "commitTransaction", "abortTransaction":
		return true
	case "insert", "update", "delete", "findAndModify", "bulkWrite":
		_, err := cmd.LookupErr("txnNumber")
		return err == nil && !inTransactionCmd(cmd)
	}
	return false
}

// inTransactionCmd reports whether cmd runs inside a transaction.
func inTransactionCmd(cmd bsoncore.Document) bool {
	return sessionArgsOf(cmd).autocommitFalse
}

// failLabels are the labels MongoDB puts on an error of code in command
// name: TransientTransactionError inside a transaction (but on its
// commit or abort) for a write conflict, a missing transaction or a
// retryable code; RetryableWriteError for a retryable code on a retryable
// write.
func failLabels(code int32, name string, cmd bsoncore.Document) []string {
	inTxn := inTransactionCmd(cmd)
	ending := name == "commitTransaction" || name == "abortTransaction"
	switch {
	case inTxn && transientCodes[code], inTxn && !ending && retryableCodes[code]:
		return []string{"TransientTransactionError"}
	case retryableCodes[code] && retryableWrite(name, cmd):
		return []string{"RetryableWriteError"}
	}
	return nil
}

// apply runs the fault f on command name: false when the connection is
// to be closed without an answer; otherwise reply, if not nil, is the
// command's answer instead of running it, and wce, if set, is appended to
// the answer of the command run.
func (f *fault) apply(ctx context.Context, name string, cmd bsoncore.Document) (answer bool, reply bsoncore.Document) {
	if f.block > 0 {
		t := time.NewTimer(f.block)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		if err := ctx.Err(); err != nil { // killed (killOp) or out of time (maxTimeMS) while held
			return true, finalReply(ctx, nil, err)
		}
	}
	if f.close {
		return false, nil
	}
	if f.code != 0 {
		e := &mongoerr.Error{Code: mongoerr.Code(f.code), Msg: "Failing command via 'failCommand' failpoint"}
		if f.hasLbl {
			e.Labels = f.labels
		} else {
			e.Labels = failLabels(f.code, name, cmd)
		}
		return true, errorReply(e)
	}
	return true, nil
}

// wceLabels are the labels of the answer carrying the writeConcernError:
// those the fail point names (in writeConcernError.errorLabels, or
// errorLabels), else RetryableWriteError for a retryable code on a
// retryable write, as MongoDB labels them.
func (f *fault) wceLabels(name string, cmd bsoncore.Document) []string {
	if v, err := f.wce.LookupErr("errorLabels"); err == nil {
		var out []string
		for _, l := range bsonval.ArrayValues(v) {
			if l.Type == bsoncore.TypeString {
				out = append(out, l.StringValue())
			}
		}
		return out
	}
	if f.hasLbl {
		return f.labels
	}
	if v, err := f.wce.LookupErr("code"); err == nil && bsonval.IsNumber(v) && retryableCodes[int32(bsonval.NumberFloat(v))] && retryableWrite(name, cmd) {
		return []string{"RetryableWriteError"}
	}
	return nil
}

// withWriteConcernError appends the fail point's writeConcernError to a
// successful reply.
func withWriteConcernError(reply, wce bsoncore.Document, labels []string) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	for _, el := range bsonval.Elements(reply) {
		if el.Key() == "errorLabels" {
			continue
		}
		b.AppendValue(el.Key(), el.Value())
	}
	w := bsoncore.NewDocumentBuilder()
	for _, el := range bsonval.Elements(wce) {
		if el.Key() != "errorLabels" {
			w.AppendValue(el.Key(), el.Value())
		}
	}
	b.AppendDocument("writeConcernError", w.Build())
	if c, err := wce.LookupErr("code"); err == nil && bsonval.IsNumber(c) && stateChangeCodes[int32(bsonval.NumberFloat(c))] {
		if _, err := reply.LookupErr("topologyVersion"); err != nil {
			b.AppendDocument("topologyVersion", topologyVersion())
		}
	}
	if len(labels) > 0 {
		vals := make([]bsoncore.Value, len(labels))
		for i, l := range labels {
			vals[i] = bsonval.String(l)
		}
		b.AppendArray("errorLabels", bsoncore.BuildArray(nil, vals...))
	}
	return b.Build()
}
