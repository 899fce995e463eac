package mongowrite

import (
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
// under its _id (there) and whether it holds it as it is (same: Stored's
// rule), with one query.
func StoredSame(ctx context.Context, coll *mongo.Collection, docs []bson.Raw) (same, there []bool, err error) {
	return NewDigests(maphash.MakeSeed()).confirm(ctx, coll, docs, false)
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

// Stored is what counts as already there, for every writer: a document
// the server refused as a duplicate key is there when the collection holds
// it as it is (the same bytes, _id first as a server stores it; Digests);
// one whose _id holds another document is a different document, and one
// whose _id is not stored at all was refused by a unique index other than
// _id's. A seed run with Resume asks it about its duplicates, a load about
// every document it finds stored.
//
// Without Read it asks for each batch's duplicates by _id. With Read it
// tells them from digests of every stored document, which Read gives on
// the first duplicate (ReadDigests, or a read made ahead): where queries
// read the whole collection (rules.Profile.QueriesUseIndexes), every _id
// query reads every stored document, so one read of them costs less than a
// query per batch. A duplicate whose _id was not stored when they were read
// is read then: by _id, or, with Scan, with the whole collection again (on
// such a server a filter of many _ids costs more than the read of all).
type Stored struct {
	Coll *mongo.Collection
	Read func(context.Context) (*Digests, error)
	Scan bool

	mu  sync.Mutex
	d   *Digests
	err error
}

// Digests is what s read of the collection: nil until its first duplicate,
// and always without Read.
func (s *Stored) Digests() *Digests {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.d
}

// Confirm tells, for the documents of docs at the positions dups, refused
// as duplicate keys, whether the collection holds each as it is (same)
// and whether it holds a document under its _id (there).
func (s *Stored) Confirm(ctx context.Context, docs []bson.Raw, dups []int) (same, there []bool, err error) {
	sub := make([]bson.Raw, len(dups))
	for j, i := range dups {
		sub[j] = docs[i]
	}
	if s.Read == nil {
		return StoredSame(ctx, s.Coll, sub)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d == nil && s.err == nil {
		s.d, s.err = s.Read(ctx)
	}
	if s.err != nil {
		return nil, nil, s.err
	}
	return s.d.confirm(ctx, s.Coll, sub, s.Scan)
}

// confirm tells, for each of docs, whether it is stored as it is and
// whether its _id is, from d: the documents whose _id d does not know are
// read into it first, by _id or, with scan, with the whole collection.
func (d *Digests) confirm(ctx context.Context, coll *mongo.Collection, docs []bson.Raw, scan bool) (same, there []bool, err error) {
	same, there = make([]bool, len(docs)), make([]bool, len(docs))
	var unknown []bson.Raw
	for i, doc := range docs {
		if same[i], there[i] = d.Same(doc); !there[i] {
			unknown = append(unknown, doc)
		}
	}
	if len(unknown) == 0 {
		return same, there, nil
	}
	filter := bson.D{}
	if !scan {
		filter = IDsIn(unknown)
	}
	if err := d.Read(ctx, coll, filter); err != nil {
		return nil, nil, err
	}
	for i, doc := range docs {
		if !there[i] {
			same[i], there[i] = d.Same(doc)
		}
	}
	return same, there, nil
}
