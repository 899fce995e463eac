package engine

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// lookupKeys are the values a $lookup equality compares: null for a field
// missing, null or undefined (they all match each other).
func lookupKeys(vals []bsoncore.Value) []bsoncore.Value {
	if len(vals) == 0 {
		return []bsoncore.Value{vNull()}
	}
	out := vals
	for i, v := range vals {
		if nullish(v) && v.Type != bsoncore.TypeNull {
			if &out[0] == &vals[0] {
				out = slices.Clone(vals)
			}
			out[i] = vNull()
		}
	}
	return out
}

func compileLookup(arg bsoncore.Value, env *pipelineEnv) (stage, error) {
	d, err := needDoc("$lookup", arg)
	if err != nil {
		return nil, err
	}
	str := func(k string) string {
		v, err := d.LookupErr(k)
		if err != nil {
			return ""
		}
		return toStr(v)
	}
	from, as, local, foreign := str("from"), str("as"), str("localField"), str("foreignField")
	if as == "" {
		return nil, mongoerr.New(mongoerr.FailedToParse, "must specify 'as' field for a $lookup")
	}
	fromDB := env.db
	if fv, err := d.LookupErr("from"); err == nil && fv.Type == bsoncore.TypeEmbeddedDocument {
		fd := bsoncore.Document(fv.Data)
		dbv, _ := fd.LookupErr("db")
		cv, _ := fd.LookupErr("coll")
		fromDB, from = toStr(dbv), toStr(cv)
	}
	type letVar struct {
		name string
		e    *expr
	}
	var lets []letVar
	inner := &exprVars{vars: map[string]bsoncore.Value{}, now: env.vars.now}
	for k, v := range env.vars.vars {
		inner.vars[k] = v
	}
	if lv, err := d.LookupErr("let"); err == nil {
		for _, el := range elements(bsoncore.Document(lv.Data)) {
			e, err := compileExpr(el.Value(), env.vars)
			if err != nil {
				return nil, err
			}
			lets = append(lets, letVar{el.Key(), e})
			inner.vars[el.Key()] = vNull()
		}
	}
	var pipe []bsoncore.Value
	hasPipe := false
	if pv, err := d.LookupErr("pipeline"); err == nil {
		pipe, hasPipe = arrayValues(pv), true
	}
	if !hasPipe && (local == "" || foreign == "") {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified")
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		foreignDocs := env.read(fromDB, from)
		// the foreign documents by the values of foreignField (null for
		// missing or null), so each local value is one lookup
		var byKey map[string][]int
		var kb []byte
		if local != "" {
			byKey = map[string][]int{}
			for i, fd := range foreignDocs {
				for _, b := range lookupKeys(fieldValues(fd, foreign)) {
					kb = appendGroupKey(kb[:0], b)
					if ks := byKey[string(kb)]; len(ks) == 0 || ks[len(ks)-1] != i {
						byKey[string(kb)] = append(ks, i)
					}
				}
			}
		}
		out := make([]bsoncore.Document, 0, len(in))
		for _, doc := range in {
			cands := foreignDocs
			if local != "" {
				var order []int
				for _, a := range lookupKeys(fieldValues(doc, local)) {
					kb = appendGroupKey(kb[:0], a)
					for _, i := range byKey[string(kb)] {
						if slices.Contains(order, i) {
							continue
						}
						for _, b := range lookupKeys(fieldValues(foreignDocs[i], foreign)) {
							if valuesEqual(a, b) {
								order = append(order, i)
								break
							}
						}
					}
				}
				slices.Sort(order)
				matched := make([]bsoncore.Document, len(order))
				for k, i := range order {
					matched[k] = foreignDocs[i]
				}
				cands = matched
			}
			if hasPipe {
				vars := &exprVars{vars: map[string]bsoncore.Value{}, now: inner.now}
				for k, v := range inner.vars {
					vars.vars[k] = v
				}
				for _, l := range lets {
					v, err := l.e.eval(doc, nil)
					if err != nil {
						return nil, err
					}
					vars.vars[l.name] = v
				}
				sub := *env
				sub.vars = vars
				stages, err := compilePipeline(pipe, &sub)
				if err != nil {
					return nil, err
				}
				if cands, err = runPipeline(stages, append([]bsoncore.Document{}, cands...)); err != nil {
					return nil, err
				}
			}
			if !strings.Contains(as, ".") {
				out = append(out, withArrayField(doc, as, cands))
				continue
			}
			vals := make([]bsoncore.Value, len(cands))
			for i, c := range cands {
				vals[i] = vDoc(c)
			}
			md := toMDoc(doc)
			setMPath(md, as, toM(vArray(vals)))
			out = append(out, md.build())
		}
		return out, nil
	}, nil
}

// withArrayField is doc with its top-level field name set to an array of
// docs: in its place if doc has it, else last; the other fields' bytes
// are copied as they are.
func withArrayField(doc bsoncore.Document, name string, docs []bsoncore.Document) bsoncore.Document {
	size := len(doc) + len(name) + 16
	for _, d := range docs {
		size += len(d) + 8
	}
	appendArray := func(dst []byte) []byte { return appendDocArray(dst, name, docs) }
	if _, err := doc.LookupErr(name); err != nil { // a new field, last
		out := append(make([]byte, 0, size), doc[:len(doc)-1]...)
		out = appendArray(out)
		out = append(out, 0)
		return bsoncore.UpdateLength(out, 0, int32(len(out)))
	}
	idx, out := bsoncore.ReserveLength(make([]byte, 0, size))
	done := false
	for _, e := range elements(doc) {
		if e.Key() == name {
			out = appendArray(out)
			done = true
			continue
		}
		out = append(out, e...)
	}
	if !done {
		out = appendArray(out)
	}
	out = append(out, 0)
	return bsoncore.UpdateLength(out, idx, int32(len(out[idx:])))
}

// fieldValues is fanValues, without its walk for the common case of a
// top-level field holding a value that is not an array.
func fieldValues(doc bsoncore.Document, path string) []bsoncore.Value {
	if !strings.Contains(path, ".") {
		if v, err := doc.LookupErr(path); err == nil && v.Type != bsoncore.TypeArray {
			return []bsoncore.Value{v}
		}
	}
	return fanValues(doc, path)
}
