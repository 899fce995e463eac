// Package engine is oidkit's own MongoDB-compatible server: the wire
// protocol, the commands, the query and update languages, aggregation and
// a copy-on-write store made durable by a journal (see journal.go for the
// file format and what survives a crash).
//
// Documents stay BSON from the wire to the store. The store's state is a
// tree of copy-on-write B-trees: a reader takes the current version in
// O(1) and never waits; writers take turns, so every write to a document
// is atomic and isolated and no acknowledged update is lost.
//
// Memory: 1,000,000 documents of 98 bytes of BSON with a unique secondary
// index take 357 bytes each on the heap, 357 MB in all
// (BenchmarkMemoryPerMillion, 2026-12-03): the BSON itself, its entries in
// the _id and natural-order B-trees, the index entry and the decoded key
// values.
package engine

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/wire"
)

// Version is the MongoDB version whose commands the server implements.
const Version = "8.0.0"

// maxWireVersion is MongoDB 8.0's.
const maxWireVersion = 25

// Server serves a Store over MongoDB's wire protocol.
type Server struct {
	store   *Store
	ln      net.Listener
	addr    string
	started time.Time

	mu       sync.Mutex
	conns    map[net.Conn]*conn
	closing  bool
	wg       sync.WaitGroup
	busy     int           // requests in flight, under mu
	stopping chan struct{} // closed when Shutdown begins
	idle     chan struct{} // closed by the last request to end once closing

	cursors     cursors
	sessions    sessions
	locks       writeLocks
	ops         operations
	failCommand failCommand
	// failGetMoreAfterCheckout fails getMores once their cursor is taken
	failGetMoreAfterCheckout failCommand
	connID                   atomic.Int64
	opID                     atomic.Int64
	ttlStop                  chan struct{}
}

// Open opens the store in dir ("" keeps everything in memory).
func Open(dir string) (*Store, error) {
	if dir == "" {
		return newStore(), nil
	}
	return openStore(dir)
}

// Close writes a checkpoint and closes the journal.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.journal == nil {
		return nil
	}
	err := s.journal.Close(dump(s.cur.Load()))
	s.journal = nil
	return err
}

// NewServer serves st on ln.
func NewServer(st *Store, ln net.Listener) *Server {
	s := &Server{store: st, ln: ln, addr: ln.Addr().String(), started: time.Now(), conns: map[net.Conn]*conn{}, ttlStop: make(chan struct{}), stopping: make(chan struct{})}
	s.cursors.m = map[int64]*cursor{}
	go s.ttlLoop(60 * time.Second)
	return s
}

// Serve accepts connections until Close.
func (s *Server) Serve() error {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			c.Close()
			continue
		}
		cn := &conn{c: c, id: s.connID.Add(1), srv: s}
		s.conns[c] = cn
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(cn)
	}
}

// Shutdown stops accepting, lets requests in flight finish up to grace,
// then closes every connection.
func (s *Server) Shutdown(grace time.Duration) {
	s.mu.Lock()
	s.closing = true
	close(s.stopping)
	s.idle = make(chan struct{})
	if s.busy == 0 {
		close(s.idle)
	}
	idle := s.idle
	s.mu.Unlock()
	_ = s.ln.Close()
	select {
	case <-idle:
	case <-time.After(grace):
	}
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	close(s.ttlStop)
}

type conn struct {
	c       net.Conn
	id      int64
	srv     *Server
	appName string // the client's application name, from its handshake
}

func (s *Server) serveConn(cn *conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, cn.c)
		s.mu.Unlock()
		cn.c.Close()
	}()
	r := bufio.NewReaderSize(cn.c, 64<<10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out []byte
	for {
		m, err := wire.Read(r)
		if err != nil {
			return
		}
		if !s.begin() {
			return
		}
		reply := s.handle(ctx, cn, m)
		s.end()
		if reply == nil { // a fail point closes the connection
			return
		}
		reply = s.withClusterTime(reply)
		if m.OpCode == wire.OpMsg && m.Flags&wire.FlagMoreToCome != 0 {
			continue
		}
		out = wire.AppendReply(out[:0], int32(s.opID.Add(1)), m.RequestID, m.OpCode, reply)
		if _, err := cn.c.Write(out); err != nil {
			return
		}
	}
}

// begin counts a request in flight; false once the server is closing:
// the request is not run and its connection is closed.
func (s *Server) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.busy++
	return true
}

// end counts a request out, telling Shutdown when the last one ends.
func (s *Server) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy--
	if s.closing && s.busy == 0 {
		close(s.idle)
	}
}

// handle runs one command and returns its reply; it never panics out.
func (s *Server) handle(ctx context.Context, cn *conn, m *wire.Message) (reply bsoncore.Document) {
	defer func() {
		if r := recover(); r != nil {
			reply = errorReply(mongoerr.New(mongoerr.InternalError, "internal error while running the command"))
		}
	}()
	els := elements(m.Cmd)
	if len(els) == 0 {
		return errorReply(mongoerr.New(mongoerr.FailedToParse, "empty command"))
	}
	name := els[0].Key()
	db := "admin"
	if v, err := m.Cmd.LookupErr("$db"); err == nil && v.Type == bsoncore.TypeString {
		db = v.StringValue()
	} else if m.OpCode == wire.OpQuery {
		if i := indexByte(m.Collection, '.'); i > 0 {
			db = m.Collection[:i]
		}
	}
	h, ok := commands[name]
	if !ok {
		return errorReply(mongoerr.New(mongoerr.CommandNotFound, "no such command: '%s'", name))
	}
	if v, err := m.Cmd.LookupErr("maxTimeMS"); err == nil && isNumber(v) && numberFloat(v) > 0 && name != "getMore" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(numberFloat(v)*float64(time.Millisecond)))
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
	opsBefore := 0
	if x != nil && x.t != nil {
		opsBefore = len(x.t.ops)
	}
	res, err := h(&call{ctx: ctx, srv: s, conn: cn, db: db, cmd: m.Cmd, name: name, txn: x})
	for held := (*heldError)(nil); errors.As(err, &held); {
		// a document it writes is held by a transaction: run it again once that ends
		if err = s.awaitEnd(ctx, held.x); err == nil {
			res, err = h(&call{ctx: ctx, srv: s, conn: cn, db: db, cmd: m.Cmd, name: name})
		}
	}
	if x != nil {
		err = s.afterInTransaction(x, opsBefore, res, err)
	}
	if err == nil && x == nil {
		s.remember(name, sa, res) // a retry gets the answer, not the injected fault
	}
	if err == nil && wce != nil {
		res = withWriteConcernError(res, wce, wceLabels)
	} else if err == nil && (x == nil || name == "commitTransaction" || name == "abortTransaction") {
		// inside a transaction only its end takes a write concern
		if wc := unsatisfiable(m.Cmd); wc != nil {
			res = withWriteConcernError(res, wc, nil)
		}
	}
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
	case isNumber(w) && numberFloat(w) > 1:
		return bsoncore.NewDocumentBuilder().AppendInt32("code", 100).AppendString("codeName", "UnsatisfiableWriteConcern").
			AppendString("errmsg", "Not enough data-bearing nodes").Build()
	case w.Type == bsoncore.TypeString && w.StringValue() != "majority":
		return bsoncore.NewDocumentBuilder().AppendInt32("code", 79).AppendString("codeName", "UnknownReplWriteConcern").
			AppendString("errmsg", "No write concern mode named '"+w.StringValue()+"' found in replica set configuration").Build()
	}
	return nil
}

// withClusterTime appends the replica set's logical clock to a reply, as
// MongoDB does: operationTime and $clusterTime (with a signature of zeros:
// the server has no keys), which drivers gossip and use for causally
// consistent sessions. Every answer is at the latest time, so any
// afterClusterTime a driver sends back is already reached.
func (s *Server) withClusterTime(reply bsoncore.Document) bsoncore.Document {
	t, i := s.tick()
	ct := bsoncore.NewDocumentBuilder().AppendTimestamp("clusterTime", t, i).AppendDocument("signature", clusterTimeSignature).Build()
	out := make([]byte, 0, len(reply)+len(ct)+64)
	out = append(out, reply[:len(reply)-1]...)
	out = bsoncore.AppendTimestampElement(out, "operationTime", t, i)
	out = bsoncore.AppendDocumentElement(out, "$clusterTime", ct)
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out
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

// call is one command being run.
type call struct {
	ctx  context.Context
	srv  *Server
	conn *conn
	txn  *txn // the transaction the command is part of, if any
	db   string
	cmd  bsoncore.Document
	name string

	published bool // a write of this call outside a transaction is published
}

func (c *call) arg(k string) bsoncore.Value {
	v, err := c.cmd.LookupErr(k)
	if err != nil {
		return missing
	}
	return v
}

// collName is the command's collection: the value of its first field.
func (c *call) collName() (string, error) {
	v := elements(c.cmd)[0].Value()
	if v.Type != bsoncore.TypeString || v.StringValue() == "" {
		return "", mongoerr.New(mongoerr.InvalidNamespace, "collection name has invalid type %s", typeName(v.Type))
	}
	return v.StringValue(), nil
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
			vals[i] = vString(l)
		}
		b.AppendArray("errorLabels", bsoncore.BuildArray(nil, vals...))
	}
	for _, el := range elements(e.Extra) {
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

// cursors are the open cursors of the server.
type cursors struct {
	mu   sync.Mutex
	m    map[int64]*cursor
	next int64
}

type cursor struct {
	ns        string
	docs      []bsoncore.Document
	lastUsed  time.Time
	noTimeout bool
	src       source // nil: the cursor ends with docs
	busy      bool   // a getMore is waiting on src
}

// source feeds a cursor that outlives its documents: a change stream, a
// tailable cursor on a capped collection.
type source interface {
	// next is up to n documents (n <= 0: as many as fit a reply),
	// waiting up to wait for the first.
	next(c *call, n int, wait time.Duration) ([]bsoncore.Document, error)
	// ended reports that no document will come.
	ended() bool
	// postBatch is the resume token after the last batch, nil for none.
	postBatch() bsoncore.Document
}

// awaitDefault is how long a getMore on an awaitData cursor waits when
// it has no maxTimeMS, as on MongoDB.
const awaitDefault = time.Second

// cursorTimeout is MongoDB's cursorTimeoutMillis.
const cursorTimeout = 10 * time.Minute

func (cs *cursors) open(ns string, docs []bsoncore.Document, noTimeout bool) int64 {
	return cs.add(&cursor{ns: ns, docs: docs, noTimeout: noTimeout})
}

// openSource opens a cursor fed by src.
func (cs *cursors) openSource(ns string, src source) int64 {
	return cs.add(&cursor{ns: ns, src: src})
}

func (cs *cursors) add(cur *cursor) int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	now := time.Now()
	for id, c := range cs.m {
		if !c.noTimeout && !c.busy && now.Sub(c.lastUsed) > cursorTimeout {
			delete(cs.m, id)
		}
	}
	cs.next++
	cur.lastUsed = now
	cs.m[cs.next] = cur
	return cs.next
}

// batch takes up to n documents (n <= 0: as many as fit) of at most
// 16 MiB in all.
// zeroBatch is the batch size of a first batch asked to be empty.
const zeroBatch = -1

func batch(docs []bsoncore.Document, n int) ([]bsoncore.Document, []bsoncore.Document) {
	size := 0
	i := 0
	for ; i < len(docs); i++ {
		if n > 0 && i >= n {
			break
		}
		size += len(docs[i])
		if size > 16*1024*1024-16*1024 && i > 0 {
			break
		}
	}
	return docs[:i], docs[i:]
}

// cursorReply answers with a first batch and, if documents remain, a
// cursor for getMore.
// A batchSize of zeroBatch asks for an empty first batch (batchSize: 0
// given); 0 means no limit but the message size.
func (c *call) cursorReply(ns string, docs []bsoncore.Document, batchSize int, single bool) bsoncore.Document {
	first, rest := batch(docs, batchSize)
	if batchSize == zeroBatch {
		first, rest = nil, docs
	}
	var id int64
	if len(rest) > 0 && !single {
		id = c.srv.cursors.open(ns, rest, truthy(c.arg("noCursorTimeout")))
	}
	return cursorDoc(id, ns, "firstBatch", first, nil)
}

// cursorDoc is a cursor's reply; postBatch, when not nil, is its
// postBatchResumeToken.
func cursorDoc(id int64, ns, key string, docs []bsoncore.Document, postBatch bsoncore.Document) bsoncore.Document {
	size := len(key) + len(ns) + len(postBatch) + 64
	for _, d := range docs {
		size += len(d) + 8
	}
	// one buffer for the reply and its cursor: a batch is copied once
	oi, out := bsoncore.ReserveLength(make([]byte, 0, size))
	out = bsoncore.AppendHeader(out, bsoncore.TypeEmbeddedDocument, "cursor")
	ci, out := bsoncore.ReserveLength(out)
	out = appendDocArray(out, key, docs)
	out = bsoncore.AppendInt64Element(out, "id", id)
	out = bsoncore.AppendStringElement(out, "ns", ns)
	if postBatch != nil {
		out = bsoncore.AppendDocumentElement(out, "postBatchResumeToken", postBatch)
	}
	out = append(out, 0)
	out = bsoncore.UpdateLength(out, ci, int32(len(out[ci:])))
	out = bsoncore.AppendDoubleElement(out, "ok", 1)
	out = append(out, 0)
	return bsoncore.UpdateLength(out, oi, int32(len(out[oi:])))
}

func cmdGetMore(c *call) (bsoncore.Document, error) {
	idv := elements(c.cmd)[0].Value()
	id, ok := intOf(idv)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "Field 'getMore' must be of type long in: %s", shell(vDoc(c.cmd)))
	}
	coll := toStr(c.arg("collection"))
	cs := &c.srv.cursors
	cs.mu.Lock()
	cur := cs.m[id]
	if cur == nil {
		cs.mu.Unlock()
		return nil, mongoerr.New(mongoerr.CursorNotFound, "cursor id %d not found", id)
	}
	if cur.ns != c.db+"."+coll {
		cs.mu.Unlock()
		return nil, mongoerr.New(mongoerr.Unauthorized, "Requested getMore on namespace '%s.%s', but cursor belongs to a different namespace %s", c.db, coll, cur.ns)
	}
	n := 0
	if v := c.arg("batchSize"); isNumber(v) {
		n = int(numberFloat(v))
	}
	if err := c.srv.failGetMore(cur); err != nil {
		delete(cs.m, id)
		cs.mu.Unlock()
		return nil, err
	}
	if cur.src != nil {
		return getMoreSource(c, id, cur, n)
	}
	docs, rest := batch(cur.docs, n)
	cur.docs = rest
	cur.lastUsed = time.Now()
	if len(rest) == 0 {
		delete(cs.m, id)
		id = 0
	}
	cs.mu.Unlock()
	return cursorDoc(id, cur.ns, "nextBatch", docs, nil), nil
}

// getMoreSource answers a getMore on a cursor fed by a source, called
// with the cursors' lock held: it waits for documents without it.
func getMoreSource(c *call, id int64, cur *cursor, n int) (bsoncore.Document, error) {
	cs := &c.srv.cursors
	if cur.busy {
		cs.mu.Unlock()
		return nil, mongoerr.New(mongoerr.CursorInUse, "cursor id %d is already in use", id)
	}
	cur.busy = true
	cs.mu.Unlock()
	wait := awaitDefault
	if v := c.arg("maxTimeMS"); isNumber(v) {
		wait = time.Duration(numberFloat(v) * float64(time.Millisecond))
	}
	docs, err := cur.src.next(c, n, wait)
	cs.mu.Lock()
	cur.busy = false
	cur.lastUsed = time.Now()
	if err != nil || cur.src.ended() {
		delete(cs.m, id)
		id = 0
	}
	cs.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return cursorDoc(id, cur.ns, "nextBatch", docs, cur.src.postBatch()), nil
}

// kill closes a cursor.
func (cs *cursors) kill(id int64) {
	cs.mu.Lock()
	delete(cs.m, id)
	cs.mu.Unlock()
}

func cmdKillCursors(c *call) (bsoncore.Document, error) {
	var killed, notFound []bsoncore.Value
	cs := &c.srv.cursors
	cs.mu.Lock()
	for _, v := range arrayValues(c.arg("cursors")) {
		id, _ := intOf(v)
		if _, ok := cs.m[id]; ok {
			delete(cs.m, id)
			killed = append(killed, vInt64(id))
		} else {
			notFound = append(notFound, vInt64(id))
		}
	}
	cs.mu.Unlock()
	return newReply().b.AppendArray("cursorsKilled", bsoncore.BuildArray(nil, killed...)).
		AppendArray("cursorsNotFound", bsoncore.BuildArray(nil, notFound...)).
		AppendArray("cursorsAlive", bsoncore.BuildArray(nil)).
		AppendArray("cursorsUnknown", bsoncore.BuildArray(nil)).AppendDouble("ok", 1).Build(), nil
}

// ttlLoop removes expired documents of TTL indexes and time-series
// collections, as MongoDB's TTL monitor does every 60 seconds.
func (s *Server) ttlLoop(every time.Duration) {
	tk := time.NewTicker(every)
	defer tk.Stop()
	for {
		select {
		case <-s.ttlStop:
			return
		case <-tk.C:
			s.expire(time.Now())
		}
	}
}

func (s *Server) expire(now time.Time) {
	st := s.store.view()
	for db, colls := range st.dbs {
		for name, c := range colls {
			for _, rule := range ttlRules(c) {
				cutoff := now.Add(-time.Duration(rule.secs) * time.Second).UnixMilli()
				var ids []bsoncore.Value
				c.scan(func(r *record) bool {
					for _, v := range fanValues(r.doc, rule.path) {
						if v.Type == bsoncore.TypeDateTime && v.DateTime() <= cutoff {
							ids = append(ids, r.id)
							break
						}
					}
					return true
				})
				if len(ids) == 0 {
					continue
				}
				_ = s.store.write(context.Background(), func(t *tx) error {
					col, _ := t.mut(db, name, false)
					if col == nil {
						return nil
					}
					for _, id := range ids {
						t.deleteDoc(col, id)
					}
					return nil
				})
			}
		}
	}
}

// appendDocArray appends an array element of documents to dst.
func appendDocArray(dst []byte, key string, docs []bsoncore.Document) []byte {
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeArray, key)
	ai, dst := bsoncore.ReserveLength(dst)
	var k [20]byte
	for i, d := range docs {
		dst = bsoncore.AppendDocumentElement(dst, string(strconv.AppendInt(k[:0], int64(i), 10)), d)
	}
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, ai, int32(len(dst[ai:])))
}
