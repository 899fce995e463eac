package engine

import (
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// compileDensify is $densify: for field (numbers, or dates with a unit),
// a document is added, holding the field and the partitionByFields, for
// each step of range.step within range.bounds ("full": the lowest to the
// highest value of all documents; "partition": of each partition; or
// [lower, upper), upper excluded) that no document holds. Documents
// without the field pass through unchanged.
func compileDensify(arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	d, err := needDoc("$densify", arg)
	if err != nil {
		return nil, err
	}
	fv, err := d.LookupErr("field")
	if err != nil || fv.Type != bsoncore.TypeString {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$densify requires 'field' to be a string")
	}
	field := fv.StringValue()
	var partFields []string
	if pv, err := d.LookupErr("partitionByFields"); err == nil {
		for _, v := range arrayValues(pv) {
			partFields = append(partFields, toStr(v))
		}
	}
	rv, err := d.LookupErr("range")
	if err != nil || rv.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$densify requires 'range' to be an object")
	}
	rd := bsoncore.Document(rv.Data)
	stepV, err := rd.LookupErr("step")
	if err != nil || !isNumber(stepV) || numberFloat(stepV) <= 0 {
		return nil, mongoerr.New(mongoerr.Location(5733401), "the step parameter in a range statement must be a strictly positive numeric value")
	}
	step := numberFloat(stepV)
	unit := ""
	if u, err := rd.LookupErr("unit"); err == nil {
		unit = toStr(u)
	}
	bounds, _ := rd.LookupErr("bounds")
	mode := toStr(bounds)
	var lo, hi bsoncore.Value
	if bounds.Type == bsoncore.TypeArray {
		b := arrayValues(bounds)
		if len(b) != 2 {
			return nil, mongoerr.New(mongoerr.Location(5733403), "a bounding array in a range statement must have exactly two elements")
		}
		lo, hi, mode = b[0], b[1], "explicit"
	} else if mode != "full" && mode != "partition" {
		return nil, mongoerr.New(mongoerr.Location(5946802), "bounds must be \"full\", \"partition\" or an array of two values")
	}
	// next is the value one step after v; the kind of v (a date with a
	// unit, or a number) decides how.
	next := func(v bsoncore.Value) (bsoncore.Value, error) {
		if v.Type == bsoncore.TypeDateTime {
			t := time.UnixMilli(v.DateTime()).UTC()
			n := int(step)
			switch unit {
			case "millisecond":
				t = t.Add(time.Duration(n) * time.Millisecond)
			case "second":
				t = t.Add(time.Duration(n) * time.Second)
			case "minute":
				t = t.Add(time.Duration(n) * time.Minute)
			case "hour":
				t = t.Add(time.Duration(n) * time.Hour)
			case "day":
				t = t.AddDate(0, 0, n)
			case "week":
				t = t.AddDate(0, 0, 7*n)
			case "month":
				t = t.AddDate(0, n, 0)
			case "quarter":
				t = t.AddDate(0, 3*n, 0)
			case "year":
				t = t.AddDate(n, 0, 0)
			default:
				return missing, mongoerr.New(mongoerr.Location(5733410), "$densify of dates requires a unit (millisecond to year), found %q", unit)
			}
			return vDate(t.UnixMilli()), nil
		}
		if !isNumber(v) || unit != "" {
			return missing, mongoerr.New(mongoerr.Location(5733409), "$densify: the values of %q must be numbers, or dates with a unit; found %s", field, shell(v))
		}
		return arith('+', v, stepV), nil
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		var out, with []bsoncore.Document
		for _, doc := range in {
			if v := lookup(doc, field); nullish(v) {
				out = append(out, doc) // without the field: unchanged
			} else {
				with = append(with, doc)
			}
		}
		byField := func(a, b bsoncore.Document) int { return compareValues(lookup(a, field), lookup(b, field)) }
		slices.SortStableFunc(with, byField)
		// partitions, in the order they first appear
		type part struct {
			vals []bsoncore.Value // the partition fields' values
			docs []bsoncore.Document
		}
		var parts []*part
		index := map[string]*part{}
		for _, doc := range with {
			var kb []byte
			vals := make([]bsoncore.Value, len(partFields))
			for i, f := range partFields {
				vals[i] = nullIfMissing(lookup(doc, f))
				kb = appendGroupKey(append(kb, 0), vals[i])
			}
			p := index[string(kb)]
			if p == nil {
				p = &part{vals: vals}
				index[string(kb)] = p
				parts = append(parts, p)
			}
			p.docs = append(p.docs, doc)
		}
		flo, fhi := lo, hi
		if mode == "full" && len(with) > 0 {
			flo, fhi = lookup(with[0], field), lookup(with[len(with)-1], field)
		}
		for _, p := range parts {
			start, end := flo, fhi
			if mode == "partition" {
				start, end = lookup(p.docs[0], field), lookup(p.docs[len(p.docs)-1], field)
			}
			inclusive := mode != "explicit"
			k := 0
			for v, n := start, 0; ; n++ {
				if n > 1_000_000 {
					return nil, mongoerr.New(mongoerr.Location(5897900), "$densify would add more than 1,000,000 documents to one partition")
				}
				c := compareValues(v, end)
				if c > 0 || c == 0 && !inclusive {
					break
				}
				for k < len(p.docs) && compareValues(lookup(p.docs[k], field), v) < 0 {
					out = append(out, p.docs[k])
					k++
				}
				if k < len(p.docs) && compareValues(lookup(p.docs[k], field), v) == 0 {
					for k < len(p.docs) && compareValues(lookup(p.docs[k], field), v) == 0 {
						out = append(out, p.docs[k])
						k++
					}
				} else {
					md := toMDoc(bsoncore.NewDocumentBuilder().Build())
					for i, f := range partFields {
						setMPath(md, f, toM(p.vals[i]))
					}
					setMPath(md, field, toM(v))
					out = append(out, md.build())
				}
				nv, err := next(v)
				if err != nil {
					return nil, err
				}
				v = nv
			}
			out = append(out, p.docs[k:]...)
		}
		return out, nil
	}, nil
}
