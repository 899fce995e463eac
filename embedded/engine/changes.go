package engine

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// The store's change log: what every published write changed, in commit
// order, kept in memory for change streams (as MongoDB keeps its oplog)
// and bounded like it: the oldest changes fall out once changeLogSize are
// kept, and a stream resuming before them is told its history is lost.

// changeLogSize is how many changes the log keeps.
const changeLogSize = 1 << 16

// Kinds of change, as change streams name them.
const (
	chInsert       = "insert"
	chUpdate       = "update"
	chReplace      = "replace"
	chDelete       = "delete"
	chDrop         = "drop"
	chRename       = "rename"
	chDropDatabase = "dropDatabase"
	chCreate       = "create"
	chCreateIndex  = "createIndexes"
	chDropIndex    = "dropIndexes"
	chModify       = "modify"
)

// change is one event of the log.
type changeEvent struct {
	pos        position
	wall       time.Time
	kind       string
	db, coll   string
	uuid       [16]byte // the collection's
	id         bsoncore.Value
	doc, prev  bsoncore.Document // the document after and before the change
	toDB, to   string            // a rename's target
	dropTarget *[16]byte         // the UUID of the collection a rename replaced
	spec       bsoncore.Document // an index's spec, a collection's options
	images     bool              // the collection keeps pre- and post-images
	lsid       bsoncore.Document // the transaction's session, if any
	txnNumber  int64
}

// position orders changes: the write's cluster time, then the change's
// place in it.
type position struct {
	t, i uint32
	n    uint32
}

func (p position) less(q position) bool {
	if p.t != q.t {
		return p.t < q.t
	}
	if p.i != q.i {
		return p.i < q.i
	}
	return p.n < q.n
}

// prev is the position just before p.
func (p position) prev() position {
	if p.n > 0 {
		return position{p.t, p.i, p.n - 1}
	}
	return before(p.t, p.i)
}

// changeLog is a ring of the latest changes.
type changeLog struct {
	mu    sync.Mutex
	ring  []changeEvent
	start int // index of the oldest in ring
	n     int
	lost  bool                          // changes have fallen out of the ring
	wake  atomic.Pointer[chan struct{}] // closed at every append
}

func (l *changeLog) add(cs []changeEvent) {
	if len(cs) == 0 {
		return
	}
	l.mu.Lock()
	for _, c := range cs {
		if l.n == len(l.ring) && len(l.ring) < changeLogSize {
			l.grow()
		}
		if l.n == len(l.ring) {
			l.ring[l.start] = changeEvent{}
			l.start = (l.start + 1) % len(l.ring)
			l.n--
			l.lost = true
		}
		l.ring[(l.start+l.n)%len(l.ring)] = c
		l.n++
	}
	l.mu.Unlock()
	ch := make(chan struct{})
	if old := l.wake.Swap(&ch); old != nil {
		close(*old)
	}
}

// grow doubles the ring, up to changeLogSize.
func (l *changeLog) grow() {
	size := min(max(2*len(l.ring), 64), changeLogSize)
	ring := make([]changeEvent, size)
	for k := 0; k < l.n; k++ {
		ring[k] = l.ring[(l.start+k)%len(l.ring)]
	}
	l.ring, l.start = ring, 0
}

// last is the position of the latest change, zero when there is none.
func (l *changeLog) last() position {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return position{}
	}
	return l.ring[(l.start+l.n-1)%len(l.ring)].pos
}

// waiter is closed at the next append.
func (l *changeLog) waiter() <-chan struct{} {
	for {
		if p := l.wake.Load(); p != nil {
			return *p
		}
		ch := make(chan struct{})
		l.wake.CompareAndSwap(nil, &ch)
	}
}

// after is up to max changes after p (all when max <= 0), and whether
// changes after p may have fallen out of the log.
func (l *changeLog) after(p position, max int) (out []changeEvent, lost bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return nil, false
	}
	lo := sort.Search(l.n, func(k int) bool { return p.less(l.ring[(l.start+k)%len(l.ring)].pos) })
	if lo == 0 && l.lost {
		oldest := l.ring[l.start].pos
		lost = p.less(oldest) && p != (position{})
	}
	for k := lo; k < l.n && (max <= 0 || len(out) < max); k++ {
		out = append(out, l.ring[(l.start+k)%len(l.ring)])
	}
	return out, lost
}

// clock is the replica set's logical clock: seconds and an increment,
// strictly increasing, shared by replies (operationTime) and changes.
type clock struct {
	mu   sync.Mutex
	t, i uint32
}

func (c *clock) tick() (uint32, uint32) {
	now := uint32(time.Now().Unix())
	c.mu.Lock()
	defer c.mu.Unlock()
	if now > c.t {
		c.t, c.i = now, 0
	}
	c.i++
	return c.t, c.i
}

// now is the clock's latest time, without moving it.
func (c *clock) now() (uint32, uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t, c.i
}

// note records a change of this write, with its session if it is a
// transaction's commit.
func (t *tx) note(ch changeEvent) {
	ch.lsid, ch.txnNumber = t.lsid, t.txnNumber
	if col := t.st.coll(ch.db, ch.coll); col != nil && ch.uuid == ([16]byte{}) {
		ch.uuid = col.uuid
	}
	t.changes = append(t.changes, ch)
}

// stamp gives a published write's changes their position and time.
func stamp(cs []changeEvent, t, i uint32, wall time.Time) {
	for k := range cs {
		cs[k].pos = position{t, i, uint32(k)}
		cs[k].wall = wall
	}
}

// keepsImages reports whether the collection was created or modified
// with changeStreamPreAndPostImages: {enabled: true}.
func (c *collection) keepsImages() bool {
	v, err := c.opts.LookupErr("changeStreamPreAndPostImages", "enabled")
	return err == nil && bsonval.Truthy(v)
}

// awaitChange waits for wake until deadline; false when the deadline
// passed or ctx ended first.
func awaitChange(ctx context.Context, wake <-chan struct{}, deadline time.Time) bool {
	left := time.Until(deadline)
	if left <= 0 {
		return false
	}
	tm := time.NewTimer(left)
	defer tm.Stop()
	select {
	case <-wake:
		return true
	case <-tm.C:
	case <-ctx.Done():
	}
	return false
}
