package seed

// References to the documents a target already holds (Ref.Stored).

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// StoredIDs are the _ids stored in collections of the target database, by
// collection name, each list sorted by _id: what the references marked
// Stored draw from. A collection that is missing or empty has an empty
// list; one not read has no entry. Generation does not read a database:
// the caller reads them (package run does) and hands them to BuildStored.
type StoredIDs map[string][]bson.RawValue

// ErrNoStoredIDs is matched (errors.Is) by a *StoredRefError.
var ErrNoStoredIDs = errors.New("no stored _ids to refer to")

// StoredRefError is a stored reference that has nothing to draw from: its
// collection holds no documents (Read), or its _ids were not read at all.
type StoredRefError struct {
	DB         string
	Collection string // the referring collection
	Field      string // its reference field
	To         string // the collection referred to
	Read       bool   // the _ids were read, and there were none
}

func (e *StoredRefError) Error() string {
	if !e.Read {
		return fmt.Sprintf("collection %q: ref %q: refers to the documents stored in %s.%s, which were not read; expected a target database to read them from", e.Collection, e.Field, e.DB, e.To)
	}
	return fmt.Sprintf("collection %q: ref %q: %s.%s holds no documents; expected stored documents to refer to (write %s first)", e.Collection, e.Field, e.DB, e.To, e.To)
}

// Is makes errors.Is(err, ErrNoStoredIDs) true.
func (e *StoredRefError) Is(target error) bool { return target == ErrNoStoredIDs }

// StoredTargets lists the collections the plan's stored references draw
// from, sorted, each once.
func (p *Plan) StoredTargets() []string {
	var out []string
	for _, cs := range p.Collections {
		for _, r := range cs.Refs {
			if r.Stored && !slices.Contains(out, r.To) {
				out = append(out, r.To)
			}
		}
	}
	slices.Sort(out)
	return out
}

// StoredSet is what a run's stored references drew from: a collection,
// how many _ids it held and a digest of them in order, recorded in the run
// manifest so that a resume or a verify can tell whether they are the same.
type StoredSet struct {
	Collection string `bson:"collection" json:"collection"`
	Count      int64  `bson:"count" json:"count"`
	Digest     string `bson:"digest" json:"digest"`
}

// storedSetOf is the StoredSet of the _ids ids of collection coll.
func storedSetOf(coll string, ids []bson.RawValue) StoredSet {
	h := sha256.New()
	var n [5]byte
	for _, v := range ids {
		n[0] = byte(v.Type)
		binary.LittleEndian.PutUint32(n[1:], uint32(len(v.Value)))
		h.Write(n[:])
		h.Write(v.Value)
	}
	return StoredSet{Collection: coll, Count: int64(len(ids)), Digest: hex.EncodeToString(h.Sum(nil))}
}

// StoredSets is what the dataset's stored references draw from, by
// collection name in order.
func (ds *Dataset) StoredSets() []StoredSet { return append([]StoredSet(nil), ds.stored...) }

// StoredSetsOf is the StoredSet of each collection of stored, by name in
// order.
func StoredSetsOf(stored StoredIDs) []StoredSet {
	var names []string
	for name := range stored {
		names = append(names, name)
	}
	slices.Sort(names)
	var out []StoredSet
	for _, name := range names {
		out = append(out, storedSetOf(name, stored[name]))
	}
	return out
}

// count is the number of documents r can point at.
func (r *boundRef) count() int64 {
	if r.Stored {
		return int64(len(r.stored))
	}
	return r.to.spec.Count
}

// id is the _id of target j.
func (r *boundRef) id(j int64) any {
	if r.Stored {
		return r.stored[j]
	}
	return r.to.ID(j)
}
