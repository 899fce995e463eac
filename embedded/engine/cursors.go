package engine

import (
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

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

// zeroBatch is the batch size of a first batch asked to be empty.
const zeroBatch = -1

// maxBatchBytes is the most a batch's documents may hold, leaving room
// for the rest of a reply within MongoDB's 16 MiB message.
const maxBatchBytes = 16*1024*1024 - 16*1024

// batch takes up to n documents (n <= 0: as many as fit) of at most
// maxBatchBytes in all.
func batch(docs []bsoncore.Document, n int) ([]bsoncore.Document, []bsoncore.Document) {
	size := 0
	i := 0
	for ; i < len(docs) && !full(i, size, n, len(docs[i])); i++ {
		size += len(docs[i])
	}
	return docs[:i], docs[i:]
}

// full reports whether a batch of count documents of size bytes in all
// is complete before a next one of next bytes: n documents (n <= 0: no
// count) or maxBatchBytes, which a batch's first document may pass.
func full(count, size, n, next int) bool {
	return n > 0 && count >= n || count > 0 && size+next > maxBatchBytes
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
		id = c.srv.cursors.open(ns, rest, bsonval.Truthy(c.arg("noCursorTimeout")))
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
	out = bsonval.AppendDocArray(out, key, docs)
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
	idv := bsonval.Elements(c.cmd)[0].Value()
	id, ok := bsonval.IntOf(idv)
	if !ok {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "Field 'getMore' must be of type long in: %s", bsonval.Shell(bsonval.Doc(c.cmd)))
	}
	coll := bsonval.Text(c.arg("collection"))
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
	if v := c.arg("batchSize"); bsonval.IsNumber(v) {
		n = int(bsonval.NumberFloat(v))
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
	if v := c.arg("maxTimeMS"); bsonval.IsNumber(v) {
		wait = time.Duration(bsonval.NumberFloat(v) * float64(time.Millisecond))
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
	for _, v := range bsonval.ArrayValues(c.arg("cursors")) {
		id, _ := bsonval.IntOf(v)
		if _, ok := cs.m[id]; ok {
			delete(cs.m, id)
			killed = append(killed, bsonval.Int64(id))
		} else {
			notFound = append(notFound, bsonval.Int64(id))
		}
	}
	cs.mu.Unlock()
	return newReply().b.AppendArray("cursorsKilled", bsoncore.BuildArray(nil, killed...)).
		AppendArray("cursorsNotFound", bsoncore.BuildArray(nil, notFound...)).
		AppendArray("cursorsAlive", bsoncore.BuildArray(nil)).
		AppendArray("cursorsUnknown", bsoncore.BuildArray(nil)).AppendDouble("ok", 1).Build(), nil
}
