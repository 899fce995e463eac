package pipeline

import (
	"math"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// buckets is what $bucket and $bucketAuto share: groupBy, and the $group
// of the documents by the bucket each is put in, with the stage's output
// accumulators (a count by default).
type buckets struct {
	by    *expr.Expr
	group Stage
}

func compileBuckets(stageName string, d bsoncore.Document, env *Env) (*buckets, error) {
	gb, err := d.LookupErr("groupBy")
	if err != nil {
		return nil, mongoerr.New(mongoerr.Location(40198), "%s requires 'groupBy' to be specified", stageName)
	}
	// the codes MongoDB gives $bucket's and $bucketAuto's groupBy and output
	codes := map[string][2]int32{"$bucket": {40202, 40196}, "$bucketAuto": {40239, 40244}}[stageName]
	if !(gb.Type == bsoncore.TypeEmbeddedDocument || gb.Type == bsoncore.TypeString && strings.HasPrefix(gb.StringValue(), "$")) {
		return nil, mongoerr.New(mongoerr.Location(codes[0]), "The %s 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: %s", stageName, bsonval.Shell(gb))
	}
	by, err := expr.Compile(gb, env.Vars)
	if err != nil {
		return nil, err
	}
	outSpec := bsoncore.NewDocumentBuilder().AppendDocument("count", bsoncore.NewDocumentBuilder().AppendInt32("$sum", 1).Build()).Build()
	if ov, err := d.LookupErr("output"); err == nil {
		if ov.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.Location(codes[1]), "The %s 'output' field must be an object, but found type: %s", stageName, bsonval.TypeName(ov.Type))
		}
		outSpec = bsoncore.Document(ov.Data)
	}
	gspec := bsoncore.NewDocumentBuilder().AppendString("_id", "$__bucket")
	for _, el := range bsonval.Elements(outSpec) {
		gspec.AppendValue(el.Key(), el.Value())
	}
	g, err := compileGroup(bsonval.Doc(gspec.Build()), env)
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
		md := bsonval.MutableDoc(doc)
		md.Set("__bucket", bsonval.Mutable(ids[i]))
		tagged[i] = md.Build()
	}
	out, err := b.group(tagged)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		return bsonval.Compare(bsonval.Lookup(out[i], "_id"), bsonval.Lookup(out[j], "_id")) < 0
	})
	return out, nil
}

// compileBucket is $bucket: each document in the bucket of boundaries
// [b[i], b[i+1]) its groupBy value falls in, or in default.
func compileBucket(arg bsoncore.Value, env *Env) (Stage, error) {
	d, err := needDoc("$bucket", arg)
	if err != nil {
		return nil, err
	}
	bv, err := d.LookupErr("boundaries")
	if err != nil || len(bsonval.ArrayValues(bv)) < 2 {
		return nil, mongoerr.New(mongoerr.Location(40192), "The $bucket 'boundaries' field must have at least 2 values")
	}
	bounds := bsonval.ArrayValues(bv)
	def, hasDef := d.LookupErr("default")
	bk, err := compileBuckets("$bucket", d, env)
	if err != nil {
		return nil, err
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		ids := make([]bsoncore.Value, len(in))
		for k, doc := range in {
			v, err := bk.by.Eval(doc, nil)
			if err != nil {
				return nil, err
			}
			for i := 0; i+1 < len(bounds); i++ {
				if bsonval.Compare(v, bounds[i]) >= 0 && bsonval.Compare(v, bounds[i+1]) < 0 {
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
// cut into buckets of round(n/buckets) documents (the last bucket takes
// the rest), documents with the same groupBy value always in one bucket;
// each is {_id: {min, max}, ...output} (count by default), max being the
// next bucket's min, or the last value for the last bucket. With a
// granularity, every max is rounded up to the series (taking in the
// documents below it) and the first min down, each min being the bucket
// before's max; groupBy values must then be non-negative numbers.
func compileBucketAuto(arg bsoncore.Value, env *Env) (Stage, error) {
	d, err := needDoc("$bucketAuto", arg)
	if err != nil {
		return nil, err
	}
	for _, el := range bsonval.Elements(d) {
		switch el.Key() {
		case "groupBy", "buckets", "output", "granularity":
		default:
			return nil, mongoerr.New(mongoerr.Location(40245), "Unrecognized option to $bucketAuto: %s.", el.Key())
		}
	}
	nb, round, err := bucketAutoOptions(d)
	if err != nil {
		return nil, err
	}
	bk, err := compileBuckets("$bucketAuto", d, env)
	if err != nil {
		return nil, err
	}
	a := &autoBuckets{bk: bk, nb: nb, round: round}
	return a.run, nil
}

// bucketAutoOptions reads $bucketAuto's buckets and granularity (nil
// without one).
func bucketAutoOptions(d bsoncore.Document) (int64, rounder, error) {
	bv, err := d.LookupErr("buckets")
	if _, errG := d.LookupErr("groupBy"); err != nil || errG != nil {
		return 0, nil, mongoerr.New(mongoerr.Location(40246), "$bucketAuto requires 'groupBy' and 'buckets' to be specified")
	}
	if !bsonval.IsNumber(bv) {
		return 0, nil, mongoerr.New(mongoerr.Location(40241), "The $bucketAuto 'buckets' field must be a numeric value, but found type: %s", bsonval.TypeName(bv.Type))
	}
	nb, ok := wholeNumber(bv)
	if !ok || nb != int64(int32(nb)) {
		return 0, nil, mongoerr.New(mongoerr.Location(40242), "The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found %s", bsonval.Shell(bv))
	}
	if nb <= 0 {
		return 0, nil, mongoerr.New(mongoerr.Location(40243), "The $bucketAuto 'buckets' field must be greater than 0, but found: %d", nb)
	}
	var round rounder
	if gv, err := d.LookupErr("granularity"); err == nil {
		if gv.Type != bsoncore.TypeString {
			return 0, nil, mongoerr.New(mongoerr.Location(40261), "The $bucketAuto 'granularity' field must be a string, but found type: %s", bsonval.TypeName(gv.Type))
		}
		if round, ok = granularityRounder(gv.StringValue()); !ok {
			return 0, nil, mongoerr.New(mongoerr.Location(40257), "Rounding granularity not recognized: %s", gv.StringValue())
		}
	}
	return nb, round, nil
}

// autoBuckets is a compiled $bucketAuto: nb buckets, rounded by round
// when it has a granularity.
type autoBuckets struct {
	bk    *buckets
	nb    int64
	round rounder
}

// keyedDoc is a document and its groupBy value.
type keyedDoc struct {
	v   bsoncore.Value
	doc bsoncore.Document
}

// autoBounds is the min and max of one bucket of $bucketAuto.
type autoBounds struct{ min, max bsoncore.Value }

func (a *autoBuckets) run(in []bsoncore.Document) ([]bsoncore.Document, error) {
	ks, err := a.keyed(in)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(ks, func(i, j int) bool { return bsonval.Compare(ks[i].v, ks[j].v) < 0 })
	bs, ids, err := a.cut(ks)
	if err != nil {
		return nil, err
	}
	docs := make([]bsoncore.Document, len(ks))
	for i, k := range ks {
		docs[i] = k.doc
	}
	out, err := a.bk.run(docs, ids)
	if err != nil {
		return nil, err
	}
	for k, doc := range out {
		b := bs[bsonval.Lookup(doc, "_id").Int32()]
		md := bsonval.MutableDoc(doc)
		md.Set("_id", bsonval.Mutable(bsonval.Doc(bsoncore.NewDocumentBuilder().AppendValue("min", b.min).AppendValue("max", b.max).Build())))
		out[k] = md.Build()
	}
	return out, nil
}

// keyed is the documents of in with their groupBy values, which must be
// non-negative numbers with a granularity.
func (a *autoBuckets) keyed(in []bsoncore.Document) ([]keyedDoc, error) {
	ks := make([]keyedDoc, len(in))
	for i, doc := range in {
		v, err := a.bk.by.Eval(doc, nil)
		if err != nil {
			return nil, err
		}
		if a.round != nil {
			switch {
			case !bsonval.IsNumber(v):
				return nil, mongoerr.New(mongoerr.Location(40258), "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a value with type: %s", bsonval.TypeName(v.Type))
			case math.IsNaN(bsonval.NumberFloat(v)):
				return nil, mongoerr.New(mongoerr.Location(40259), "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a NaN")
			case bsonval.NumberFloat(v) < 0:
				return nil, mongoerr.New(mongoerr.Location(40260), "$bucketAuto can specify a 'granularity' with non-negative numbers only, but found a negative number")
			}
		}
		ks[i] = keyedDoc{nullIfMissing(v), doc}
	}
	return ks, nil
}

// cut cuts ks, sorted, into buckets: their bounds, and the bucket of
// each document.
func (a *autoBuckets) cut(ks []keyedDoc) ([]autoBounds, []bsoncore.Value, error) {
	var err error
	round, nb := a.round, a.nb
	size := max(1, int(math.Round(float64(len(ks))/float64(nb))))
	var bs []autoBounds
	ids := make([]bsoncore.Value, 0, len(ks))
	for i := 0; i < len(ks); {
		b := autoBounds{min: ks[i].v, max: ks[i].v}
		if round != nil {
			if len(bs) > 0 {
				b.min = bs[len(bs)-1].max
			} else if b.min, err = round(ks[i].v, false); err != nil {
				return nil, nil, err
			}
		}
		last := int64(len(bs)+1) == nb
		take := func() {
			b.max = ks[i].v
			ids = append(ids, bsonval.Int32(int32(len(bs))))
			i++
		}
		for n := 0; i < len(ks) && (n < size || last); n++ {
			take()
		}
		if round != nil {
			up, err := round(b.max, true)
			if err != nil {
				return nil, nil, err
			}
			for i < len(ks) && (bsonval.Compare(up, ks[i].v) > 0 || bsonval.Compare(b.max, ks[i].v) == 0) {
				take()
			}
			b.max = up
			if bsonval.NumberFloat(up) == 0 && i < len(ks) {
				if b.max, err = round(ks[i].v, false); err != nil {
					return nil, nil, err
				}
			}
		} else {
			for i < len(ks) && bsonval.Compare(b.max, ks[i].v) == 0 {
				take()
			}
			if i < len(ks) {
				b.max = ks[i].v
			}
		}
		bs = append(bs, b)
	}
	return bs, ids, nil
}
