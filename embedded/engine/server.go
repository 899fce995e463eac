// Package engine is oidkit's own MongoDB-compatible server: the wire
// protocol, the commands, query plans, the update language, aggregation and
// a copy-on-write store made durable by a journal (see journal.go for the
// file format and what survives a crash). BSON values themselves (their
// order, paths through arrays, collations) are package bsonval's, the
// query language (compiling and matching filters) package query's,
// aggregation expressions (compiling and evaluating them) package expr's,
// the update language (applying updates to a document) package update's;
// reading and writing messages is package wire's, the data directory's
// files package storage's, the errors package mongoerr's.
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
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
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
	// onPrimaryTransactionalWrite fails retryable writes around their
	// commit (onPrimaryWrite).
	onPrimaryTransactionalWrite failCommand
	connID                      atomic.Int64
	opID                        atomic.Int64
	ttlStop                     chan struct{}
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
	var pause time.Duration
	for {
		c, err := s.ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return nil
			}
			if pause = acceptPause(err, pause); pause > 0 {
				time.Sleep(pause)
				continue
			}
			// Clients that connect from now on are refused at once
			// instead of waiting in the listener's queue for an answer.
			_ = s.ln.Close()
			return err
		}
		pause = 0
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

// acceptPause is how long Serve waits before it accepts again after err,
// having last waited last: an error that passes (a timeout, too many open
// files) is retried, from 5 ms, twice as long each time, up to a second;
// any other is final (0).
func acceptPause(err error, last time.Duration) time.Duration {
	var ne interface{ Temporary() bool }
	var te net.Error
	if !(errors.As(err, &te) && te.Timeout()) && !(errors.As(err, &ne) && ne.Temporary()) {
		return 0
	}
	return min(max(2*last, 5*time.Millisecond), time.Second)
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
	awaits  int    // awaitable hellos answered (awaitTopologyChange)
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
		// The request counts as in flight until its reply is written, so
		// that Shutdown never closes a connection between a write and its
		// acknowledgment.
		ok := s.answer(cn, m, s.handle(ctx, cn, m), &out)
		s.end()
		if !ok {
			return
		}
	}
}

// answer writes the reply to m on cn, using *out as its buffer; false when
// the connection is to be closed: a fail point closed it (a nil reply) or
// the write failed.
func (s *Server) answer(cn *conn, m *wire.Message, reply bsoncore.Document, out *[]byte) bool {
	if reply == nil {
		return false
	}
	t, i := s.tick()
	if m.OpCode == wire.OpMsg && m.Flags&wire.FlagMoreToCome != 0 {
		return true
	}
	*out = s.appendReply((*out)[:0], m, reply, t, i)
	_, err := cn.c.Write(*out)
	return err == nil
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
					for _, v := range bsonval.FanValues(r.doc, rule.path) {
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
