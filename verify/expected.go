package verify

import (
	"bytes"
	"context"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
)

// Expected is what one collection should hold: the documents a seeded plan
// generates, or the documents of fixture files. Build it with
// ExpectCollection or ExpectFixtures, which learn everything the checks
// need of the expected _ids (their table, types and order) when they build it.
type Expected struct {
	// DB and Collection name the collection to read.
	DB, Collection string

	src source

	// typeDesc says which _id types are allowed ("ObjectID (_id strategy
	// objectid)"); typeOK tests one.
	typeDesc string
	typeOK   func(bson.RawValue) bool

	// oids is set when the _ids are ObjectIDs: their timestamps are checked.
	oids bool
	// oidsReason says why they are not checked.
	oidsReason string
	// createdAt is set when every expected document with an ObjectID _id
	// has a createdAt date equal to the _id timestamp; createdAtReason
	// says why not.
	createdAt       bool
	createdAtReason string
	// winLo, winHi bound the ObjectID timestamps (Unix seconds); winDesc
	// says where the window comes from.
	winLo, winHi int64
	winDesc      string

	// ordered is set when the expected _ids increase in generation (or
	// file) order, so that reading sorted by _id must give that order;
	// orderReason says why not.
	ordered     bool
	orderReason string

	refs []refSpec

	// Indexes are the indexes the collection must have (besides _id's),
	// each with its key and options: a plan's, or a fixture sidecar's.
	Indexes []indexes.Index

	// outside, when set, finds the _ids of the collection's other parts
	// (and their number): the stored documents that have one are not
	// checked, and references to one hold. outsideDesc names the part.
	outside     func(bson.RawValue) (int64, bool)
	outsideDesc string
}

// refSpec is a reference field whose values must be _ids of another
// collection.
type refSpec struct {
	Field, To string
}

// Len is the number of expected documents.
func (e *Expected) Len() int64 { return e.src.count() }

// source is where expected documents come from.
type source interface {
	count() int64
	// lookup finds the expected document with this _id.
	lookup(id bson.RawValue) (int64, bool)
	// match compares the stored documents of items that have an expected
	// document (i >= 0) with it, setting equal, and expected when the
	// source has the document at hand. It is called from several
	// goroutines at once, on distinct items.
	match(ctx context.Context, items []item) error
	// label names document i in messages: "document 17", "users.ndjson:12".
	label(i int64) string
	// id returns the _id of document i when that is cheap.
	id(i int64) (bson.RawValue, bool)
	// scan visits every expected document in order, in one goroutine.
	scan(ctx context.Context, fn func(i int64, doc bson.Raw)) error
}

// keyEntry maps an _id key to the number of its expected document; sorted
// by key, a table of them inverts _ids no rule inverts.
type keyEntry struct {
	key idKey
	i   int64
}

func findEntry(entries []keyEntry, k idKey) (int64, bool) {
	at, ok := slices.BinarySearchFunc(entries, k, func(e keyEntry, k idKey) int { return bytes.Compare(e.key[:], k[:]) })
	if !ok {
		return 0, false
	}
	return entries[at].i, true
}

// ExpectStored is a collection that references point at whatever it
// holds (the target of a stored reference, seed.Ref.Stored): none of its
// documents is expected, and a reference into it holds when it names a
// stored _id. It belongs in ExpectedSet.Referenced.
func ExpectStored(db, coll string) *Expected {
	return &Expected{DB: db, Collection: coll, src: storedSource{}}
}

// storedSource expects no document.
type storedSource struct{}

func (storedSource) count() int64                                      { return 0 }
func (storedSource) lookup(bson.RawValue) (int64, bool)                { return 0, false }
func (storedSource) match(context.Context, []item) error               { return nil }
func (storedSource) label(i int64) string                              { return "" }
func (storedSource) id(int64) (bson.RawValue, bool)                    { return bson.RawValue{}, false }
func (storedSource) scan(context.Context, func(int64, bson.Raw)) error { return nil }
