package engine

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// compileBucketAuto is $bucketAuto: the documents sorted by groupBy and
// cut into at most buckets groups of about the same size, documents with
// the same groupBy value always in one; each group is
// {_id: {min, max}, ...output} (count by default), max being the next
// group's min, or the last value for the last group. granularity is not
// supported.
func compileBucketAuto(arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	d, err := needDoc("$bucketAuto", arg)
	if err != nil {
		return nil, err
	}
	gb, err := d.LookupErr("groupBy")
	bv, berr := d.LookupErr("buckets")
	if err != nil || berr != nil {
		return nil, mongoerr.New(mongoerr.Location(40246), "$bucketAuto requires 'groupBy' and 'buckets' to be specified")
	}
	nb, ok := intOf(bv)
	if !ok || nb <= 0 {
		return nil, mongoerr.New(mongoerr.Location(40243), "The $bucketAuto 'buckets' field must be greater than 0, but found: %s", shell(bv))
	}
	if _, err := d.LookupErr("granularity"); err == nil {
		return nil, mongoerr.New(mongoerr.NotImplemented, "$bucketAuto with 'granularity' is not supported by oidkit's server")
	}
	e, err := compileExpr(gb, env.vars)
	if err != nil {
		return nil, err
	}
	g, err := compileBucketGroup(d, env)
	if err != nil {
		return nil, err
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		type keyed struct {
			v   bsoncore.Value
			doc bsoncore.Document
		}
		ks := make([]keyed, len(in))
		for i, doc := range in {
			v, err := e.eval(doc, nil)
			if err != nil {
				return nil, err
			}
			ks[i] = keyed{nullIfMissing(v), doc}
		}
		sort.SliceStable(ks, func(i, j int) bool { return compareValues(ks[i].v, ks[j].v) < 0 })
		approx := float64(len(ks)) / float64(nb)
		var mins []bsoncore.Value
		tagged := make([]bsoncore.Document, 0, len(ks))
		for i := 0; i < len(ks); {
			b := len(mins)
			mins = append(mins, ks[i].v)
			n := 0
			for i < len(ks) && (float64(n) < approx || int64(b) == nb-1 || compareValues(ks[i].v, ks[i-1].v) == 0) {
				md := toMDoc(ks[i].doc)
				md.set("__bucket", toM(vInt32(int32(b))))
				tagged = append(tagged, md.build())
				i, n = i+1, n+1
			}
		}
		out, err := g(tagged)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(out, func(i, j int) bool {
			return compareValues(lookup(out[i], "_id"), lookup(out[j], "_id")) < 0
		})
		for k, doc := range out {
			b := int(lookup(doc, "_id").Int32())
			max := ks[len(ks)-1].v
			if b+1 < len(mins) {
				max = mins[b+1]
			}
			md := toMDoc(doc)
			md.set("_id", toM(vDoc(bsoncore.NewDocumentBuilder().AppendValue("min", mins[b]).AppendValue("max", max).Build())))
			out[k] = md.build()
		}
		return out, nil
	}, nil
}
