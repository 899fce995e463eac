package infer

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/rules"
)

// maxProbe bounds the distinct values of a field looked up in another
// collection to find a reference.
const maxProbe = 1000

// maxRefCounts bounds the distinct values of a field counted for the skew
// of a reference (how many documents refer to each) and for how its values
// repeat (Distance.Repeats).
const maxRefCounts = 1 << 15

// refCounts counts how often each value occurs in one field, for a part of
// them chosen by hash (sampledCounts), keeping each counted value for the
// lookups (val); oids counts the ObjectIDs among them.
type refCounts struct {
	*sampledCounts[rules.IDKey]
	val  map[rules.IDKey]bson.RawValue
	oids int64
}

func newRefCounts() *refCounts {
	c := &refCounts{sampledCounts: newSampledCounts(keyHash), val: map[rules.IDKey]bson.RawValue{}}
	c.drop = func(k rules.IDKey) { delete(c.val, k) }
	return c
}

func (c *refCounts) add(v bson.RawValue) {
	k := rules.KeyOf(v)
	if !c.counts(k) {
		return
	}
	if v.Type == bson.TypeObjectID {
		c.oids++
	}
	if _, ok := c.n[k]; !ok {
		c.val[k] = bson.RawValue{Type: v.Type, Value: bytes.Clone(v.Value)}
	}
	c.sampledCounts.add(k)
}

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
		// References are counted over every document the read passes:
		// the whole collection where the sample is drawn in one pass, so
		// how many documents refer to each target is exact, not scaled up
		// from the sample.
		var probed int64
		read, total, all, err := fixtures.ReadSampleSeeing(ctx, coll, sample, rng, p.Add, func(doc bson.Raw) {
			p.probe(doc)
			probed++
		})
		p.probed, p.probedAll = probed, all
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

// probe counts the values that can be _ids of each top-level field and
// array of them (refCounts): candidates for references (refType).
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
			if !refType(x) {
				continue
			}
			rc := p.refCounts[e.Key()]
			if rc == nil {
				rc = newRefCounts()
				p.refCounts[e.Key()] = rc
			}
			rc.add(x)
		}
	}
}

func keyHash(k rules.IDKey) uint64 {
	return mix(binary.LittleEndian.Uint64(k[:8]) ^ mix(binary.LittleEndian.Uint64(k[8:])))
}

// refType reports whether v can be taken for the _id of another
// collection: an ObjectID, an integer, a string or a UUID.
func refType(v bson.RawValue) bool {
	switch v.Type {
	case bson.TypeObjectID, bson.TypeInt32, bson.TypeInt64, bson.TypeString:
		return true
	case bson.TypeBinary:
		st, _, ok := v.BinaryOK()
		return ok && st == bson.TypeBinaryUUID
	}
	return false
}

// namesTarget reports whether field, by its name, refers to collection
// target: the name without an id suffix ("userId", "user_id", "userIds",
// "users") is the target's name or its singular. A field of integers or
// strings is a reference only so: a count or a code of small integers is
// found among any collection's integer _ids.
func namesTarget(field, target string) bool {
	f, t := strings.ToLower(field), strings.ToLower(target)
	for _, suf := range []string{"_ids", "ids", "_id", "id"} {
		if len(f) > len(suf) && strings.HasSuffix(f, suf) {
			f = strings.TrimSuffix(f, suf)
			break
		}
	}
	f = strings.TrimRight(f, "_")
	single := func(s string) string {
		if strings.HasSuffix(s, "s") && len(s) > 1 {
			return s[:len(s)-1]
		}
		return s
	}
	return f != "" && (f == t || single(f) == single(t))
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
		ps := newProbeSet(rc)
		best, share, distinct := "", 0.0, 0.0
		oids := rc.oids*2 > ps.refs
		for _, q := range all {
			if q == p || (!oids && !namesTarget(f.Path, q.Collection)) {
				continue
			}
			found, err := foundIDs(ctx, db.Collection(q.Collection), ps.probe, rc.val)
			if err != nil {
				return fmt.Errorf("looking %s.%s up in %s: %w", p.Collection, f.Path, q.Collection, err)
			}
			if s, d := ps.resolved(rc, found); s > share {
				best, share, distinct = q.Collection, s, d
			}
		}
		if share >= 0.5 {
			r := Ref{Field: f.Path, To: best, Resolved: share, Array: f.Types[TypeArray]*2 > f.Present}
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

// probeSet is the values of a field looked up in another collection: the
// maxProbe/4 most frequent (heavy) and, of the others, those of smallest
// hash, up to maxProbe in all.
type probeSet struct {
	probe              []rules.IDKey
	heavy              map[rules.IDKey]bool
	distinct, rest     int   // distinct values counted; of them not heavy
	refs, restRefs     int64 // occurrences of the values counted; of those not heavy
	probedRest         int64 // occurrences of the probed values not heavy
	probedRestDistinct int
}

func newProbeSet(rc *refCounts) *probeSet {
	vals := make([]rules.IDKey, 0, len(rc.n))
	ps := &probeSet{heavy: map[rules.IDKey]bool{}}
	for id, n := range rc.n {
		vals = append(vals, id)
		ps.refs += n
	}
	slices.SortFunc(vals, func(a, b rules.IDKey) int {
		return cmp.Or(cmp.Compare(rc.n[b], rc.n[a]), cmp.Compare(keyHash(a), keyHash(b)))
	})
	heavy := vals[:min(len(vals), maxProbe/4)]
	rest := slices.Clone(vals[len(heavy):])
	slices.SortFunc(rest, func(a, b rules.IDKey) int { return cmp.Compare(keyHash(a), keyHash(b)) })
	ps.restRefs = ps.refs
	for _, v := range heavy {
		ps.heavy[v] = true
		ps.restRefs -= rc.n[v]
	}
	ps.probe = append(slices.Clone(heavy), rest[:min(len(rest), maxProbe-len(heavy))]...)
	for _, v := range ps.probe[len(heavy):] {
		ps.probedRest += rc.n[v]
	}
	ps.distinct, ps.rest, ps.probedRestDistinct = len(vals), len(rest), len(ps.probe)-len(heavy)
	return ps
}

// resolved is, of the values found among a collection's _ids, the share of
// the field's occurrences that resolve and the share of its distinct
// values that do: the heavy ones exactly, the others as their probe.
func (ps *probeSet) resolved(rc *refCounts, found []rules.IDKey) (share, distinct float64) {
	var heavyFound, restFound, heavyN, restN float64
	for _, id := range found {
		if ps.heavy[id] {
			heavyFound += float64(rc.n[id])
			heavyN++
		} else {
			restFound += float64(rc.n[id])
			restN++
		}
	}
	s, d := heavyFound, heavyN
	if ps.probedRest > 0 {
		s += float64(ps.restRefs) * restFound / float64(ps.probedRest)
		d += float64(ps.rest) * restN / float64(ps.probedRestDistinct)
	}
	return s / float64(ps.refs), d / float64(ps.distinct)
}

// foundIDs are those of ids (keys of the values val) that are _ids of coll.
func foundIDs(ctx context.Context, coll *mongo.Collection, ids []rules.IDKey, val map[rules.IDKey]bson.RawValue) ([]rules.IDKey, error) {
	in := make(bson.A, len(ids))
	for i, k := range ids {
		in[i] = val[k]
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: in}}}},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, err
	}
	defer func() { _ = cur.Close(ctx) }()
	var out []rules.IDKey
	for cur.Next(ctx) {
		out = append(out, rules.KeyOf(cur.Current.Lookup("_id")))
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
	scale := float64(max(p.Total, p.probed)) / float64(max(p.probed, 1))
	if p.probedAll {
		scale = 1
	}
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
