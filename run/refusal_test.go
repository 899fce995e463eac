package run_test

// The refusal paths of seeding into a populated collection: a stored
// document under a generated _id, a unique key held by a stored document
// (before writing, and stored by another writer once writing started), a
// dropped connection. Each checks the count Seed reports (its result and
// its *InsertError) against what the server holds afterwards, read again
// after a restart where the server was lost.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
)

const seedMatrixCount = 3000

func seedMatrixPlan() *seed.Plan {
	return &seed.Plan{DB: "matrix", Seed: 11, Seeded: true, Collections: []seed.CollectionSpec{{
		Name: "users", Kind: seed.KindUser, Count: seedMatrixCount,
		Indexes: []indexes.Index{{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true}},
	}}}
}

type seedServer struct {
	s      *embedded.Server
	client *mongo.Client
}

func startSeedServer(t *testing.T, dir string) *seedServer {
	t.Helper()
	s, err := embedded.Start(embedded.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetServerSelectionTimeout(2 * time.Second).SetTimeout(time.Minute))
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	ss := &seedServer{s: s, client: c}
	t.Cleanup(ss.stop)
	return ss
}

func (s *seedServer) stop() {
	if s.client != nil {
		_ = s.client.Disconnect(context.Background())
		s.client = nil
	}
	if s.s != nil {
		_ = s.s.Close()
		s.s = nil
	}
}

// seedHeld is how many generated documents the collection holds with
// their exact bytes.
func seedHeld(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection) int64 {
	t.Helper()
	cur, err := coll.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	got := map[string][]byte{}
	for cur.Next(ctx) {
		got[string(cur.Current.Lookup("_id").Value)] = bytes.Clone(cur.Current)
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	var n int64
	for i := range col.Len() {
		want, err := bson.Marshal(col.Doc(i))
		if err != nil {
			t.Fatal(err)
		}
		_, id, err := bson.MarshalValue(col.ID(i))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(got[string(id)], want) {
			n++
		}
	}
	return n
}

func seedDocField(t *testing.T, col *seed.Collection, i int64, field string) bson.RawValue {
	raw, err := bson.Marshal(col.Doc(i))
	if err != nil {
		t.Fatal(err)
	}
	return bson.Raw(raw).Lookup(field)
}

func TestSeedRefusalMatrix(t *testing.T) {
	type cell struct {
		name   string
		resume bool
		// before stores what the collection holds beside 100 other users.
		before func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection)
		// atStart runs as the inserts start.
		atStart func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection)
		drop    bool // close the server after the first acknowledged batch
		nothing bool // nothing may be written
		wantErr bool
		asked   bool  // the target's profile is MongoDB's: the _ids are asked for
		idClash int64 // > 0: the document named as held under its _id by another
		already int64 // > 0: the documents an *run.AlreadyStoredError counts
	}
	other := func(id any, email any) bson.D {
		return bson.D{{Key: "_id", Value: id}, {Key: "email", Value: email}, {Key: "other", Value: true}}
	}
	cells := []cell{
		{
			// A different document stored under the _id of document 10.
			name: "duplicate_id",
			before: func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection) {
				if _, err := coll.InsertOne(ctx, other(col.ID(10), "stored under a generated _id")); err != nil {
					t.Fatal(err)
				}
			},
			nothing: true, wantErr: true, idClash: 10,
		},
		{
			name: "duplicate_id_resume", resume: true,
			before: func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection) {
				if _, err := coll.InsertOne(ctx, other(col.ID(10), "stored under a generated _id")); err != nil {
					t.Fatal(err)
				}
			},
			nothing: true, wantErr: true, idClash: 10,
		},
		{
			// Documents 40 to 59 stored as generated, without a manifest
			// (loaded from the plan's fixture files): refused without
			// Resume, counted as already there with it.
			name:    "already_stored",
			before:  storeGenerated(40, 60),
			nothing: true, wantErr: true, already: 20,
		},
		{
			name: "already_stored_resume", resume: true,
			before: storeGenerated(40, 60),
		},
		{
			// The _ids asked for 1,000 at a time, as on a server whose
			// _id queries use its index (MongoDB's profile).
			name: "duplicate_id_asked", asked: true,
			before: func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection) {
				if _, err := coll.InsertOne(ctx, other(col.ID(2500), "stored under a generated _id")); err != nil {
					t.Fatal(err)
				}
			},
			nothing: true, wantErr: true, idClash: 2500,
		},
		{
			name: "already_stored_asked", asked: true,
			before:  storeGenerated(990, 1010),
			nothing: true, wantErr: true, already: 20,
		},
		{
			name: "unique_stored",
			before: func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection) {
				if _, err := coll.InsertOne(ctx, other("holder", seedDocField(t, col, 20, "email"))); err != nil {
					t.Fatal(err)
				}
			},
			nothing: true, wantErr: true,
		},
		{
			// A unique index of the collection (sparse: the other users
			// lack the field) on a field the plan repeats.
			name: "unique_within_input",
			before: func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection) {
				if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "active", Value: 1}}, Options: options.Index().SetUnique(true).SetSparse(true)}); err != nil {
					t.Skipf("skipped: the server refuses a sparse unique index: %v", err)
				}
			},
			nothing: true, wantErr: true,
		},
		{
			name: "unique_stored_at_write_time",
			atStart: func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection) {
				if _, err := coll.InsertOne(ctx, other("raced", seedDocField(t, col, seedMatrixCount-5, "email"))); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: true,
		},
		{
			name: "unique_stored_at_write_time_resume", resume: true,
			atStart: func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection) {
				if _, err := coll.InsertOne(ctx, other("raced", seedDocField(t, col, seedMatrixCount-5, "email"))); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: true,
		},
		{name: "dropped_connection", drop: true, wantErr: true},
	}
	for _, c := range cells {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			dir := filepath.Join(t.TempDir(), "data")
			s := startSeedServer(t, dir)
			profile, err := rules.Detect(ctx, s.client)
			if err != nil {
				t.Fatal(err)
			}
			if c.asked {
				profile = rules.MongoDB
			}
			db := s.client.Database("matrix")
			coll := db.Collection("users")
			ds, err := seedMatrixPlan().Build()
			if err != nil {
				t.Fatal(err)
			}
			col := ds.Collection("users")
			for i := range 100 {
				if _, err := coll.InsertOne(ctx, other(fmt.Sprint("stored ", i), fmt.Sprintf("stored%d@example.org", i))); err != nil {
					t.Fatal(err)
				}
			}
			if c.before != nil {
				c.before(t, ctx, coll, col)
			}
			count0, err := coll.CountDocuments(ctx, bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			acked := false
			opts := run.Options{Profile: profile, Batch: 250, Resume: c.resume, Progress: func(p run.Progress) {
				switch {
				case p.Start:
					if c.atStart != nil {
						c.atStart(t, ctx, coll, col)
					}
				case c.drop && !p.Done && p.Inserted > 0 && !acked:
					acked = true
					_ = s.s.Close()
				}
			}}
			res, err := run.Seed(ctx, db, seedMatrixPlan(), opts)
			t.Logf("err: %v", err)
			if c.wantErr != (err != nil) {
				t.Fatalf("err = %v; want an error: %v", err, c.wantErr)
			}
			var reported int64
			if res != nil {
				reported = res.Inserted + res.Skipped
				for _, cr := range res.Collections {
					reported = cr.Inserted + cr.Skipped
					t.Logf("result: inserted %d, skipped %d", cr.Inserted, cr.Skipped)
				}
			}
			var ie *run.InsertError
			hasIE := errors.As(err, &ie)
			if c.drop {
				s.stop()
				s = startSeedServer(t, dir)
				coll = s.client.Database("matrix").Collection("users")
			}
			held := seedHeld(t, ctx, coll, col)
			t.Logf("held %d of %d; reported %d", held, seedMatrixCount, reported)
			if hasIE {
				t.Logf("InsertError: held %d (at least: %v)", ie.Held, ie.AtLeast)
				switch {
				case ie.Held < 0:
					t.Errorf("the error gives no count (%d): %v", ie.Held, err)
				case ie.AtLeast && ie.Held > held:
					t.Errorf("error says at least %d; the server holds %d", ie.Held, held)
				case !ie.AtLeast && ie.Held != held:
					t.Errorf("error says %d; the server holds %d", ie.Held, held)
				}
			}
			switch {
			case c.nothing:
				checkRefusedBefore(t, err, c.idClash, c.already)
				if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != count0 || reported != 0 {
					t.Errorf("%d documents (%v), %d reported; want the %d there before, nothing reported", n, err, reported, count0)
				}
			case hasIE && ie.AtLeast:
				if reported > held {
					t.Errorf("reported %d; the server holds %d", reported, held)
				}
			default:
				if reported != held {
					t.Errorf("reported %d; the server holds %d", reported, held)
				}
			}
		})
	}
}

// storeGenerated stores documents from to to of the run as generated.
func storeGenerated(from, to int64) func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection) {
	return func(t *testing.T, ctx context.Context, coll *mongo.Collection, col *seed.Collection) {
		for i := from; i < to; i++ {
			raw, err := bson.Marshal(col.Doc(i))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := coll.InsertOne(ctx, bson.Raw(raw)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkRefusedBefore checks the error of a run refused before writing: an
// *run.AlreadyStoredError counting already documents, a clash in the _id
// index naming document idClash, or else a clash in another unique index.
func checkRefusedBefore(t *testing.T, err error, idClash, already int64) {
	t.Helper()
	var ue *run.IndexError
	var as *run.AlreadyStoredError
	var uc *fixtures.UniqueClashError
	switch {
	case already > 0:
		if !errors.As(err, &as) || as.Count != already {
			t.Errorf("err = %v; want a *run.AlreadyStoredError of %d documents", err, already)
		}
	case !errors.As(err, &ue) || ue.Stage != run.IndexUnique:
		t.Errorf("err = %v; want a *run.IndexError of IndexUnique", err)
	case idClash > 0:
		want := fmt.Sprintf("document %d", idClash)
		if !errors.As(err, &uc) || uc.Count != 1 || uc.Listed[0].Index != indexes.IDIndexName || uc.Listed[0].At != want {
			t.Errorf("err = %v; want one clash in index %s at %s", err, indexes.IDIndexName, want)
		}
	}
}

// Into a collection of more than run.IDCheckReadMax documents on a server
// whose queries read the whole collection the _ids are not checked before
// writing, and the run says so: a
// different document under the _id of document 10 then stops it while
// writing, with counts that are what the server holds.
func TestSeedIDCheckLeftToWritesOnALargeCollection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startSeedServer(t, filepath.Join(t.TempDir(), "data"))
	profile, err := rules.Detect(ctx, s.client)
	if err != nil {
		t.Fatal(err)
	}
	if profile.QueriesUseIndexes() {
		t.Skip("the check is bounded only where queries read the whole collection")
	}
	db := s.client.Database("matrix")
	coll := db.Collection("users")
	ds, err := seedMatrixPlan().Build()
	if err != nil {
		t.Fatal(err)
	}
	col := ds.Collection("users")
	for from := 0; from <= run.IDCheckReadMax; from += 10_000 {
		docs := make([]any, 0, 10_000)
		for i := from; i < min(from+10_000, run.IDCheckReadMax+1); i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprint("stored ", i)}})
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: col.ID(10)}, {Key: "other", Value: true}}); err != nil {
		t.Fatal(err)
	}
	var unchecked []fixtures.Unchecked
	res, err := run.Seed(ctx, db, seedMatrixPlan(), run.Options{Profile: profile, Batch: 250, Unchecked: func(_ string, u fixtures.Unchecked) { unchecked = append(unchecked, u) }})
	// The reason is mongowrite.ErrNotStored when the server answers within
	// run's bound whether it holds the document as generated; else (a
	// slow server: the race detector) its own duplicate key (P34b).
	var ie *run.InsertError
	if !errors.As(err, &ie) || !errors.Is(err, mongowrite.ErrNotStored) && !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("err = %v; want an *run.InsertError, a duplicate key", err)
	}
	if len(unchecked) == 0 || unchecked[0].Index != indexes.IDIndexName {
		t.Errorf("unchecked = %v; want the _id index named as not checked", unchecked)
	}
	held := seedHeld(t, ctx, coll, col)
	var reported int64
	for _, cr := range res.Collections {
		reported = cr.Inserted + cr.Skipped
	}
	if ie.AtLeast && (ie.Held > held || reported > held) || !ie.AtLeast && (ie.Held != held || reported != held) {
		t.Errorf("the error says %d (at least: %v), the result %d; the server holds %d", ie.Held, ie.AtLeast, reported, held)
	}
}
