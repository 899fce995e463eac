package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// Sessions and multi-document transactions, as MongoDB's drivers use
// them on a replica set:
//
//   - a transaction starts with a command carrying lsid, txnNumber,
//     startTransaction: true and autocommit: false; the next commands of
//     the session carry the same txnNumber and autocommit: false;
//   - it reads a snapshot of the whole store taken when it starts (every
//     collection and database), plus its own writes, which nothing
//     outside it sees;
//   - commitTransaction publishes its writes at once, in one journal
//     record (all or nothing across a kill), unless a document it wrote
//     was written by someone else since the snapshot: then it fails with
//     WriteConflict (112) labelled TransientTransactionError, nothing
//     is written, and the driver's WithTransaction runs it again;
//   - abortTransaction, a new transaction on the session, or
//     transactionLifetimeLimit (60 s) without a commit discard it.
//
// A retryable write (txnNumber without autocommit) retried with the same
// txnNumber gets the first answer again and writes nothing twice.

// transactionLifetime is MongoDB's transactionLifetimeLimitSeconds.
const transactionLifetime = 60 * time.Second

type txnStatus int

const (
	txnActive txnStatus = iota
	txnCommitted
	txnAborted
)

// txn is one multi-document transaction.
type txn struct {
	mu      sync.Mutex // one command of the transaction at a time
	number  int64
	status  atomic.Int32 // a txnStatus; read by other transactions' conflict checks
	base    *state       // the snapshot it started from
	t       *tx          // its writes, over base
	started time.Time
	keys    []string // the documents it holds (writeLocks), under writeLocks.mu

	ended   chan struct{} // closed when it commits or aborts
	endOnce sync.Once
}

// finish tells writers waiting for x that it has ended.
func (x *txn) finish() {
	if x.ended != nil {
		x.endOnce.Do(func() { close(x.ended) })
	}
}

// heldError is a write outside a transaction that met a document held by
// the active transaction x: the command runs again when x ends, as
// MongoDB's write waits for the transaction's lock.
type heldError struct{ x *txn }

func (e *heldError) Error() string { return "a document is held by an active transaction" }

// heldBy is the active transaction holding a document that ops write,
// or nil.
func (s *Server) heldBy(ops []bsoncore.Document) *txn {
	s.locks.mu.Lock()
	defer s.locks.mu.Unlock()
	if len(s.locks.m) == 0 {
		return nil
	}
	for _, op := range ops {
		key, ok := opKey(op)
		if !ok {
			continue
		}
		if owner := s.locks.m[key]; owner != nil && owner.getStatus() == txnActive && time.Since(owner.started) <= transactionLifetime {
			return owner
		}
	}
	return nil
}

// awaitEnd waits until x commits, aborts or outlives its lifetime, or
// ctx ends (its error then).
func (s *Server) awaitEnd(ctx context.Context, x *txn) error {
	tm := time.NewTimer(time.Until(x.started.Add(transactionLifetime)))
	defer tm.Stop()
	select {
	case <-x.ended:
	case <-tm.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// writeLocks are the documents active transactions have written, each
// with its writer: a second transaction writing one of them meets a
// WriteConflict at once, as on MongoDB.
type writeLocks struct {
	mu sync.Mutex
	m  map[string]*txn
}

// writeConflict is the error of a write that conflicts with another.
func writeConflict() error {
	return &mongoerr.Error{Code: mongoerr.WriteConflict,
		Msg:    "Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.",
		Labels: []string{"TransientTransactionError"}}
}

// claim takes the documents x's new ops wrote: a document written by
// someone else since x's snapshot, or written by another active
// transaction, is a WriteConflict, and x is aborted.
func (s *Server) claim(x *txn, ops []bsoncore.Document) error {
	cur := s.store.view()
	s.locks.mu.Lock()
	defer s.locks.mu.Unlock()
	if s.locks.m == nil {
		s.locks.m = map[string]*txn{}
	}
	for _, op := range ops {
		key, ok := opKey(op)
		if !ok {
			continue
		}
		owner := s.locks.m[key]
		held := owner != nil && owner != x && owner.getStatus() == txnActive && time.Since(owner.started) <= transactionLifetime
		if held || conflict(x.base, cur, op) {
			x.setStatus(txnAborted)
			x.t = nil
			s.releaseLocked(x)
			return writeConflict()
		}
		if owner != x {
			s.locks.m[key] = x
			x.keys = append(x.keys, key)
		}
	}
	return nil
}

// afterInTransaction claims the documents a command of transaction x
// wrote (opsBefore: x's ops before it) and aborts x when the command
// failed, as MongoDB does; it returns the command's error, or the
// conflict found.
func (s *Server) afterInTransaction(x *txn, opsBefore int, res bsoncore.Document, err error) error {
	if err == nil && x.getStatus() == txnActive && x.t != nil && len(x.t.ops) > opsBefore {
		err = s.claim(x, x.t.ops[opsBefore:])
	}
	if x.getStatus() == txnActive && (err != nil || hasWriteErrors(res)) {
		s.abort(x)
	}
	return err
}

// abort ends x from one of its own commands (x.mu held): its writes are
// dropped and its documents released.
func (s *Server) abort(x *txn) {
	x.setStatus(txnAborted)
	x.t = nil
	s.release(x)
}

// discard ends x from outside its commands (endSessions, a newer
// transaction on the session, its lifetime): its documents are released
// and its next command finds it aborted.
func (s *Server) discard(x *txn) {
	x.setStatus(txnAborted)
	s.release(x)
}

// release gives up the documents x holds.
func (s *Server) release(x *txn) {
	s.locks.mu.Lock()
	defer s.locks.mu.Unlock()
	s.releaseLocked(x)
}

func (s *Server) releaseLocked(x *txn) {
	if x.getStatus() != txnActive {
		x.finish()
	}
	for _, k := range x.keys {
		if s.locks.m[k] == x {
			delete(s.locks.m, k)
		}
	}
	x.keys = nil
}

// opKey names the document a journal op writes: database, collection and
// _id (numbers by value).
func opKey(op bsoncore.Document) (string, bool) {
	db, c, id, ok := opDoc(op)
	if !ok {
		return "", false
	}
	return string(bsonval.AppendGroupKey([]byte(db+"\x00"+c+"\x00"), id)), true
}

// opDoc is the document a journal op writes (a put or a delete):
// database, collection and _id.
func opDoc(op bsoncore.Document) (db, c string, id bsoncore.Value, ok bool) {
	o, _ := op.LookupErr("o")
	switch bsonval.Text(o) {
	case "p":
		d, _ := op.LookupErr("d")
		id, _ = bsoncore.Document(d.Data).LookupErr("_id")
	case "d":
		id, _ = op.LookupErr("id")
	default:
		return "", "", id, false
	}
	dv, _ := op.LookupErr("db")
	cv, _ := op.LookupErr("c")
	return bsonval.Text(dv), bsonval.Text(cv), id, true
}

func (x *txn) getStatus() txnStatus  { return txnStatus(x.status.Load()) }
func (x *txn) setStatus(s txnStatus) { x.status.Store(int32(s)) }

// noSuchTransaction is the error of a command for a transaction that is
// not running.
func noSuchTransaction(n int64) error {
	return &mongoerr.Error{Code: mongoerr.NoSuchTransaction, Msg: "Transaction with { txnNumber: " + bsonval.Text(bsonval.Int64(n)) + " } has been aborted.",
		Labels: []string{"TransientTransactionError"}}
}

// transactionFor finds (or starts) the transaction a command belongs to;
// nil when the command is not part of one.
func (s *Server) transactionFor(name string, a sessionArgs) (*txn, error) {
	if !a.autocommitFalse {
		if a.start {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "startTransaction requires autocommit: false")
		}
		return nil, nil
	}
	if a.lsid == "" || !a.hasTxn {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "autocommit: false requires a session (lsid) and a txnNumber")
	}
	sess := s.sessions.get(a.lsid)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	cur := sess.txn
	if a.start {
		if cur != nil && a.txnNumber < cur.number {
			return nil, mongoerr.New(mongoerr.TransactionTooOld, "txnNumber %d is less than last txnNumber %d seen in this session", a.txnNumber, cur.number)
		}
		if cur != nil && a.txnNumber == cur.number {
			return nil, mongoerr.New(mongoerr.ConflictingOperationInProgress, "transaction %d has already started", a.txnNumber)
		}
		base := s.store.view()
		t := &tx{st: &state{dbs: make(map[string]map[string]*collection, len(base.dbs))}, touched: map[*collection]bool{}}
		for db, colls := range base.dbs {
			t.st.dbs[db] = colls
		}
		n := &txn{number: a.txnNumber, base: base, t: t, started: time.Now(), ended: make(chan struct{})}
		if cur != nil && cur.getStatus() == txnActive {
			s.discard(cur) // a new transaction on the session ends the old one
		}
		sess.txn = n
		return n, nil
	}
	if cur == nil || cur.number != a.txnNumber {
		return nil, noSuchTransaction(a.txnNumber)
	}
	if cur.getStatus() == txnActive && time.Since(cur.started) > transactionLifetime {
		s.discard(cur)
	}
	switch cur.getStatus() {
	case txnCommitted:
		if name == "commitTransaction" {
			return cur, nil // a retried commit: answered again
		}
		if name == "abortTransaction" {
			return nil, mongoerr.New(mongoerr.TransactionCommitted, "Transaction %d has been committed.", a.txnNumber)
		}
		return nil, mongoerr.New(mongoerr.TransactionCommitted, "Transaction %d has been committed.", a.txnNumber)
	case txnAborted:
		return nil, noSuchTransaction(a.txnNumber)
	}
	return cur, nil
}

func cmdCommitTransaction(c *call) (bsoncore.Document, error) {
	x := c.txn
	if x == nil {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "commitTransaction must be run within a transaction")
	}
	if x.getStatus() == txnCommitted {
		return newReply().ok(), nil
	}
	err := c.srv.store.write(c.ctx, func(ct *tx) error {
		if v, err := c.cmd.LookupErr("lsid"); err == nil && v.Type == bsoncore.TypeEmbeddedDocument {
			ct.lsid, ct.txnNumber = bsoncore.Document(v.Data), x.number
		}
		for _, op := range x.t.ops {
			if conflict(x.base, ct.st, op) {
				return &mongoerr.Error{Code: mongoerr.WriteConflict,
					Msg:    "Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.",
					Labels: []string{"TransientTransactionError"}}
			}
		}
		for _, op := range x.t.ops {
			if err := ct.replay(op); err != nil {
				return err
			}
		}
		return nil
	})
	c.srv.release(x)
	if err != nil {
		x.setStatus(txnAborted)
		return nil, err
	}
	x.setStatus(txnCommitted)
	x.finish()
	x.t = nil
	return newReply().ok(), nil
}

func cmdAbortTransaction(c *call) (bsoncore.Document, error) {
	if c.txn == nil {
		return nil, mongoerr.New(mongoerr.InvalidOptions, "abortTransaction must be run within a transaction")
	}
	c.srv.abort(c.txn)
	return newReply().ok(), nil
}

// conflict reports whether the document a transaction's op wrote was
// written by someone else since the transaction's snapshot.
func conflict(base, cur *state, op bsoncore.Document) bool {
	db, c, id, ok := opDoc(op)
	return ok && recordOf(base, db, c, id) != recordOf(cur, db, c, id)
}

func recordOf(st *state, db, c string, id bsoncore.Value) *record {
	col := st.coll(db, c)
	if col == nil {
		return nil
	}
	r, _ := col.docs.Get(&record{id: id})
	return r
}

// write runs fn as the command's write: inside its transaction when it is
// part of one (seen by the transaction alone until commit), else
// published at once.
func (c *call) write(fn func(t *tx) error) error {
	validate := !bsonval.Truthy(c.arg("bypassDocumentValidation"))
	if c.txn != nil {
		c.txn.t.validate, c.txn.t.client = validate, true
		defer func() { c.txn.t.validate, c.txn.t.client = false, false }()
		return fn(c.txn.t)
	}
	err := c.srv.store.write(c.ctx, func(t *tx) error {
		t.validate, t.client = validate, true
		if err := fn(t); err != nil {
			return err
		}
		if !c.published { // a command that published nothing yet can run again
			if x := c.srv.heldBy(t.ops); x != nil {
				return &heldError{x}
			}
		}
		return nil
	})
	if err == nil {
		c.published = true
	}
	return err
}

// view is the state the command reads: its transaction's snapshot and
// writes, or the store's current state.
func (c *call) view() *state {
	if c.txn != nil {
		return c.txn.t.st
	}
	return c.srv.store.view()
}

// inTransaction are the commands a transaction may run (MongoDB's list,
// less what this server does not do).
var inTransaction = map[string]bool{"find": true, "getMore": true, "killCursors": true, "insert": true, "update": true,
	"delete": true, "findAndModify": true, "aggregate": true, "distinct": true, "create": true, "createIndexes": true,
	"bulkWrite": true, "commitTransaction": true, "abortTransaction": true}
