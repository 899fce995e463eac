package seed

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
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
