package mongowrite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/parts"
)

// ManifestCollection is the collection of a target database that holds the
// run manifests: one document per written collection, whose _id is the
// collection's name, or per written part of a collection ([parts.Part]),
// whose _id is "NAME#part-0003-of-0016": parts written at once by separate
// processes each replace only their own.
const ManifestCollection = "oidkit_runs"

// ManifestEvery bounds how often InsertKeeping saves a manifest while
// batches are acknowledged: often enough that a resumed run redoes little,
// rarely enough that saving costs nothing next to inserting.
const ManifestEvery = 200 * time.Millisecond

// AfterStop bounds what a write still asks the server after it stopped
// (interrupted, timed out): a manifest's final state, a count.
const AfterStop = 5 * time.Second

// InsertKeeping inserts into coll the documents of col that m does not
// list as acknowledged (Insert of m.Missing()), keeping m: saved into db as
// running first, as batches are acknowledged (at most every
// ManifestEvery), and in its final state, done or failed with the error,
// also after an interruption. An interruption stops generation, not the
// batches already sent: they are finished, so what m lists is what is
// stored. With save false, m is kept in memory only. The result counts
// what m listed before as skipped.
func InsertKeeping(ctx context.Context, db *mongo.Database, coll *mongo.Collection, col Source, m *Manifest, opts InsertOptions, save bool) (InsertResult, error) {
	store := func(ctx context.Context) error {
		if !save {
			return nil
		}
		return SaveManifest(ctx, db, m)
	}
	m.State, m.Error = StateRunning, ""
	if err := store(ctx); err != nil {
		return InsertResult{}, err
	}
	prior, saved := m.AckedCount, time.Now()
	opts.Ranges = m.Missing()
	saving := true
	opts.Acked = func(r parts.Range) {
		m.Ack(r)
		if saving && time.Since(saved) >= ManifestEvery {
			saved = time.Now()
			// A server in trouble fails the inserts too; the run must not
			// wait on it twice, so saving stops until the final save.
			sctx, cancel := context.WithTimeout(ctx, AfterStop)
			saving = store(sctx) == nil
			cancel()
		}
	}
	check := opts.Check
	opts.Check = func(doc bson.Raw) error {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		if check == nil {
			return nil
		}
		return check(doc)
	}
	res, err := Insert(context.WithoutCancel(ctx), coll, col, opts)
	m.State = StateDone
	if err != nil {
		m.State, m.Error = StateFailed, err.Error()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), AfterStop)
	defer cancel()
	if serr := store(sctx); serr != nil && err == nil {
		err = serr
	}
	res.Skipped += prior
	res.Earlier += prior
	return res, err
}

// The states of a run manifest.
const (
	StateRunning = "running"
	StateDone    = "done"
	StateFailed  = "failed"
)

// Manifest is what a run wrote into one collection, stored with the data
// in ManifestCollection: the plan of the run as its maker keeps it (Plan:
// for a seed run a seed.PlanRecord, enough to rebuild every document),
// which document ranges the server acknowledged, and the state of the run.
// Resuming and verifying read it instead of flags.
type Manifest struct {
	// Key is the document's _id: Collection, with "#" and Part.Suffix()
	// for a part (ManifestKey). SaveManifest sets it.
	Key        string `bson:"_id"`
	Collection string `bson:"collection"`
	// Part is the part of the collection the run writes; the zero Part
	// (left out of the document) is the whole collection.
	Part parts.Part `bson:"part,omitempty"`
	// Run is shared by the collections written by one run.
	Run string `bson:"run"`
	// Plan is the run's plan, a document whose fields are stored among
	// the manifest's own, after Run (MarshalBSON): the writer keeps it
	// and never reads it.
	Plan bson.Raw `bson:"-"`
	// Count is the collection's, also for a part: Scope is the part's.
	Count int64 `bson:"count"`
	// Acked is the merged, sorted ranges of documents the server
	// acknowledged; AckedCount their total.
	Acked      []parts.Range `bson:"acked"`
	AckedCount int64         `bson:"ackedCount"`
	State      string        `bson:"state"`
	Error      string        `bson:"error,omitempty"`
	Started    time.Time     `bson:"started"`
	Updated    time.Time     `bson:"updated"`
}

// NewManifest is the manifest of ds's run writing s, in state running
// with nothing acknowledged.
func NewManifest(ds *Dataset, s Source) *Manifest {
	m := &Manifest{
		Collection: s.Name(), Run: ds.Run, Plan: ds.Plan,
		Count: s.Len(), Acked: []parts.Range{}, State: StateRunning,
		Started: time.Now().UTC().Truncate(time.Millisecond),
	}
	m.Updated = m.Started
	return m
}

// Scope is the documents the run writes: its part of [0, Count).
func (m *Manifest) Scope() parts.Range { return m.Part.Range(m.Count) }

// Done reports whether every document of the scope was acknowledged.
func (m *Manifest) Done() bool { return len(m.Missing()) == 0 }

// Ack records that the server acknowledged the documents of r.
func (m *Manifest) Ack(r parts.Range) {
	m.Acked = parts.Merge(append(m.Acked, r))
	m.AckedCount = 0
	for _, a := range m.Acked {
		m.AckedCount += a.Len()
	}
}

// Acknowledged reports whether every document of r was acknowledged.
func (m *Manifest) Acknowledged(r parts.Range) bool {
	for _, a := range m.Acked {
		if a.From <= r.From && r.To <= a.To {
			return true
		}
	}
	return r.Len() == 0
}

// Missing is the ranges of the scope not acknowledged, in order; empty
// (not nil) when every document was.
func (m *Manifest) Missing() []parts.Range {
	scope := m.Scope()
	out := []parts.Range{}
	next := scope.From
	for _, a := range m.Acked {
		if a.From > next {
			if r := (parts.Range{From: next, To: min(a.From, scope.To)}); r.Len() > 0 {
				out = append(out, r)
			}
		}
		next = max(next, a.To)
	}
	if next < scope.To {
		out = append(out, parts.Range{From: next, To: scope.To})
	}
	return out
}

// ErrNoManifest is returned by ReadManifest for a collection without one.
var ErrNoManifest = errors.New("no run manifest")

// ManifestKey is the _id of the manifest of part p of collection coll.
func ManifestKey(coll string, p parts.Part) string {
	if p.Whole() {
		return coll
	}
	return coll + "#" + p.Suffix()
}

// SaveManifest writes m into its database's ManifestCollection, replacing
// the collection's (or the part's) earlier one; it sets m's Key and
// Updated.
func SaveManifest(ctx context.Context, db *mongo.Database, m *Manifest) error {
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
		return fmt.Errorf("run manifest of %s: %w", where(db.Name(), m.Collection, m.Part), err)
	}
	return nil
}

// ReadManifest reads the manifest of collection coll of db; an error wraps
// ErrNoManifest when there is none.
func ReadManifest(ctx context.Context, db *mongo.Database, coll string) (*Manifest, error) {
	return ReadPartManifest(ctx, db, coll, parts.Part{})
}

// ReadPartManifest reads the manifest of part p of collection coll of db
// (the whole collection's for the zero Part); an error wraps ErrNoManifest
// when there is none.
func ReadPartManifest(ctx context.Context, db *mongo.Database, coll string, p parts.Part) (*Manifest, error) {
	var m Manifest
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
func fill(m *Manifest) {
	if m.Collection == "" {
		m.Collection = m.Key
	}
}

// ReadManifests is every run manifest of db, none when it has none.
func ReadManifests(ctx context.Context, db *mongo.Database) ([]*Manifest, error) {
	cur, err := db.Collection(ManifestCollection).Find(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("run manifests of %s: %w", db.Name(), err)
	}
	var all []*Manifest
	if err := cur.All(ctx, &all); err != nil {
		return nil, fmt.Errorf("run manifests of %s: %w", db.Name(), err)
	}
	for _, m := range all {
		fill(m)
	}
	return all, nil
}
