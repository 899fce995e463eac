package mongowrite

// The checks before a run writes anything: the target's rules, the same
// run already there, the run's _ids and unique keys against the stored
// documents.

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/ejson"
	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/parts"
)

// checkAll runs a seed run's checks that need no write, once Prepare has
// checked the indexes, before the first write (and so before any drop):
// the target's rules on each template's shape; without Resume and Drop, a
// run of the same plan already there; with Drop, the target's rules on
// every document; without Drop, the run's _ids and unique keys against the
// stored documents (and have, the indexes Prepare listed). What it read of
// the stored documents goes into seen, for the inserts.
func checkAll(ctx context.Context, db *mongo.Database, ds *Dataset, written []Source, have [][]indexes.Index, opts WriteOptions, seen storedIDs) error {
	for _, col := range written {
		if err := col.CheckShape(opts.Profile.Check); err != nil {
			return &RefusedError{DB: ds.DB, Shape: true, Before: true, Err: err}
		}
	}
	if !opts.Resume && !opts.Drop {
		for _, col := range written {
			if err := sameRunThere(ctx, db, ds, col, opts.Part); err != nil {
				return err
			}
		}
	}
	if !opts.Drop {
		for i, col := range written {
			if err := idsBeforeWriting(ctx, db, ds, col, opts, seen); err != nil {
				return err
			}
			if err := uniqueBeforeWriting(ctx, db, ds, col, have[i], opts); err != nil {
				return err
			}
		}
		return nil
	}
	// Generating is a few percent of a seed's cost: checking every
	// document first keeps the collection intact when one is refused.
	for _, col := range written {
		if err := checkEvery(ctx, col, parts.StreamOptions{Batch: opts.Batch, Check: opts.Profile.Check}); err != nil {
			return &RefusedError{DB: ds.DB, Before: true, Err: err}
		}
	}
	return nil
}

// uniqueBeforeWriting checks the documents col writes into a collection
// that already holds some against each other and against the stored ones,
// in every unique index of the collection (have: what Prepare listed) and
// of the plan (CheckUniqueInput): a key twice among them, or one held by a stored
// document with another _id, is an *IndexError of IndexUnique, nothing
// written. An empty
// collection has nothing to clash with, and its indexes are built after
// its documents, which the server judges then.
func uniqueBeforeWriting(ctx context.Context, db *mongo.Database, ds *Dataset, col Source, have []indexes.Index, opts WriteOptions) error {
	coll := db.Collection(col.Name())
	n, err := coll.EstimatedDocumentCount(ctx)
	if err != nil || n == 0 {
		return err
	}
	r := opts.Part.Range(col.Len())
	if err := checkableCount(r.Len()); err != nil {
		return err
	}
	next, stop := inOrder(ctx, col, r)
	defer stop()
	place := func(i int64) string { return fmt.Sprintf("document %d", r.From+i) }
	unchecked, err := CheckUniqueInput(ctx, UniqueInput{Collection: coll, Have: have, Declared: col.Indexes(), Profile: opts.Profile, Next: next, Place: place})
	if opts.Unchecked != nil {
		for _, u := range unchecked {
			opts.Unchecked(ds.DB, u)
		}
	}
	var ue *UniqueInputError
	var uc *UniqueClashError
	if errors.As(err, &ue) || errors.As(err, &uc) {
		return &IndexError{DB: ds.DB, Collection: col.Name(), Stage: IndexUnique, Err: err}
	}
	return err
}

// sameRunThere refuses to write a plan whose run manifest says it was
// written already (or started): the inserts would only repeat duplicate
// _ids.
func sameRunThere(ctx context.Context, db *mongo.Database, ds *Dataset, col Source, part parts.Part) error {
	if ds.Same == nil {
		return nil
	}
	m, err := ReadPartManifest(ctx, db, col.Name(), part)
	switch {
	case errors.Is(err, ErrNoManifest):
		return nil
	case err != nil:
		return err
	case !ds.Same(m):
		return nil
	}
	return &AlreadyStoredError{DB: ds.DB, Collection: col.Name(), Part: part, Manifest: m}
}

// inOrder is UniqueInput.Next over the documents r of s, made by its
// stream (the bytes of Raw, made faster), positions counted from r.From;
// stop ends the stream.
func inOrder(ctx context.Context, s Source, r parts.Range) (next func() (bson.Raw, int64, error), stop func()) {
	b := s.Batches(ctx, parts.StreamOptions{Ranges: []parts.Range{r}})
	var cur parts.Batch
	k := 0
	return func() (bson.Raw, int64, error) {
		for k == len(cur.Docs) {
			var err error
			if cur, err = b.Next(); err != nil {
				return nil, 0, err
			}
			k = 0
		}
		k++
		return cur.Docs[k-1], cur.From + int64(k-1) - r.From, nil
	}, b.Close
}

// The _ids a run will write, checked against the stored documents before
// the first write.

// idQueryBatch is how many _ids one query asks for, on a server that
// serves an _id query from its index.
const idQueryBatch = 1000

// IDCheckReadMax is the most stored documents read to check the _ids of a
// run before writing on a server whose every _id query reads the whole
// collection (rules.Profile.QueriesUseIndexes), unless the run writes four
// times as many: beyond, the read would cost more than a quarter of the run
// (docs/benchmarks.md, Reading a whole collection), so the check is left to
// the writes and reported as not made (WriteOptions.Unchecked).
const IDCheckReadMax = 50_000

// storedIDs is what idsBeforeWriting learnt of a collection: the digests
// of every stored document, when it read them all.
type storedIDs map[string]*Digests

// idsBeforeWriting checks the _id of each document col will write (those
// of its part, or the ones its manifest lists as missing with Resume)
// against the documents its collection already holds: a document stored
// under one of them with other bytes is a clash in the _id index (a
// *IndexError of IndexUnique with a *UniqueClashError, exit 1,
// nothing written; Resume cannot help), and one stored as generated,
// without Resume, an *AlreadyStoredError. An empty collection has nothing
// to clash with. On a server whose every _id query scans the collection
// (rules.Profile.QueriesUseIndexes) the collection is read once, and its
// digests kept in seen for the inserts, unless it holds more than
// IDCheckReadMax documents and more than a quarter of what the run writes;
// elsewhere the _ids are asked for idQueryBatch at a time.
func idsBeforeWriting(ctx context.Context, db *mongo.Database, ds *Dataset, col Source, opts WriteOptions, seen storedIDs) error {
	coll := db.Collection(col.Name())
	n, err := coll.EstimatedDocumentCount(ctx)
	if err != nil || n == 0 {
		return err
	}
	ranges := []parts.Range{opts.Part.Range(col.Len())}
	if m := opts.Manifests[col.Name()]; opts.Resume && m != nil {
		ranges = m.Missing()
	}
	var todo int64
	for _, r := range ranges {
		todo += r.Len()
	}
	var look func(docs []bson.Raw) (same, there []bool, err error)
	if !opts.Profile.QueriesUseIndexes() && n > max(todo/4, IDCheckReadMax) {
		if opts.Unchecked != nil {
			opts.Unchecked(ds.DB, Unchecked{Collection: col.Name(), Index: indexes.IDIndexName,
				Reason: fmt.Sprintf("the server would read all %d stored documents for that, more than %d and than a quarter of the %d the run writes; a document stored under one of its _ids stops the run while writing", n, IDCheckReadMax, todo)})
		}
		return nil
	}
	if !opts.Profile.QueriesUseIndexes() {
		d, err := ReadDigests(ctx, coll, maphash.MakeSeed())
		if err != nil {
			return fmt.Errorf("%s.%s: reading the stored documents to check the _ids of the run: %w", ds.DB, col.Name(), err)
		}
		seen[col.Name()] = d
		look = func(docs []bson.Raw) ([]bool, []bool, error) {
			same, there := make([]bool, len(docs)), make([]bool, len(docs))
			for i, doc := range docs {
				same[i], there[i] = d.Same(doc)
			}
			return same, there, nil
		}
	} else {
		look = func(docs []bson.Raw) ([]bool, []bool, error) { return StoredSame(ctx, coll, docs) }
	}
	var f idFindings
	s := col.Batches(ctx, parts.StreamOptions{Ranges: ranges, Batch: idQueryBatch})
	defer s.Close()
	for {
		b, err := s.Next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = f.batch(b, look)
		}
		if err != nil {
			return fmt.Errorf("%s.%s: checking the _ids of the run against the stored documents: %w", ds.DB, col.Name(), err)
		}
	}
	switch {
	case f.count > 0:
		return &IndexError{DB: ds.DB, Collection: col.Name(), Stage: IndexUnique, Err: &UniqueClashError{Collection: col.Name(), Listed: f.clashes, Count: f.count}}
	case f.same > 0 && !opts.Resume:
		return &AlreadyStoredError{DB: ds.DB, Collection: col.Name(), Part: opts.Part, Count: f.same, First: f.first, FirstID: f.firstID}
	}
	return nil
}

// idFindings are the documents of a run found stored: under their _id
// with other bytes (clashes, the first MaxUniqueListed listed and
// all counted), or as generated (same, the first one's number and _id).
type idFindings struct {
	clashes []UniqueClash
	count   int
	same    int64
	first   int64
	firstID string
}

// batch looks up the documents of b, a batch of the run's.
func (f *idFindings) batch(b parts.Batch, look func([]bson.Raw) (same, there []bool, err error)) error {
	docs := b.Docs
	same, there, err := look(docs)
	if err != nil {
		return err
	}
	for k, doc := range docs {
		i, id := b.From+int64(k), ejson.ValueText(doc.Lookup("_id"))
		switch {
		case same[k]:
			if f.same == 0 {
				f.first, f.firstID = i, id
			}
			f.same++
		case there[k]:
			f.count++
			if len(f.clashes) < MaxUniqueListed {
				f.clashes = append(f.clashes, UniqueClash{Index: indexes.IDIndexName, Key: id, StoredID: id, At: fmt.Sprintf("document %d", i)})
			}
		}
	}
	return nil
}
