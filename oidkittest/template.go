package oidkittest

import (
	"context"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/oidkittest/tplcache"
)

// memTemplate is a template held in memory: each collection's documents as
// the server returned them, and its indexes.
type memTemplate struct {
	once  sync.Once
	err   error
	colls []tplcache.Collection
}

// readColls reads the collections names of db: their documents in the
// order the server returns them, and their indexes.
func readColls(ctx context.Context, db *mongo.Database, names []string) ([]tplcache.Collection, error) {
	var out []tplcache.Collection
	for _, n := range names {
		coll := db.Collection(n)
		cur, err := mongowrite.Scan(ctx, coll, 1000)
		if err != nil {
			return nil, err
		}
		mc := tplcache.Collection{Name: n}
		for cur.Next(ctx) {
			mc.Docs = append(mc.Docs, bson.Raw(append([]byte(nil), cur.Current...)))
		}
		if err := cur.Err(); err != nil {
			_ = cur.Close(ctx)
			return nil, err
		}
		_ = cur.Close(ctx)
		if mc.Indexes, err = indexes.List(ctx, coll); err != nil {
			return nil, err
		}
		out = append(out, mc)
	}
	return out, nil
}

// insertColls copies colls into db: unordered batches cut by the writer's
// rule (mongowrite.Cut; mongowrite.InsertBatch: on the embedded server the documents go as they
// are, not through the driver's InsertMany), as many at a time as
// workers, then the indexes.
func insertColls(ctx context.Context, db *mongo.Database, colls []tplcache.Collection, workers int) error {
	for _, mc := range colls {
		coll := db.Collection(mc.Name)
		if len(mc.Docs) == 0 {
			if err := db.CreateCollection(ctx, mc.Name); err != nil {
				return err
			}
		}
		if err := insertDocs(ctx, coll, mc.Docs, workers); err != nil {
			return err
		}
		if err := indexes.Create(ctx, coll, mc.Indexes); err != nil {
			return err
		}
	}
	return nil
}

// insertDocs inserts docs into coll with workers goroutines, each taking
// the next batch; it returns the first error.
func insertDocs(ctx context.Context, coll *mongo.Collection, docs []bson.Raw, workers int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []bson.Raw)
	errs := make(chan error, max(workers, 1))
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				if _, _, err := mongowrite.InsertBatch(ctx, coll, b, false); err != nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
send:
	for i := 0; i < len(docs); {
		n := mongowrite.Cut(docs[i:], mongowrite.DefaultBatch)
		select {
		case batches <- docs[i : i+n]:
			i += n
		case <-ctx.Done():
			break send
		}
	}
	close(batches)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return ctx.Err()
	}
}
