package mongowrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// ErrNotStored is a document the server refused as a duplicate key that
// the collection does not hold as it is: another document is stored under
// its _id, or a unique index other than _id's holds one of its keys. The
// server gives both the same code (11000), and not every server names the
// index.
var ErrNotStored = errors.New("duplicate key, but this document is not the one stored")

// StoredSame tells, for each of docs, whether coll holds a document
// under its _id (there) and whether it holds it with these exact bytes
// (same), with one query.
func StoredSame(ctx context.Context, coll *mongo.Collection, docs []bson.Raw) (same, there []bool, err error) {
	same, there = make([]bool, len(docs)), make([]bool, len(docs))
	if len(docs) == 0 {
		return same, there, nil
	}
	cur, err := coll.Find(ctx, IDsIn(docs))
	if err != nil {
		return nil, nil, err
	}
	defer cur.Close(context.WithoutCancel(ctx))
	key := func(d bson.Raw) string {
		id := d.Lookup("_id")
		return string(append([]byte{byte(id.Type)}, id.Value...))
	}
	got := map[string][]byte{}
	for cur.Next(ctx) {
		got[key(cur.Current)] = bytes.Clone(cur.Current)
	}
	if err := cur.Err(); err != nil {
		return nil, nil, err
	}
	for i, d := range docs {
		s, ok := got[key(d)]
		same[i], there[i] = ok && bytes.Equal(s, d), ok
	}
	return same, there, nil
}

// IDsIn is the filter of the documents whose _id is one of docs': how a
// writer asks about the duplicates of a batch, and counts the documents of
// a batch whose outcome is unknown.
func IDsIn(docs []bson.Raw) bson.D {
	ids := make(bson.A, len(docs))
	for i, d := range docs {
		ids[i] = d.Lookup("_id")
	}
	return bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}
}

// NotStored is the reason a document refused as a duplicate key is not
// counted as already there; there tells whether a document is stored
// under its _id.
func NotStored(there bool) error {
	if there {
		return fmt.Errorf("%w: another document is stored under its _id", ErrNotStored)
	}
	return fmt.Errorf("%w: its _id is not stored; a unique index other than _id's holds one of its keys", ErrNotStored)
}

// stored tells the duplicates of a run with Resume from the documents the
// collection holds: by asking for each batch's duplicates by _id, or, with
// read, from digests of every stored document read once, on the first
// duplicate (where queries read the whole collection, every _id query reads
// every stored document, so one read of them costs less than a query per
// batch). A duplicate
// whose _id was not stored when they were read is asked for by _id.
type stored struct {
	coll *mongo.Collection
	read bool
	mu   sync.Mutex
	d    *Digests
	err  error
}

// digests reads the collection on the first call.
func (s *stored) digests(ctx context.Context) (*Digests, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d == nil && s.err == nil {
		s.d, s.err = ReadDigests(ctx, s.coll, maphash.MakeSeed())
	}
	return s.d, s.err
}

// confirm tells, for the documents of docs at the positions dups that the
// server refused as duplicate keys, whether the collection holds each as it
// is. It returns how many it does and, for the first it does not, its
// position in docs and why (NotStored).
func (s *stored) confirm(ctx context.Context, docs []bson.Raw, dups []int) (same int64, bad int, reason error, err error) {
	ask := dups
	if s.read {
		d, err := s.digests(ctx)
		if err != nil {
			return 0, 0, nil, err
		}
		ask = nil
		for _, i := range dups {
			switch ok, known := d.Same(docs[i]); {
			case !known:
				ask = append(ask, i)
			case ok:
				same++
			case reason == nil:
				bad, reason = i, NotStored(true)
			}
		}
	}
	if len(ask) == 0 {
		return same, bad, reason, nil
	}
	sub := make([]bson.Raw, len(ask))
	for j, i := range ask {
		sub[j] = docs[i]
	}
	ok, there, err := StoredSame(ctx, s.coll, sub)
	if err != nil {
		return same, 0, nil, err
	}
	for j, i := range ask {
		switch {
		case ok[j]:
			same++
		case reason == nil || i < bad:
			bad, reason = i, NotStored(there[j])
		}
	}
	return same, bad, reason, nil
}
