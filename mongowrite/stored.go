package mongowrite

// What a collection holds already: its documents digested by _id
// (Digests), whether a document is stored as it is (Stored, StoredSame,
// ErrNotStored), and the one read of a whole collection (Scan).

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/rules"
)

// Digests remembers, for every document of a collection, a 64-bit hash of
// its bytes by the key of its _id: about 50 bytes per stored document (5 MB
// for 100,000), whatever the size of the documents. A load reads a collection
// once into it, on the first _id it finds already there, and then tells
// which documents of its files are already stored unchanged without asking
// the server about each one: where queries read the whole collection
// (rules.Profile.QueriesUseIndexes) every lookup by _id scans it.
type Digests struct {
	seed maphash.Seed
	m    map[rules.IDKey]uint64
	// WithoutID is set on the digests of a load's files when one of their
	// documents has no _id: the server gives it a new one, so the files
	// are never all stored already.
	WithoutID bool
}

// NewDigests is an empty Digests hashed with seed.
func NewDigests(seed maphash.Seed) *Digests {
	return &Digests{seed: seed, m: map[rules.IDKey]uint64{}}
}

// Sum hashes doc as a server stores it: _id first (the server moves it to
// the front), the other fields in their order. It reads the elements in
// place, allocating nothing: a load hashes every document of its files
// while it validates them.
func (d *Digests) Sum(doc bson.Raw) uint64 {
	var h maphash.Hash
	h.SetSeed(d.seed)
	if len(doc) < 5 {
		_, _ = h.Write(doc)
		return h.Sum64()
	}
	body := doc[4 : len(doc)-1]
	if idFirstOnly(body) {
		// The order a server stores: the hash of the two passes below.
		_, _ = h.Write(body)
		return h.Sum64()
	}
	for pass := 0; pass < 2; pass++ {
		for rest := body; len(rest) > 0; {
			e, next, ok := bsoncore.ReadElement(rest)
			if !ok {
				_, _ = h.Write(rest)
				break
			}
			if isID := string(e.KeyBytes()) == "_id"; isID == (pass == 0) {
				_, _ = h.Write(e)
			}
			rest = next
		}
	}
	return h.Sum64()
}

// idFirstOnly reports whether the elements of body are well formed, the
// first is _id and no other is: most documents, whose hash is that of body.
func idFirstOnly(body []byte) bool {
	for i, rest := 0, body; len(rest) > 0; i++ {
		e, next, ok := bsoncore.ReadElement(rest)
		if !ok || (string(e.KeyBytes()) == "_id") != (i == 0) {
			return false
		}
		rest = next
	}
	return len(body) > 0
}

// Add records the digest of doc, a document of a load's files.
func (d *Digests) Add(doc bson.Raw) {
	id := doc.Lookup("_id")
	if id.Type == 0 {
		d.WithoutID = true
		return
	}
	d.m[rules.KeyOf(id)] = d.Sum(doc)
}

// Holds reports whether doc, read from a load's files again, is a document
// of files with these bytes; a document without _id cannot be told and is
// taken as held (a file that changed is still caught by its count).
func (d *Digests) Holds(doc bson.Raw) bool {
	id := doc.Lookup("_id")
	if d == nil || id.Type == 0 {
		return true
	}
	want, ok := d.m[rules.KeyOf(id)]
	return ok && want == d.Sum(doc)
}

// Covers reports whether every document of files is stored with these
// exact bytes: a load run again after it finished, with nothing to write.
func (d *Digests) Covers(files *Digests) bool {
	if files == nil || files.WithoutID || len(files.m) == 0 {
		return false
	}
	for k, want := range files.m {
		if got, ok := d.m[k]; !ok || got != want {
			return false
		}
	}
	return true
}

// Same reports whether doc is stored with these exact bytes; known is false
// when its _id was not in the collection when it was read.
func (d *Digests) Same(doc bson.Raw) (same, known bool) {
	want, ok := d.m[rules.KeyOf(doc.Lookup("_id"))]
	if !ok {
		return false, false
	}
	return want == d.Sum(doc), true
}

// ReadDigests reads every document of coll once, streaming, hashed with
// seed.
func ReadDigests(ctx context.Context, coll *mongo.Collection, seed maphash.Seed) (*Digests, error) {
	d := NewDigests(seed)
	return d, d.Read(ctx, coll, bson.D{})
}

// Read adds the documents of coll that match filter; an empty filter
// reads them all with Scan.
func (d *Digests) Read(ctx context.Context, coll *mongo.Collection, filter bson.D) error {
	var cur *mongo.Cursor
	var err error
	if len(filter) == 0 {
		cur, err = Scan(ctx, coll, scanBatch)
	} else {
		cur, err = coll.Find(ctx, filter, options.Find().SetBatchSize(scanBatch))
	}
	if err != nil {
		return err
	}
	defer cur.Close(context.WithoutCancel(ctx))
	for cur.Next(ctx) {
		d.m[rules.KeyOf(cur.Current.Lookup("_id"))] = d.Sum(cur.Current)
	}
	return cur.Err()
}

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

// scanBatch is the documents per batch of the reads of whole collections
// here.
const scanBatch = 1000

// Scan opens a cursor over every document of coll, in the server's natural
// order, batch documents per batch (0: the server's default). It is an
// aggregate with an empty pipeline rather than a find: the same documents
// in the same order, and less work on a server whose find passes every
// document through its filter and projection code even when there is
// neither (docs/benchmarks.md, Reading a whole collection).
func Scan(ctx context.Context, coll *mongo.Collection, batch int32) (*mongo.Cursor, error) {
	opts := options.Aggregate()
	if batch > 0 {
		opts.SetBatchSize(batch)
	}
	return coll.Aggregate(ctx, bson.A{}, opts)
}
