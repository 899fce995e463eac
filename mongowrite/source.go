package mongowrite

// What a writer writes: a collection's documents by number (Source), and
// a run's collections with the plan its manifests keep (Dataset).

import (
	"context"
	"io"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/parts"
)

// Source is a collection's documents as a writer takes them: numbered from
// 0 to Len()-1, each made on demand, the same every time it is asked for
// (a *seed.Collection is one).
type Source interface {
	// Name is the collection's.
	Name() string
	// Len is the number of documents.
	Len() int64
	// Indexes are those the collection has once written.
	Indexes() []indexes.Index
	// Raw is document i, marshalled.
	Raw(i int64) (bson.Raw, error)
	// Batches streams the documents opts selects, in order.
	Batches(ctx context.Context, opts parts.StreamOptions) parts.Batches
	// CheckShape checks what every document shares (a template's keys and
	// nesting) against check, before any is made: an error refuses them
	// all.
	CheckShape(check func(bson.Raw) error) error
}

// Dataset is what WriteDataset writes into one database: a run's
// collections, and the plan that makes them as each run manifest keeps it.
type Dataset struct {
	// DB is the database's name, as errors give it.
	DB string
	// Collections are written in this order.
	Collections []Source
	// Run names the run in its manifests: the processes of a run written
	// in parts give the same name.
	Run string
	// Plan is the run's plan as a manifest keeps it (Manifest.Plan), and
	// Seeded whether it makes the same documents again (a resume needs
	// that).
	Plan   bson.Raw
	Seeded bool
	// Same reports whether a manifest found in the database is of a run of
	// this plan: its collection is then there already (an
	// *AlreadyStoredError); nil is never.
	Same func(*Manifest) bool
}

// checkEvery makes the documents opts selects and passes each to
// opts.Check, writing nothing: a write that must not change the target
// before every document is known to be accepted (one that drops first)
// calls it before writing. It returns the first refusal as a
// *parts.DocError, or ctx's error.
func checkEvery(ctx context.Context, s Source, opts parts.StreamOptions) error {
	if opts.Check == nil {
		return nil
	}
	b := s.Batches(ctx, opts)
	defer b.Close()
	for {
		if _, err := b.Next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}
