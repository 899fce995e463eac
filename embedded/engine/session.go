package engine

import (
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// endSession aborts the session's transaction, if one is running, and
// forgets the session.
func (s *Server) endSession(id string) {
	s.sessions.mu.Lock()
	sess := s.sessions.m[id]
	delete(s.sessions.m, id)
	s.sessions.mu.Unlock()
	if sess == nil {
		return
	}
	sess.mu.Lock()
	x := sess.txn
	sess.mu.Unlock()
	if x != nil && x.getStatus() == txnActive {
		s.discard(x)
	}
}

// cmdEndSessions ends the sessions named (endSessions, killSessions):
// their transactions are aborted, as MongoDB does.
func cmdEndSessions(c *call) (bsoncore.Document, error) {
	for _, v := range bsonval.ArrayValues(bsonval.Elements(c.cmd)[0].Value()) {
		if v.Type != bsoncore.TypeEmbeddedDocument {
			continue
		}
		if id, err := bsoncore.Document(v.Data).LookupErr("id"); err == nil {
			c.srv.endSession(string(id.Data))
		}
	}
	return newReply().ok(), nil
}

// cmdKillAllSessions ends every session.
func cmdKillAllSessions(c *call) (bsoncore.Document, error) {
	c.srv.sessions.mu.Lock()
	ids := make([]string, 0, len(c.srv.sessions.m))
	for id := range c.srv.sessions.m {
		ids = append(ids, id)
	}
	c.srv.sessions.mu.Unlock()
	for _, id := range ids {
		c.srv.endSession(id)
	}
	return newReply().ok(), nil
}

// session is what the server keeps of a logical session.
type session struct {
	mu  sync.Mutex
	txn *txn
	// the last retryable write: its txnNumber, command name and answer
	retryNumber int64
	retryName   string
	retryReply  bsoncore.Document
	lastUse     time.Time
}

// sessions are the server's logical sessions, by lsid.
type sessions struct {
	mu sync.Mutex
	m  map[string]*session
}

func (ss *sessions) get(id string) *session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m = map[string]*session{}
	}
	now := time.Now()
	s := ss.m[id]
	if s == nil {
		// forget sessions idle past MongoDB's 30 minutes
		for k, o := range ss.m {
			if now.Sub(o.lastUse) > 30*time.Minute {
				delete(ss.m, k)
			}
		}
		s = &session{}
		ss.m[id] = s
	}
	s.lastUse = now
	return s
}

// sessionArgs are the session fields of a command.
type sessionArgs struct {
	lsid      string
	txnNumber int64
	hasTxn    bool
	autocommitFalse,
	start bool
}

func sessionArgsOf(cmd bsoncore.Document) sessionArgs {
	var a sessionArgs
	if v, err := cmd.LookupErr("lsid"); err == nil && v.Type == bsoncore.TypeEmbeddedDocument {
		if id, err := bsoncore.Document(v.Data).LookupErr("id"); err == nil {
			a.lsid = string(id.Data)
		}
	}
	if v, err := cmd.LookupErr("txnNumber"); err == nil {
		a.txnNumber, a.hasTxn = numberInt64(v), true
	}
	if v, err := cmd.LookupErr("autocommit"); err == nil && v.Type == bsoncore.TypeBoolean && !v.Boolean() {
		a.autocommitFalse = true
	}
	if v, err := cmd.LookupErr("startTransaction"); err == nil && bsonval.Truthy(v) {
		a.start = true
	}
	return a
}

func numberInt64(v bsoncore.Value) int64 {
	if i, ok := bsonval.IntOf(v); ok {
		return i
	}
	return int64(bsonval.NumberFloat(v))
}

// retried answers a retryable write sent again with the txnNumber of the
// session's last one: the first answer, nothing written twice.
func (s *Server) retried(name string, a sessionArgs) bsoncore.Document {
	if a.lsid == "" || !a.hasTxn || a.autocommitFalse || !isWriteCommand(name) {
		return nil
	}
	sess := s.sessions.get(a.lsid)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.retryName == name && sess.retryNumber == a.txnNumber && sess.retryReply != nil {
		return sess.retryReply
	}
	return nil
}

// remember keeps the answer of a retryable write for a retry of it.
func (s *Server) remember(name string, a sessionArgs, reply bsoncore.Document) {
	if a.lsid == "" || !a.hasTxn || a.autocommitFalse || !isWriteCommand(name) {
		return
	}
	sess := s.sessions.get(a.lsid)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.retryName, sess.retryNumber, sess.retryReply = name, a.txnNumber, reply
}

func isWriteCommand(name string) bool {
	switch name {
	case "insert", "update", "delete", "findAndModify", "bulkWrite":
		return true
	}
	return false
}
