package update

import (
	"bytes"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/query"
)

// Update is a compiled update: operators, a replacement or a pipeline.
type Update struct {
	replacement bsoncore.Document
	pipeline    []bsoncore.Document
	ops         []updateOp
	filters     map[string]*query.Filter
	filterIDs   []string // the identifiers of filters, in the order given
	vars        *expr.Vars
	// runPipeline runs a pipeline-style update's stages on a document
	runPipeline func(doc bsoncore.Document, stages []bsoncore.Document, vars *expr.Vars) (bsoncore.Document, error)
}

type updateOp struct {
	op    string
	path  string
	parts []string
	arg   bsoncore.Value
}

var updateOperators = map[string]bool{
	"$set": true, "$unset": true, "$inc": true, "$mul": true, "$min": true, "$max": true,
	"$rename": true, "$currentDate": true, "$setOnInsert": true, "$push": true, "$addToSet": true,
	"$pop": true, "$pull": true, "$pullAll": true, "$bit": true,
}

// Compile compiles an update: an operator document, a replacement
// document or a pipeline, with its arrayFilters and the let variables,
// clock and collation of vars. run runs a pipeline's stages on a document
// when the update is applied (the engine's aggregation supplies it).
func Compile(u bsoncore.Value, arrayFilters []bsoncore.Value, vars *expr.Vars, run func(doc bsoncore.Document, stages []bsoncore.Document, vars *expr.Vars) (bsoncore.Document, error)) (*Update, error) {
	up := &Update{vars: vars, runPipeline: run}
	if u.Type == bsoncore.TypeArray {
		if err := up.compilePipeline(u, arrayFilters); err != nil {
			return nil, err
		}
		return up, nil
	}
	if u.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Update document must be an object or a pipeline")
	}
	d := bsoncore.Document(u.Data)
	els := bsonval.Elements(d)
	if len(els) == 0 || !strings.HasPrefix(els[0].Key(), "$") {
		for _, e := range els {
			if strings.HasPrefix(e.Key(), "$") {
				return nil, mongoerr.New(mongoerr.DollarPrefixedFieldName, "The dollar ($) prefixed field '%s' in '%s' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.", e.Key(), e.Key())
			}
		}
		up.replacement = d
		return up, nil
	}
	if err := up.compileOps(els); err != nil {
		return nil, err
	}
	if err := checkConflicts(up.ops); err != nil {
		return nil, err
	}
	if err := up.compileArrayFilters(arrayFilters, vars); err != nil {
		return nil, err
	}
	if err := up.checkFiltersUsed(u); err != nil {
		return nil, err
	}
	return up, nil
}

// compilePipeline takes u, an update pipeline, as up's: only stages that
// reshape a document, and no arrayFilters.
func (up *Update) compilePipeline(u bsoncore.Value, arrayFilters []bsoncore.Value) error {
	for _, s := range bsonval.ArrayValues(u) {
		if s.Type != bsoncore.TypeEmbeddedDocument {
			return mongoerr.New(mongoerr.FailedToParse, "Each element of the 'pipeline' array must be an object")
		}
		st := bsoncore.Document(s.Data)
		els := bsonval.Elements(st)
		if len(els) != 1 {
			return mongoerr.New(mongoerr.Location(40323), "A pipeline stage specification object must contain exactly one field.")
		}
		switch els[0].Key() {
		case "$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith":
		default:
			return mongoerr.New(mongoerr.InvalidOptions, "%s is not allowed to be used within an update", els[0].Key())
		}
		up.pipeline = append(up.pipeline, st)
	}
	if len(arrayFilters) > 0 {
		return mongoerr.New(mongoerr.FailedToParse, "arrayFilters may not be specified for pipeline-style updates")
	}
	return nil
}

// compileOps reads the operators of an update document, els, into up.ops:
// one op per operator and path.
func (up *Update) compileOps(els []bsoncore.Element) error {
	for _, e := range els {
		op := e.Key()
		if !updateOperators[op] {
			if !strings.HasPrefix(op, "$") {
				return mongoerr.New(mongoerr.FailedToParse, "Unknown modifier: %s. Expected a valid update modifier or pipeline-style update specified as an array", op)
			}
			return mongoerr.New(mongoerr.FailedToParse, "Unknown modifier: %s. Expected a valid update modifier or pipeline-style update specified as an array", op)
		}
		if e.Value().Type != bsoncore.TypeEmbeddedDocument {
			return mongoerr.New(mongoerr.FailedToParse, "Modifiers operate on fields but we found type %s instead. For example: {$mod: {<field>: ...}} not {%s: %s}", bsonval.TypeName(e.Value().Type), op, bsonval.Shell(e.Value()))
		}
		for _, f := range bsonval.Elements(bsoncore.Document(e.Value().Data)) {
			path := f.Key()
			if path == "" || strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") || strings.Contains(path, "..") {
				return mongoerr.New(mongoerr.EmptyFieldName, "An update path '%s' contains an empty field name, which is not allowed.", path)
			}
			if op == "$rename" {
				if f.Value().Type != bsoncore.TypeString {
					return mongoerr.New(mongoerr.BadValue, "The 'to' field for $rename must be a string: %s: %s", path, bsonval.Shell(f.Value()))
				}
				to := f.Value().StringValue()
				if to == path {
					return mongoerr.New(mongoerr.BadValue, "The source and target field for $rename must differ: %s: %s", path, bsonval.Shell(f.Value()))
				}
			}
			if (op == "$inc" || op == "$mul") && !bsonval.IsNumber(f.Value()) {
				return mongoerr.New(mongoerr.TypeMismatch, "Cannot %s with non-numeric argument: {%s: %s}", strings.TrimPrefix(op, "$")[:3], path, bsonval.Shell(f.Value()))
			}
			up.ops = append(up.ops, updateOp{op: op, path: path, parts: strings.Split(path, "."), arg: f.Value()})
		}
	}
	return nil
}

// checkConflicts refuses ops two of which update the same path, or a path
// and a path within it ($rename's target included).
func checkConflicts(ops []updateOp) error {
	paths := map[string]string{}
	for _, o := range ops {
		ps := []string{o.path}
		if o.op == "$rename" {
			ps = append(ps, o.arg.StringValue())
		}
		for _, p := range ps {
			for q := range paths {
				if p == q || strings.HasPrefix(p, q+".") || strings.HasPrefix(q, p+".") {
					return mongoerr.New(mongoerr.ConflictingUpdateOperators, "Updating the path '%s' would create a conflict at '%s'", p, shorter(p, q))
				}
			}
			paths[p] = o.op
		}
	}
	return nil
}

// compileArrayFilters compiles the arrayFilters into up.filters, by the
// identifier each names.
func (up *Update) compileArrayFilters(arrayFilters []bsoncore.Value, vars *expr.Vars) error {
	up.filters = map[string]*query.Filter{}
	for _, af := range arrayFilters {
		if af.Type != bsoncore.TypeEmbeddedDocument {
			return mongoerr.New(mongoerr.TypeMismatch, "Each array filter must be an object")
		}
		els := bsonval.Elements(bsoncore.Document(af.Data))
		if len(els) == 0 {
			return mongoerr.New(mongoerr.FailedToParse, "Cannot use an expression without a top-level field name in arrayFilters")
		}
		id, _, _ := strings.Cut(els[0].Key(), ".")
		if _, dup := up.filters[id]; dup {
			return mongoerr.New(mongoerr.FailedToParse, "Found multiple array filters with the same top-level field name %s", id)
		}
		f, err := compileFilter(bsoncore.Document(af.Data), vars)
		if err != nil {
			return err
		}
		up.filters[id] = f
		up.filterIDs = append(up.filterIDs, id)
	}
	return nil
}

// checkFiltersUsed refuses a $[id] of up's paths with no array filter,
// and an array filter no path of u uses.
func (up *Update) checkFiltersUsed(u bsoncore.Value) error {
	used := map[string]bool{}
	for _, o := range up.ops {
		for _, p := range o.parts {
			if strings.HasPrefix(p, "$[") && p != "$[]" {
				id := strings.TrimSuffix(strings.TrimPrefix(p, "$["), "]")
				if _, ok := up.filters[id]; !ok {
					return mongoerr.New(mongoerr.BadValue, "No array filter found for identifier '%s' in path '%s'", id, o.path)
				}
				used[id] = true
			}
		}
	}
	for _, id := range up.filterIDs {
		if !used[id] {
			return mongoerr.New(mongoerr.FailedToParse, "The array filter for identifier '%s' was not used in the update %s", id, bsonval.Shell(u))
		}
	}
	return nil
}

func shorter(a, b string) string {
	if len(a) < len(b) {
		return a
	}
	return b
}

// IsReplacement reports whether u replaces whole documents.
func (u *Update) IsReplacement() bool { return u.replacement != nil }

// Apply applies u to doc. matchPos is the index the positional $
// operator stands for (-1: none); upsert applies $setOnInsert too. _id
// stays first and immutable, and the result stays within MaxDocSize.
func (u *Update) Apply(doc bsoncore.Document, matchPos int, upsert bool) (bsoncore.Document, error) {
	oldID, _ := doc.LookupErr("_id")
	var out bsoncore.Document
	switch {
	case u.replacement != nil:
		b := bsoncore.NewDocumentBuilder()
		if oldID.Type != 0 {
			b.AppendValue("_id", oldID)
		}
		for _, e := range bsonval.Elements(u.replacement) {
			if e.Key() == "_id" {
				if oldID.Type != 0 && !bytes.Equal(e.Value().Data, oldID.Data) || oldID.Type != 0 && e.Value().Type != oldID.Type {
					return nil, immutableID()
				}
				if oldID.Type == 0 {
					b.AppendValue("_id", e.Value())
				}
				continue
			}
			b.AppendValue(e.Key(), e.Value())
		}
		out = b.Build()
	case u.pipeline != nil:
		var err error
		out, err = u.runPipeline(doc, u.pipeline, u.vars)
		if err != nil {
			return nil, err
		}
		// a pipeline that leaves _id out keeps the document's own
		if _, err := out.LookupErr("_id"); err != nil && oldID.Type != 0 {
			b := bsoncore.NewDocumentBuilder().AppendValue("_id", oldID)
			for _, e := range bsonval.Elements(out) {
				b.AppendValue(e.Key(), e.Value())
			}
			out = b.Build()
		}
	default:
		root := bsonval.MutableDoc(doc)
		now := time.Now()
		for _, o := range u.ops {
			if o.op == "$setOnInsert" && !upsert {
				continue
			}
			if err := u.applyOp(root, o, matchPos, now); err != nil {
				return nil, err
			}
		}
		out = root.Build()
	}
	newID, err := out.LookupErr("_id")
	if oldID.Type != 0 && (err != nil || newID.Type != oldID.Type || !bytes.Equal(newID.Data, oldID.Data)) {
		return nil, immutableID()
	}
	if err == nil && bsonval.Elements(out)[0].Key() != "_id" {
		out = bsonval.IDFirst(out)
	}
	if len(out) > bsonval.MaxDocSize {
		return nil, mongoerr.New(mongoerr.Location(17419), "Resulting document after update is larger than %d", bsonval.MaxDocSize)
	}
	return out, nil
}

func immutableID() error {
	return mongoerr.New(mongoerr.ImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'")
}

// upsertSeed is the document an upsert starts from: the filter's equality
// conditions, dotted paths as nested documents.
func upsertSeed(f *query.Filter) (bsoncore.Document, error) {
	root := &bsonval.MDoc{}
	for _, e := range f.Equalities() {
		if strings.HasPrefix(e.Path, "$") {
			continue
		}
		v := e.Value
		if v.Type == bsoncore.TypeEmbeddedDocument && query.IsOperatorDoc(v) {
			continue
		}
		parts := strings.Split(e.Path, ".")
		err := modifyPath(&bsonval.MValue{Doc: root}, parts, 0, true, &Update{}, -1, e.Path, func(cur, parent *bsonval.MValue) (*bsonval.MValue, bool, error) {
			return bsonval.Mutable(v), false, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return root.Build(), nil
}

// Upsert is the document an upsert of u inserts when f matches none,
// before it is given an _id: the equalities of f with the replacement, or
// u applied to them.
func Upsert(f *query.Filter, u *Update) (bsoncore.Document, error) {
	seed, err := upsertSeed(f)
	if err != nil {
		return nil, err
	}
	var nd bsoncore.Document
	if u.IsReplacement() {
		id, ierr := seed.LookupErr("_id")
		b := bsoncore.NewDocumentBuilder()
		if ierr == nil {
			b.AppendValue("_id", id)
		}
		for _, e := range bsonval.Elements(u.replacement) {
			if e.Key() == "_id" && ierr == nil {
				continue
			}
			b.AppendValue(e.Key(), e.Value())
		}
		nd = b.Build()
	} else {
		if nd, err = u.Apply(seed, -1, true); err != nil {
			if mongoerr.Is(err, mongoerr.ImmutableField) {
				if _, e := seed.LookupErr("_id"); e != nil {
					nd, err = u.Apply(seed, -1, true)
				}
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return nd, nil
}
