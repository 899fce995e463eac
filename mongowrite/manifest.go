package mongowrite

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/seed"
)

// ManifestCollection is the collection of a target database that holds the
// run manifests: one document per written collection, whose _id is the
// collection's name, or per written part of a collection ([seed.Part]),
// whose _id is "NAME#part-0003-of-0016": parts written at once by separate
// processes each replace only their own.
const ManifestCollection = "oidkit_runs"

// ErrNoManifest is returned by ReadManifest for a collection without one.
var ErrNoManifest = errors.New("no run manifest")

// ManifestKey is the _id of the manifest of part p of collection coll.
func ManifestKey(coll string, p seed.Part) string {
	if p.Whole() {
		return coll
	}
	return coll + "#" + p.Suffix()
}

// SaveManifest writes m into its database's ManifestCollection, replacing
// the collection's (or the part's) earlier one; it sets m's Key and
// Updated.
func SaveManifest(ctx context.Context, db *mongo.Database, m *seed.Manifest) error {
	m.Updated = time.Now().UTC().Truncate(time.Millisecond)
	m.Key = ManifestKey(m.Collection, m.Part)
	coll := db.Collection(ManifestCollection)
	filter := bson.D{{Key: "_id", Value: m.Key}}
	_, err := coll.ReplaceOne(ctx, filter, m, options.Replace().SetUpsert(true))
	// Two runs that start writing one collection at once both upsert its
	// manifest, and the server may refuse the second insert of the _id:
	// again, it is a replace; the run that saves last is the one recorded.
	for try := 0; try < 3 && mongo.IsDuplicateKeyError(err); try++ {
		_, err = coll.ReplaceOne(ctx, filter, m, options.Replace().SetUpsert(true))
	}
	if err != nil {
		return fmt.Errorf("run manifest of %s: %w", manifestWhere(m), err)
	}
	return nil
}

// manifestWhere names the manifest's collection and part in messages.
func manifestWhere(m *seed.Manifest) string {
	if m.Part.Whole() {
		return m.DB + "." + m.Collection
	}
	return fmt.Sprintf("%s.%s part %s", m.DB, m.Collection, m.Part)
}

// ReadManifest reads the manifest of collection coll of db; an error wraps
// ErrNoManifest when there is none.
func ReadManifest(ctx context.Context, db *mongo.Database, coll string) (*seed.Manifest, error) {
	return ReadPartManifest(ctx, db, coll, seed.Part{})
}

// ReadPartManifest reads the manifest of part p of collection coll of db
// (the whole collection's for the zero Part); an error wraps ErrNoManifest
// when there is none.
func ReadPartManifest(ctx context.Context, db *mongo.Database, coll string, p seed.Part) (*seed.Manifest, error) {
	var m seed.Manifest
	key := ManifestKey(coll, p)
	err := db.Collection(ManifestCollection).FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&m)
	if errors.Is(err, mongo.ErrNoDocuments) {
		if p.Whole() {
			return nil, fmt.Errorf("%w for %s.%s", ErrNoManifest, db.Name(), coll)
		}
		return nil, fmt.Errorf("%w for %s.%s part %s", ErrNoManifest, db.Name(), coll, p)
	}
	if err != nil {
		return nil, fmt.Errorf("run manifest of %s.%s: %w", db.Name(), key, err)
	}
	fill(&m)
	return &m, nil
}

// fill sets Collection of a manifest saved before manifests named it
// apart from their _id.
func fill(m *seed.Manifest) {
	if m.Collection == "" {
		m.Collection = m.Key
	}
}

// ReadManifests is every run manifest of db, none when it has none.
func ReadManifests(ctx context.Context, db *mongo.Database) ([]*seed.Manifest, error) {
	cur, err := db.Collection(ManifestCollection).Find(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("run manifests of %s: %w", db.Name(), err)
	}
	var all []*seed.Manifest
	if err := cur.All(ctx, &all); err != nil {
		return nil, fmt.Errorf("run manifests of %s: %w", db.Name(), err)
	}
	for _, m := range all {
		fill(m)
	}
	return all, nil
}

// LatestRun reads the manifests of the run of db that started last, in
// the order of its plan (the parts of a collection in part order); an
// error wraps ErrNoManifest when db has none.
func LatestRun(ctx context.Context, db *mongo.Database) ([]*seed.Manifest, error) {
	all, err := ReadManifests(ctx, db)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%w in database %s", ErrNoManifest, db.Name())
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Part.I < all[j].Part.I })
	last := all[0]
	for _, m := range all[1:] {
		if m.Started.After(last.Started) {
			last = m
		}
	}
	var out []*seed.Manifest
	for _, s := range last.Specs {
		for _, m := range all {
			if m.Run == last.Run && m.Collection == s.Name {
				out = append(out, m)
			}
		}
	}
	return out, nil
}
