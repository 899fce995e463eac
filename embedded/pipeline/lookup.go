package pipeline

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// lookupKeys are the values a $lookup equality compares: null for a field
// missing, null or undefined (they all match each other).
func lookupKeys(vals []bsoncore.Value) []bsoncore.Value {
	if len(vals) == 0 {
		return []bsoncore.Value{bsonval.Null()}
	}
	out := vals
	for i, v := range vals {
		if expr.Nullish(v) && v.Type != bsoncore.TypeNull {
			if &out[0] == &vals[0] {
				out = slices.Clone(vals)
			}
			out[i] = bsonval.Null()
		}
	}
	return out
}

// lookupSpec is a compiled $lookup.
type lookupSpec struct {
	env              *Env
	fromDB, from, as string
	local, foreign   string
	let              bsoncore.Document // the let argument; nil without one
	lets             []lookupLet
	inner            *expr.Vars // the variables of the pipeline, the let ones null
	pipe             []bsoncore.Value
	hasPipe, hasFrom bool
}

// lookupLet is one variable of $lookup's let.
type lookupLet struct {
	name string
	e    *expr.Expr
}

func compileLookup(arg bsoncore.Value, env *Env) (Stage, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.FailedToParse, "the $lookup specification must be an Object")
	}
	s := &lookupSpec{env: env, fromDB: env.DB}
	if err := s.readArgs(bsoncore.Document(arg.Data)); err != nil {
		return nil, err
	}
	if s.hasFrom {
		if err := mongoerr.CheckNamespace(s.fromDB, s.from); err != nil {
			return nil, err
		}
	} else if len(s.pipe) == 0 || StageName(s.pipe[0]) != "$documents" {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup stage without explicit collection must have a pipeline with $documents as first stage")
	}
	if s.as == "" {
		return nil, mongoerr.New(mongoerr.FailedToParse, "must specify 'as' field for a $lookup")
	}
	if err := CheckDocumentsStage(s.pipe, false); err != nil {
		return nil, err
	}
	switch {
	case s.hasPipe && (s.local == "") != (s.foreign == ""):
		return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified")
	case !s.hasPipe && (s.local == "" || s.foreign == ""):
		return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified")
	case !s.hasPipe && s.let != nil:
		return nil, mongoerr.New(mongoerr.FailedToParse, "$lookup with a 'let' argument must also specify 'pipeline'")
	}
	if err := s.compileLet(); err != nil {
		return nil, err
	}
	return s.run, nil
}

// readArgs reads $lookup's arguments, each of its type: from (a name, or
// {db, coll}), as, localField and foreignField (strings), let (an
// object), pipeline (an array).
func (s *lookupSpec) readArgs(d bsoncore.Document) error {
	for _, el := range bsonval.Elements(d) {
		k, v := el.Key(), el.Value()
		switch {
		case k == "pipeline":
			if v.Type != bsoncore.TypeArray {
				return mongoerr.New(mongoerr.TypeMismatch, "'pipeline' option must be specified as an array")
			}
			s.pipe, s.hasPipe = bsonval.ArrayValues(v), true
		case k == "let":
			if v.Type != bsoncore.TypeEmbeddedDocument {
				return mongoerr.New(mongoerr.FailedToParse, "$lookup argument 'let: %s' must be an object, is type %s", bsonval.Shell(v), bsonval.TypeName(v.Type))
			}
			s.let = bsoncore.Document(v.Data)
		case k == "from" && v.Type == bsoncore.TypeEmbeddedDocument:
			fd := bsoncore.Document(v.Data)
			s.fromDB, s.from, s.hasFrom = bsonval.Text(bsonval.Lookup(fd, "db")), bsonval.Text(bsonval.Lookup(fd, "coll")), true
		case k == "from" && v.Type != bsoncore.TypeString:
			return mongoerr.New(mongoerr.FailedToParse, "$lookup 'from' field must be either a string or an object, but found %s", bsonval.TypeName(v.Type))
		case v.Type != bsoncore.TypeString:
			return mongoerr.New(mongoerr.FailedToParse, "$lookup argument '%s' must be a string, found %s: %s: %s", k, k, bsonval.Shell(v), bsonval.TypeName(v.Type))
		case k == "from":
			s.from, s.hasFrom = v.StringValue(), true
		case k == "as":
			s.as = v.StringValue()
		case k == "localField":
			s.local = v.StringValue()
		case k == "foreignField":
			s.foreign = v.StringValue()
		default:
			return mongoerr.New(mongoerr.FailedToParse, "unknown argument to $lookup: %s", k)
		}
	}
	return nil
}

// compileLet compiles the let variables and sets up the pipeline's
// variables: the stage's, and the let ones as null.
func (s *lookupSpec) compileLet() error {
	env := s.env
	s.inner = &expr.Vars{Vars: map[string]bsoncore.Value{}, Now: env.Vars.Now, Coll: env.Vars.Collator()}
	for k, v := range env.Vars.Vars {
		s.inner.Vars[k] = v
	}
	for _, el := range bsonval.Elements(s.let) {
		e, err := expr.Compile(el.Value(), env.Vars)
		if err != nil {
			return err
		}
		s.lets = append(s.lets, lookupLet{el.Key(), e})
		s.inner.Vars[el.Key()] = bsonval.Null()
	}
	return nil
}

func (s *lookupSpec) run(in []bsoncore.Document) ([]bsoncore.Document, error) {
	var foreignDocs []bsoncore.Document // none without from: the pipeline's $documents are its own
	if s.hasFrom {
		foreignDocs = s.env.Read(s.fromDB, s.from)
	}
	var byKey map[string][]int
	if s.local != "" {
		byKey = s.indexForeign(foreignDocs)
	}
	out := make([]bsoncore.Document, 0, len(in))
	for _, doc := range in {
		cands, err := s.candidates(doc, foreignDocs, byKey)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(s.as, ".") {
			out = append(out, withArrayField(doc, s.as, cands))
			continue
		}
		vals := make([]bsoncore.Value, len(cands))
		for i, c := range cands {
			vals[i] = bsonval.Doc(c)
		}
		md := bsonval.MutableDoc(doc)
		setMPath(md, s.as, bsonval.Mutable(bsonval.Array(vals)))
		out = append(out, md.Build())
	}
	return out, nil
}

// candidates is what doc's field as receives: the foreign documents equal
// to it on localField and foreignField, through the pipeline. Without
// from, the equality applies to the documents of the pipeline's leading
// $documents.
func (s *lookupSpec) candidates(doc bsoncore.Document, foreignDocs []bsoncore.Document, byKey map[string][]int) ([]bsoncore.Document, error) {
	if !s.hasFrom && s.local != "" {
		docs, err := s.runPipeline(doc, s.pipe[:1], nil)
		if err != nil {
			return nil, err
		}
		return s.runPipeline(doc, s.pipe[1:], s.matches(doc, docs, s.indexForeign(docs)))
	}
	cands := foreignDocs
	if s.local != "" {
		cands = s.matches(doc, foreignDocs, byKey)
	}
	if !s.hasPipe {
		return cands, nil
	}
	return s.runPipeline(doc, s.pipe, cands)
}

// indexForeign is the positions of the foreign documents by the values
// of foreignField (null for missing or null), so each local value is one
// lookup.
func (s *lookupSpec) indexForeign(foreignDocs []bsoncore.Document) map[string][]int {
	byKey := map[string][]int{}
	var kb []byte
	for i, fd := range foreignDocs {
		for _, b := range lookupKeys(fieldValues(fd, s.foreign)) {
			kb = s.inner.Coll.AppendKey(kb[:0], b)
			if ks := byKey[string(kb)]; len(ks) == 0 || ks[len(ks)-1] != i {
				byKey[string(kb)] = append(ks, i)
			}
		}
	}
	return byKey
}

// matches is the foreign documents, in their order, whose foreignField
// equals doc's localField (strings by the command's collation).
func (s *lookupSpec) matches(doc bsoncore.Document, foreignDocs []bsoncore.Document, byKey map[string][]int) []bsoncore.Document {
	var order []int
	var kb []byte
	for _, a := range lookupKeys(fieldValues(doc, s.local)) {
		kb = s.inner.Coll.AppendKey(kb[:0], a)
		for _, i := range byKey[string(kb)] {
			if slices.Contains(order, i) {
				continue
			}
			for _, b := range lookupKeys(fieldValues(foreignDocs[i], s.foreign)) {
				if s.inner.Coll.Equal(a, b) {
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
	return matched
}

// runPipeline runs pipe, stages of the pipeline, on cands, the let
// variables set from doc.
func (s *lookupSpec) runPipeline(doc bsoncore.Document, pipe []bsoncore.Value, cands []bsoncore.Document) ([]bsoncore.Document, error) {
	vars := &expr.Vars{Vars: map[string]bsoncore.Value{}, Now: s.inner.Now, Coll: s.inner.Coll}
	for k, v := range s.inner.Vars {
		vars.Vars[k] = v
	}
	for _, l := range s.lets {
		v, err := l.e.Eval(doc, nil)
		if err != nil {
			return nil, err
		}
		vars.Vars[l.name] = v
	}
	sub := *s.env
	sub.Vars = vars
	stages, err := Compile(pipe, &sub)
	if err != nil {
		return nil, err
	}
	return stages.Run(append([]bsoncore.Document{}, cands...))
}

// withArrayField is doc with its top-level field name set to an array of
// docs: in its place if doc has it, else last; the other fields' bytes
// are copied as they are.
func withArrayField(doc bsoncore.Document, name string, docs []bsoncore.Document) bsoncore.Document {
	size := len(doc) + len(name) + 16
	for _, d := range docs {
		size += len(d) + 8
	}
	appendArray := func(dst []byte) []byte { return bsonval.AppendDocArray(dst, name, docs) }
	if _, err := doc.LookupErr(name); err != nil { // a new field, last
		out := append(make([]byte, 0, size), doc[:len(doc)-1]...)
		out = appendArray(out)
		out = append(out, 0)
		return bsoncore.UpdateLength(out, 0, int32(len(out)))
	}
	idx, out := bsoncore.ReserveLength(make([]byte, 0, size))
	done := false
	for _, e := range bsonval.Elements(doc) {
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

// fieldValues is bsonval.FanValues, without its walk for the common case of a
// top-level field holding a value that is not an array.
func fieldValues(doc bsoncore.Document, path string) []bsoncore.Value {
	if !strings.Contains(path, ".") {
		if v, err := doc.LookupErr(path); err == nil && v.Type != bsoncore.TypeArray {
			return []bsoncore.Value{v}
		}
	}
	return bsonval.FanValues(doc, path)
}
