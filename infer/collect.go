package infer

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/fixtures"
)

// maxProbe bounds the distinct values of a field looked up in another
// collection to find a reference.
const maxProbe = 1000

// maxRefCounts bounds the distinct values of a field counted for the skew
// of a reference (how many documents refer to each) and for how its values
// repeat (Distance.Repeats).
const maxRefCounts = 1 << 15

// refCounts counts how often each ObjectID occurs in one field, for a part
// of them chosen by hash (sampledCounts).
type refCounts = sampledCounts[bson.ObjectID]

func newRefCounts() *refCounts { return newSampledCounts(oidHash) }

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
		p.refCounts = map[string]*refCounts{}
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
		p.refCounts = nil
	}
	return out, nil
}

// probe counts the ObjectID values of each top-level field and array of
// them (refCounts): candidates for references.
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
			rc := p.refCounts[e.Key()]
			if rc == nil {
				rc = newRefCounts()
				p.refCounts[e.Key()] = rc
			}
			rc.add(x.ObjectID())
		}
	}
}

func oidHash(id bson.ObjectID) uint64 {
	return mix(binary.LittleEndian.Uint64(id[:8]) ^ uint64(binary.LittleEndian.Uint32(id[8:]))<<17)
}

// findRefs looks up to maxProbe of each candidate field's values among the
// _ids of the other profiled collections: the maxProbe/4 most frequent,
// and of the others those of smallest hash (a choice that does not follow
// how often a value occurs). One where most of the field's values are
// found is a reference; its share resolved counts each value as often as
// it occurs, the frequent ones exactly, the others as their probe.
func (p *Profile) findRefs(ctx context.Context, db *mongo.Database, all []*Profile) error {
	for _, f := range p.Fields {
		rc := p.refCounts[f.Path]
		if rc == nil || len(rc.n) == 0 {
			continue
		}
		vals := make([]bson.ObjectID, 0, len(rc.n))
		var refs int64
		for id, n := range rc.n {
			vals = append(vals, id)
			refs += n
		}
		slices.SortFunc(vals, func(a, b bson.ObjectID) int {
			return cmp.Or(cmp.Compare(rc.n[b], rc.n[a]), cmp.Compare(oidHash(a), oidHash(b)))
		})
		heavy := vals[:min(len(vals), maxProbe/4)]
		rest := slices.Clone(vals[len(heavy):])
		slices.SortFunc(rest, func(a, b bson.ObjectID) int { return cmp.Compare(oidHash(a), oidHash(b)) })
		var heavyRefs, restRefs, probedRest int64
		for _, v := range heavy {
			heavyRefs += rc.n[v]
		}
		restRefs = refs - heavyRefs
		probe := append(slices.Clone(heavy), rest[:min(len(rest), maxProbe-len(heavy))]...)
		isHeavy := map[bson.ObjectID]bool{}
		for _, v := range heavy {
			isHeavy[v] = true
		}
		for _, v := range probe[len(heavy):] {
			probedRest += rc.n[v]
		}
		best, share, distinct := "", 0.0, 0.0
		for _, q := range all {
			if q == p {
				continue
			}
			found, err := foundIDs(ctx, db.Collection(q.Collection), probe)
			if err != nil {
				return fmt.Errorf("looking %s.%s up in %s: %w", p.Collection, f.Path, q.Collection, err)
			}
			var heavyFound, restFound, heavyN, restN float64
			for _, id := range found {
				if isHeavy[id] {
					heavyFound += float64(rc.n[id])
					heavyN++
				} else {
					restFound += float64(rc.n[id])
					restN++
				}
			}
			s, d := heavyFound, heavyN
			if probedRest > 0 {
				s += float64(restRefs) * restFound / float64(probedRest)
				d += float64(len(rest)) * restN / float64(len(probe)-len(heavy))
			}
			if s /= float64(refs); s > share {
				best, share, distinct = q.Collection, s, d/float64(len(vals))
			}
		}
		if share >= 0.5 {
			r := Ref{Field: f.Path, To: best, Resolved: share, Array: f.Types[TypeArray] > f.Types[TypeObjectID]}
			for _, q := range all {
				if q.Collection == best {
					r.perTarget = p.perTarget(f.Path, q.Total, distinct)
				}
			}
			p.Refs = append(p.Refs, r)
		}
	}
	return nil
}

// foundIDs are those of ids that are _ids of coll.
func foundIDs(ctx context.Context, coll *mongo.Collection, ids []bson.ObjectID) ([]bson.ObjectID, error) {
	cur, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, err
	}
	defer func() { _ = cur.Close(ctx) }()
	var out []bson.ObjectID
	for cur.Next(ctx) {
		if id, ok := cur.Current.Lookup("_id").ObjectIDOK(); ok {
			out = append(out, id)
		}
	}
	return out, cur.Err()
}

// perTarget is how many documents of p refer to each document of a target
// collection of targets documents through field, as the mean of each of up
// to quantilePoints equal parts of the targets by that number, ascending,
// each part of at least MinCount targets: a Lorenz curve in steps, that
// keeps the share of the references each part receives. It is estimated on
// the targets counted (refCounts), their share distinct resolved taken as
// resolving, the other targets of the part of the values counted at 0, and
// scaled from the sample to the collection.
func (p *Profile) perTarget(field string, targets int64, distinct float64) []float64 {
	rc := p.refCounts[field]
	if rc == nil || len(rc.n) == 0 || p.Sampled == 0 {
		return nil
	}
	scale := float64(max(p.Total, p.Sampled)) / float64(p.Sampled)
	counts := make([]float64, 0, len(rc.n))
	for _, n := range rc.n {
		counts = append(counts, float64(n)*scale)
	}
	slices.Sort(counts)
	// Only the share that resolves refers to a target: keep the largest.
	counts = counts[len(counts)-int(math.Round(float64(len(counts))*distinct)):]
	inPart := float64(targets) / math.Pow(2, float64(rc.bits))
	zeros := max(int(math.Round(inPart))-len(counts), 0)
	all := zeros + len(counts)
	parts := min(quantilePoints, all/p.MinCount)
	if parts < 1 {
		return nil
	}
	out := make([]float64, parts)
	for j := range parts {
		lo, hi := j*all/parts, (j+1)*all/parts
		sum := 0.0
		for x := max(lo, zeros); x < hi; x++ {
			sum += counts[x-zeros]
		}
		out[j] = math.Round(sum/float64(hi-lo)*1e3) / 1e3
	}
	return out
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
