package engine

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// buckets is what $bucket and $bucketAuto share: groupBy, and the $group
// of the documents by the bucket each is put in, with the stage's output
// accumulators (a count by default).
type buckets struct {
	by    *expr
	group stage
}

func compileBuckets(stageName string, d bsoncore.Document, env *pipelineEnv) (*buckets, error) {
	gb, err := d.LookupErr("groupBy")
	if err != nil {
		return nil, mongoerr.New(mongoerr.Location(40198), "%s requires 'groupBy' to be specified", stageName)
	}
	by, err := compileExpr(gb, env.vars)
	if err != nil {
		return nil, err
	}
	outSpec := bsoncore.NewDocumentBuilder().AppendDocument("count", bsoncore.NewDocumentBuilder().AppendInt32("$sum", 1).Build()).Build()
	if ov, err := d.LookupErr("output"); err == nil && ov.Type == bsoncore.TypeEmbeddedDocument {
		outSpec = bsoncore.Document(ov.Data)
	}
	gspec := bsoncore.NewDocumentBuilder().AppendString("_id", "$__bucket")
	for _, el := range elements(outSpec) {
		gspec.AppendValue(el.Key(), el.Value())
	}
	g, err := compileGroup(vDoc(gspec.Build()), env)
	if err != nil {
		return nil, err
	}
	return &buckets{by: by, group: g}, nil
}

// run groups docs[i] into bucket ids[i] and returns the groups in the
// order of their ids.
func (b *buckets) run(docs []bsoncore.Document, ids []bsoncore.Value) ([]bsoncore.Document, error) {
	tagged := make([]bsoncore.Document, len(docs))
	for i, doc := range docs {
		md := toMDoc(doc)
		md.set("__bucket", toM(ids[i]))
		tagged[i] = md.build()
	}
	out, err := b.group(tagged)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return compareValues(lookup(out[i], "_id"), lookup(out[j], "_id")) < 0 })
	return out, nil
}

// compileBucket is $bucket: each document in the bucket of boundaries
// [b[i], b[i+1]) its groupBy value falls in, or in default.
func compileBucket(arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	d, err := needDoc("$bucket", arg)
	if err != nil {
		return nil, err
	}
	bv, err := d.LookupErr("boundaries")
	if err != nil || len(arrayValues(bv)) < 2 {
		return nil, mongoerr.New(mongoerr.Location(40192), "The $bucket 'boundaries' field must have at least 2 values")
	}
	bounds := arrayValues(bv)
	def, hasDef := d.LookupErr("default")
	bk, err := compileBuckets("$bucket", d, env)
	if err != nil {
		return nil, err
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		ids := make([]bsoncore.Value, len(in))
		for k, doc := range in {
			v, err := bk.by.eval(doc, nil)
			if err != nil {
				return nil, err
			}
			for i := 0; i+1 < len(bounds); i++ {
				if compareValues(v, bounds[i]) >= 0 && compareValues(v, bounds[i+1]) < 0 {
					ids[k] = bounds[i]
					break
				}
			}
			if ids[k].Type == 0 {
				if hasDef != nil {
					return nil, mongoerr.New(mongoerr.Location(40066), "$bucket could not find a matching branch for an input, and no default was specified.")
				}
				ids[k] = def
			}
		}
		return bk.run(in, ids)
	}, nil
}

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
	bv, err := d.LookupErr("buckets")
	if err != nil {
		return nil, mongoerr.New(mongoerr.Location(40246), "$bucketAuto requires 'groupBy' and 'buckets' to be specified")
	}
	nb, ok := intOf(bv)
	if !ok || nb <= 0 {
		return nil, mongoerr.New(mongoerr.Location(40243), "The $bucketAuto 'buckets' field must be greater than 0, but found: %s", shell(bv))
	}
	if _, err := d.LookupErr("granularity"); err == nil {
		return nil, mongoerr.New(mongoerr.NotImplemented, "$bucketAuto with 'granularity' is not supported by oidkit's server")
	}
	bk, err := compileBuckets("$bucketAuto", d, env)
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
			v, err := bk.by.eval(doc, nil)
			if err != nil {
				return nil, err
			}
			ks[i] = keyed{nullIfMissing(v), doc}
		}
		sort.SliceStable(ks, func(i, j int) bool { return compareValues(ks[i].v, ks[j].v) < 0 })
		approx := float64(len(ks)) / float64(nb)
		var mins []bsoncore.Value
		docs := make([]bsoncore.Document, 0, len(ks))
		ids := make([]bsoncore.Value, 0, len(ks))
		for i := 0; i < len(ks); {
			b := len(mins)
			mins = append(mins, ks[i].v)
			n := 0
			for i < len(ks) && (float64(n) < approx || int64(b) == nb-1 || compareValues(ks[i].v, ks[i-1].v) == 0) {
				docs = append(docs, ks[i].doc)
				ids = append(ids, vInt32(int32(b)))
				i, n = i+1, n+1
			}
		}
		out, err := bk.run(docs, ids)
		if err != nil {
			return nil, err
		}
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
