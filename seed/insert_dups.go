package seed

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/mongowrite"
)

// ErrNotStored is a document the server refused as a duplicate key that
// the collection does not hold as it is: another document is stored under
// its _id, or a unique index other than _id's holds one of its keys. The
// server gives both the same code (11000), and FerretDB names no index.
var ErrNotStored = errors.New("duplicate key, but this document is not the one stored")

// StoredSame tells, for each of docs, whether coll holds a document
// under its _id (there) and whether it holds it with these exact bytes
// (same), with one query.
func StoredSame(ctx context.Context, coll *mongo.Collection, docs []bson.Raw) (same, there []bool, err error) {
	same, there = make([]bool, len(docs)), make([]bool, len(docs))
	if len(docs) == 0 {
		return same, there, nil
	}
	ids := make(bson.A, len(docs))
	for i, d := range docs {
		ids[i] = d.Lookup("_id")
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
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

// NotStored is the reason a document refused as a duplicate key is not
// counted as already there; there tells whether a document is stored
// under its _id.
func NotStored(there bool) error {
	if there {
		return fmt.Errorf("%w: another document is stored under its _id", ErrNotStored)
	}
	return fmt.Errorf("%w: its _id is not stored; a unique index other than _id's holds one of its keys", ErrNotStored)
}

// heldAsTheyAre keeps, of the positions dups in docs (refused as
// duplicate keys), those coll holds as they are; the first it does not is
// a *mongowrite.WriteError about docs.
func heldAsTheyAre(ctx context.Context, coll *mongo.Collection, docs []bson.Raw, dups []int) ([]int, error) {
	sub := make([]bson.Raw, len(dups))
	for i, k := range dups {
		sub[i] = docs[k]
	}
	same, there, err := StoredSame(ctx, coll, sub)
	if err != nil {
		return nil, err
	}
	held := dups[:0:0]
	var first error
	for i, k := range dups {
		if same[i] {
			held = append(held, k)
		} else if first == nil {
			first = &mongowrite.WriteError{Collection: coll.Name(), Total: int64(len(docs)),
				Doc: &mongowrite.WriteDoc{Index: int64(k), ID: docs[k].Lookup("_id")}, Err: NotStored(there[i])}
		}
	}
	return held, first
}
