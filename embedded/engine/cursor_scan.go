package engine

import (
	"time"

	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// scanSource feeds the cursor of a find that reads a whole collection (no
// filter, projection, skip or limit; natural or _id order: what export
// and verify db send) batch by batch, from the snapshot of the collection
// the find saw: the first batch comes without a walk of every document
// first, and the documents are those a walk at the find would have read.
type scanSource struct {
	tree *btree.BTreeG[*record] // a published state's: never changed
	desc bool
	last *record // the last document given; nil before the first
	done bool    // nothing is left to give
}

// wholeScan is the source of such a find, or nil when the find asks for
// more (a filter, a projection, paging, another order, a view).
func wholeScan(c *call, col *collection, q findQuery, skip, limit int, single, tailable bool) *scanSource {
	if col == nil || col.derived || q.proj != nil || skip != 0 || limit != 0 || single || tailable {
		return nil
	}
	if fd, err := docArg(c, "filter"); err != nil || len(fd) > 5 {
		return nil
	}
	tree, desc := col.natural, false
	switch s := q.s; {
	case s == nil:
	case len(s.Keys) == 1 && s.Keys[0].Path == "_id" && s.Coll == nil:
		tree, desc = col.docs, s.Keys[0].Desc
	default:
		return nil
	}
	return &scanSource{tree: tree, desc: desc, done: tree.Len() == 0}
}

// next is up to n documents (n <= 0: as many as fit a reply) after the
// last given.
func (s *scanSource) next(_ *call, n int, _ time.Duration) ([]bsoncore.Document, error) {
	var out []bsoncore.Document
	size := 0
	more := false
	visit := func(r *record) bool {
		if r == s.last {
			return true // the pivot: given before
		}
		if full(len(out), size, n, len(r.doc)) {
			more = true
			return false
		}
		out = append(out, r.doc)
		size += len(r.doc)
		s.last = r
		return true
	}
	switch {
	case s.last == nil && s.desc:
		s.tree.Reverse(visit)
	case s.last == nil:
		s.tree.Scan(visit)
	case s.desc:
		s.tree.Descend(s.last, visit)
	default:
		s.tree.Ascend(s.last, visit)
	}
	s.done = !more
	return out, nil
}

func (s *scanSource) ended() bool { return s.done }

func (s *scanSource) postBatch() bsoncore.Document { return nil }

// scanReply answers a find served by src: its first batch of bs documents
// (zeroBatch: none) and, when documents remain, a cursor for getMore.
func (c *call) scanReply(ns string, src *scanSource, bs int) bsoncore.Document {
	var first []bsoncore.Document
	if bs != zeroBatch {
		first, _ = src.next(c, bs, 0)
	}
	var id int64
	if !src.ended() {
		id = c.srv.cursors.add(&cursor{ns: ns, src: src, noTimeout: bsonval.Truthy(c.arg("noCursorTimeout"))})
	}
	return cursorDoc(id, ns, "firstBatch", first, nil)
}
