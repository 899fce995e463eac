package oidkittest

import (
	"context"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
)

// memTemplate is a template held in memory: each collection's documents as
// the server returned them, and its indexes.
type memTemplate struct {
	once  sync.Once
	err   error
	colls []memColl
}

type memColl struct {
	name    string
	docs    []any // bson.Raw, as InsertMany takes them
	indexes []indexes.Index
}

// read fills the template from db, collection by collection.
func (m *memTemplate) read(ctx context.Context, db *mongo.Database, names []string) error {
	for _, n := range names {
		coll := db.Collection(n)
		cur, err := mongowrite.Scan(ctx, coll, 1000)
		if err != nil {
			return err
		}
		mc := memColl{name: n}
		for cur.Next(ctx) {
			mc.docs = append(mc.docs, bson.Raw(append([]byte(nil), cur.Current...)))
		}
		if err := cur.Err(); err != nil {
			_ = cur.Close(ctx)
			return err
		}
		_ = cur.Close(ctx)
		if mc.indexes, err = indexes.List(ctx, coll); err != nil {
			return err
		}
		m.colls = append(m.colls, mc)
	}
	return nil
}

// insert copies the template into db: unordered InsertMany batches of
// 1,000, then the indexes.
func (m *memTemplate) insert(ctx context.Context, db *mongo.Database) error {
	for _, mc := range m.colls {
		coll := db.Collection(mc.name)
		for i := 0; i < len(mc.docs); i += 1000 {
			if _, err := coll.InsertMany(ctx, mc.docs[i:min(i+1000, len(mc.docs))], options.InsertMany().SetOrdered(false)); err != nil {
				return err
			}
		}
		if len(mc.docs) == 0 {
			if err := db.CreateCollection(ctx, mc.name); err != nil {
				return err
			}
		}
		if err := indexes.Create(ctx, coll, mc.indexes); err != nil {
			return err
		}
	}
	return nil
}
