package infer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/fixtures"
)

// maxProbe bounds the distinct values of a field looked up in another
// collection to find a reference.
const maxProbe = 200

// InputError is a collection that cannot be profiled: it does not exist,
// it is empty, or the sample size is not positive.
type InputError struct {
	Collection string
	Sample     int64
	Reason     string
}

func (e *InputError) Error() string {
	if e.Collection == "" {
		return fmt.Sprintf("sample %d: %s", e.Sample, e.Reason)
	}
	return fmt.Sprintf("collection %q: %s", e.Collection, e.Reason)
}

// ErrInput is matched (errors.Is) by every *InputError.
var ErrInput = errors.New("nothing to profile")

// Is makes errors.Is(err, ErrInput) true.
func (e *InputError) Is(target error) bool { return target == ErrInput }

// Collect profiles a random sample of up to sample documents of each named
// collection of db (fixtures.ReadSample: $sample where the server has it),
// finds references between them by looking sampled values up among the
// other collections' _ids, and reads their indexes. It only reads.
func Collect(ctx context.Context, db *mongo.Database, names []string, sample int64, opts Options) ([]*Profile, error) {
	if sample <= 0 {
		return nil, &InputError{Sample: sample, Reason: "expected a sample of at least 1 document"}
	}
	existing, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if !slices.Contains(existing, name) {
			return nil, &InputError{Collection: name, Reason: fmt.Sprintf("no such collection in database %s", db.Name())}
		}
	}
	var out []*Profile
	for _, name := range names {
		coll := db.Collection(name)
		p := NewProfile(name, opts)
		p.probes = map[string][]bson.RawValue{}
		rng := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		read, total, err := fixtures.ReadSample(ctx, coll, sample, rng, func(doc bson.Raw) error {
			if err := p.Add(doc); err != nil {
				return err
			}
			p.probe(doc)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if read == 0 {
			return nil, &InputError{Collection: name, Reason: "it has no documents: expected at least one to profile"}
		}
		p.Total = total
		if p.Indexes, err = listIndexes(ctx, coll); err != nil {
			return nil, fmt.Errorf("indexes of %s: %w", name, err)
		}
		out = append(out, p)
	}
	for _, p := range out {
		if err := p.findRefs(ctx, db, out); err != nil {
			return nil, err
		}
		p.probes = nil
	}
	return out, nil
}

// probe keeps up to maxProbe distinct ObjectID values of each top-level
// field and array of them: candidates for references.
func (p *Profile) probe(doc bson.Raw) {
	elems, _ := doc.Elements()
	for _, e := range elems {
		if e.Key() == "_id" {
			continue
		}
		v := e.Value()
		vals := []bson.RawValue{v}
		if v.Type == bson.TypeArray {
			vals, _ = v.Array().Values()
		}
		for _, x := range vals {
			if x.Type != bson.TypeObjectID {
				continue
			}
			list := p.probes[e.Key()]
			if len(list) < maxProbe && !slices.ContainsFunc(list, x.Equal) {
				p.probes[e.Key()] = append(list, bson.RawValue{Type: x.Type, Value: slices.Clone(x.Value)})
			}
		}
	}
}

// findRefs looks each candidate field's values up among the _ids of the
// other profiled collections; one where most are found is a reference.
func (p *Profile) findRefs(ctx context.Context, db *mongo.Database, all []*Profile) error {
	for _, f := range p.Fields {
		vals := p.probes[f.Path]
		if len(vals) == 0 {
			continue
		}
		best, share := "", 0.0
		for _, q := range all {
			if q == p {
				continue
			}
			in := make(bson.A, len(vals))
			for i, v := range vals {
				in[i] = v
			}
			n, err := db.Collection(q.Collection).CountDocuments(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: in}}}})
			if err != nil {
				return fmt.Errorf("looking %s.%s up in %s: %w", p.Collection, f.Path, q.Collection, err)
			}
			if s := float64(n) / float64(len(vals)); s > share {
				best, share = q.Collection, s
			}
		}
		if share >= 0.5 {
			p.Refs = append(p.Refs, Ref{Field: f.Path, To: best, Resolved: share, Array: f.Types[TypeArray] > f.Types[TypeObjectID]})
		}
	}
	return nil
}

// listIndexes reads the index documents of coll.
func listIndexes(ctx context.Context, coll *mongo.Collection) ([]bson.D, error) {
	cur, err := coll.Indexes().List(ctx)
	if err != nil {
		return nil, err
	}
	var out []bson.D
	if err := cur.All(ctx, &out); err != nil {
		return nil, err
	}
	return out, nil
}
