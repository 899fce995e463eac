package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// compileFill is $fill: in each partition (partitionBy), in sortBy order,
// the output fields that are null or missing get a value: {value: expr}
// (evaluated on the document), {method: "locf"} (the last value seen) or
// {method: "linear"} (interpolated between the values around it, by the
// position of the single numeric sortBy field).
func compileFill(arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	d, err := needDoc("$fill", arg)
	if err != nil {
		return nil, err
	}
	ps, err := compilePartitionSpec("$fill", d, env)
	if err != nil {
		return nil, err
	}
	sortBy := ps.sort
	ov, err := d.LookupErr("output")
	if err != nil || ov.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$fill requires 'output' to be an object")
	}
	type fillOut struct {
		field, method string
		value         *expr
	}
	var outs []fillOut
	for _, el := range elements(bsoncore.Document(ov.Data)) {
		f := fillOut{field: el.Key()}
		if el.Value().Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.FailedToParse, "$fill: output field '%s' must be an object", el.Key())
		}
		od := bsoncore.Document(el.Value().Data)
		if v, err := od.LookupErr("value"); err == nil {
			if f.value, err = compileExpr(v, env.vars); err != nil {
				return nil, err
			}
		} else if m, err := od.LookupErr("method"); err == nil && m.Type == bsoncore.TypeString && (m.StringValue() == "locf" || m.StringValue() == "linear") {
			f.method = m.StringValue()
			if f.method == "linear" && (sortBy == nil || len(sortBy.keys) != 1) {
				return nil, mongoerr.New(mongoerr.Location(6050201), "$fill with method 'linear' requires a sortBy of one field")
			}
		} else {
			return nil, mongoerr.New(mongoerr.FailedToParse, "$fill: output field '%s' needs 'value' or a 'method' of \"locf\" or \"linear\"", el.Key())
		}
		outs = append(outs, f)
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		// partitions in order of first appearance; documents in sortBy order
		parts, err := ps.split(in)
		if err != nil {
			return nil, err
		}
		out := make([]bsoncore.Document, 0, len(in))
		for _, p := range parts {
			docs := p.docs
			filled := make([]map[string]bsoncore.Value, len(docs))
			for i := range filled {
				filled[i] = map[string]bsoncore.Value{}
			}
			for _, f := range outs {
				vals := make([]bsoncore.Value, len(docs))
				for i, doc := range docs {
					vals[i] = lookup(doc, f.field)
				}
				for i, doc := range docs {
					if !nullish(vals[i]) {
						continue
					}
					switch {
					case f.value != nil:
						v, err := f.value.eval(doc, nil)
						if err != nil {
							return nil, err
						}
						filled[i][f.field] = nullIfMissing(v)
					case f.method == "locf":
						for j := i - 1; j >= 0; j-- {
							if !nullish(vals[j]) {
								filled[i][f.field] = vals[j]
								break
							}
						}
					default: // linear
						lo, hi := i-1, i+1
						for lo >= 0 && nullish(vals[lo]) {
							lo--
						}
						for hi < len(docs) && nullish(vals[hi]) {
							hi++
						}
						if lo < 0 || hi >= len(docs) || !isNumber(vals[lo]) || !isNumber(vals[hi]) {
							continue
						}
						path := sortBy.keys[0].path
						x0, x1, x := lookup(docs[lo], path), lookup(docs[hi], path), lookup(doc, path)
						if !isNumber(x0) || !isNumber(x1) || !isNumber(x) || numberFloat(x1) == numberFloat(x0) {
							continue
						}
						y0, y1 := numberFloat(vals[lo]), numberFloat(vals[hi])
						t := (numberFloat(x) - numberFloat(x0)) / (numberFloat(x1) - numberFloat(x0))
						filled[i][f.field] = vDouble(y0 + t*(y1-y0))
					}
				}
			}
			for i, doc := range docs {
				if len(filled[i]) == 0 {
					out = append(out, doc)
					continue
				}
				md := toMDoc(doc)
				for _, f := range outs {
					if v, ok := filled[i][f.field]; ok {
						setMPath(md, f.field, toM(v))
					}
				}
				out = append(out, md.build())
			}
		}
		return out, nil
	}, nil
}
