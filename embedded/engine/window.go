package engine

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// compileSetWindowFields is $setWindowFields: the documents, in the order
// of partitionBy then sortBy, each given output fields computed over its
// partition: $documentNumber, $rank, $denseRank, $shift, and the
// accumulators $sum, $avg, $min, $max, $count, $push, $addToSet, $first,
// $last, $stdDevPop, $stdDevSamp over a window of documents
// ([lower, upper] with "unbounded", "current" or an offset; the whole
// partition when none is given). Range windows are refused by name.
func compileSetWindowFields(arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	d, err := needDoc("$setWindowFields", arg)
	if err != nil {
		return nil, err
	}
	ps, err := compilePartitionSpec("$setWindowFields", d, env)
	if err != nil {
		return nil, err
	}
	sortBy := ps.sort
	ov, err := d.LookupErr("output")
	if err != nil || ov.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$setWindowFields requires 'output' to be an object")
	}
	type windowOut struct {
		field, op    string
		e            *expr // the operator's argument (output for $shift)
		by           int   // $shift
		def          *expr // $shift's default
		lo, hi       int   // offsets from the current document
		loAll, hiAll bool  // unbounded
	}
	var outs []windowOut
	for _, el := range elements(bsoncore.Document(ov.Data)) {
		if el.Value().Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.FailedToParse, "$setWindowFields: output field '%s' must be an object", el.Key())
		}
		w := windowOut{field: el.Key(), loAll: true, hiAll: true}
		for _, f := range elements(bsoncore.Document(el.Value().Data)) {
			switch k := f.Key(); {
			case k == "window":
				if f.Value().Type != bsoncore.TypeEmbeddedDocument {
					return nil, mongoerr.New(mongoerr.FailedToParse, "$setWindowFields: 'window' must be an object")
				}
				wd := bsoncore.Document(f.Value().Data)
				if _, err := wd.LookupErr("range"); err == nil {
					return nil, mongoerr.New(mongoerr.NotImplemented, "$setWindowFields range windows are not supported by oidkit's server (document windows are)")
				}
				docs, err := wd.LookupErr("documents")
				if err != nil || len(arrayValues(docs)) != 2 {
					return nil, mongoerr.New(mongoerr.FailedToParse, "$setWindowFields: window.documents must be [lower, upper]")
				}
				b := arrayValues(docs)
				var ok1, ok2 bool
				w.lo, w.loAll, ok1 = windowBound(b[0])
				w.hi, w.hiAll, ok2 = windowBound(b[1])
				if !ok1 || !ok2 {
					return nil, mongoerr.New(mongoerr.FailedToParse, "$setWindowFields: a window bound must be \"unbounded\", \"current\" or an integer, found %s", shell(docs))
				}
			case strings.HasPrefix(k, "$"):
				w.op = k
				switch k {
				case "$documentNumber", "$rank", "$denseRank":
					if sortBy == nil {
						return nil, mongoerr.New(mongoerr.Location(5371602), "%s must be specified with a top level sortBy expression with exactly one element", k)
					}
				case "$shift":
					if f.Value().Type != bsoncore.TypeEmbeddedDocument {
						return nil, mongoerr.New(mongoerr.FailedToParse, "$shift requires an object")
					}
					sd := bsoncore.Document(f.Value().Data)
					out, err1 := sd.LookupErr("output")
					by, err2 := sd.LookupErr("by")
					n, ok := intOf(by)
					if err1 != nil || err2 != nil || !ok {
						return nil, mongoerr.New(mongoerr.FailedToParse, "$shift requires 'output' and an integer 'by'")
					}
					w.by = int(n)
					if w.e, err = compileExpr(out, env.vars); err != nil {
						return nil, err
					}
					if dv, err := sd.LookupErr("default"); err == nil {
						if w.def, err = compileExpr(dv, env.vars); err != nil {
							return nil, err
						}
					}
				default:
					if !accumulatorOps[k] {
						return nil, mongoerr.New(mongoerr.FailedToParse, "Unrecognized window function, %s", k)
					}
					if w.e, err = compileExpr(f.Value(), env.vars); err != nil {
						return nil, err
					}
				}
			}
		}
		if w.op == "" {
			return nil, mongoerr.New(mongoerr.FailedToParse, "$setWindowFields: output field '%s' names no window function", w.field)
		}
		outs = append(outs, w)
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		// partitions in the order of their keys, each sorted by sortBy
		parts, err := ps.split(in)
		if err != nil {
			return nil, err
		}
		slices.SortStableFunc(parts, func(a, b *partition) int { return compareValues(a.key, b.key) })
		out := make([]bsoncore.Document, 0, len(in))
		for _, p := range parts {
			docs := p.docs
			results := make([][]bsoncore.Value, len(outs))
			for j, w := range outs {
				res := make([]bsoncore.Value, len(docs))
				rank, dense := 0, 0
				for i := range docs {
					tie := i > 0 && sortBy != nil && sortBy.compare(docs[i-1], docs[i]) == 0
					if !tie {
						rank, dense = i+1, dense+1
					}
					switch w.op {
					case "$documentNumber":
						res[i] = vInt32(int32(i + 1))
					case "$rank":
						res[i] = vInt32(int32(rank))
					case "$denseRank":
						res[i] = vInt32(int32(dense))
					case "$shift":
						k := i + w.by
						switch {
						case k >= 0 && k < len(docs):
							v, err := w.e.eval(docs[k], nil)
							if err != nil {
								return nil, err
							}
							res[i] = nullIfMissing(v)
						case w.def != nil:
							v, err := w.def.eval(docs[i], nil)
							if err != nil {
								return nil, err
							}
							res[i] = nullIfMissing(v)
						default:
							res[i] = vNull()
						}
					default:
						lo, hi := 0, len(docs)-1
						if !w.loAll {
							lo = max(lo, i+w.lo)
						}
						if !w.hiAll {
							hi = min(hi, i+w.hi)
						}
						a := newAccumulator(w.op)
						for k := lo; k <= hi; k++ {
							v, err := w.e.eval(docs[k], nil)
							if err != nil {
								return nil, err
							}
							a.add(v)
						}
						res[i] = a.result()
					}
				}
				results[j] = res
			}
			for i, doc := range docs {
				md := toMDoc(doc)
				for j, w := range outs {
					setMPath(md, w.field, toM(results[j][i]))
				}
				out = append(out, md.build())
			}
		}
		return out, nil
	}, nil
}

// windowBound reads a document window bound: an offset, or unbounded.
func windowBound(v bsoncore.Value) (offset int, unbounded, ok bool) {
	if v.Type == bsoncore.TypeString {
		switch v.StringValue() {
		case "unbounded":
			return 0, true, true
		case "current":
			return 0, false, true
		}
		return 0, false, false
	}
	n, isInt := intOf(v)
	return int(n), false, isInt
}
