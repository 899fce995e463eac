package pipeline

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/query"
)

// compileGraphLookup is $graphLookup: a recursive search of collection
// from, starting with the values of startWith, following connectFromField
// to connectToField, breadth first, each document once, up to maxDepth,
// among the documents restrictSearchWithMatch lets through; the documents
// found go into the array field as, with their depth in depthField if
// asked.
func compileGraphLookup(arg bsoncore.Value, env *Env) (Stage, error) {
	d, err := needDoc("$graphLookup", arg)
	if err != nil {
		return nil, err
	}
	str := func(k string) (string, bool) {
		v, err := d.LookupErr(k)
		if err != nil || v.Type != bsoncore.TypeString {
			return "", false
		}
		return v.StringValue(), true
	}
	g := &graphLookup{env: env, maxDepth: -1}
	from, okFrom := str("from")
	as, okAs := str("as")
	fromField, okFF := str("connectFromField")
	toField, okTF := str("connectToField")
	g.from, g.as, g.fromField, g.toField = from, as, fromField, toField
	sv, errStart := d.LookupErr("startWith")
	switch {
	case !okFrom:
		return nil, mongoerr.New(mongoerr.FailedToParse, "$graphLookup: 'from' must be a string naming a collection")
	case !okAs || !okFF || !okTF || errStart != nil:
		return nil, mongoerr.New(mongoerr.Location(40105), "$graphLookup requires 'as', 'startWith', 'connectFromField' and 'connectToField' to be specified")
	}
	if g.start, err = expr.Compile(sv, env.Vars); err != nil {
		return nil, err
	}
	g.depthField, _ = str("depthField")
	if err := g.parseLimits(d); err != nil {
		return nil, err
	}
	return g.run, nil
}

// graphLookup is a compiled $graphLookup.
type graphLookup struct {
	env                *Env
	from, as           string
	fromField, toField string
	start              *expr.Expr
	depthField         string
	maxDepth           int64 // -1: none
	restrict           *query.Filter
}

// parseLimits reads maxDepth and restrictSearchWithMatch.
func (g *graphLookup) parseLimits(d bsoncore.Document) error {
	if v, err := d.LookupErr("maxDepth"); err == nil {
		if !bsonval.IsNumber(v) || bsonval.NumberFloat(v) < 0 {
			return mongoerr.New(mongoerr.Location(40101), "maxDepth requires a nonnegative argument, found: %s", bsonval.Shell(v))
		}
		g.maxDepth = int64(bsonval.NumberFloat(v))
		if i, ok := bsonval.IntOf(v); ok {
			g.maxDepth = i
		}
	}
	if v, err := d.LookupErr("restrictSearchWithMatch"); err == nil {
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return mongoerr.New(mongoerr.Location(40185), "restrictSearchWithMatch must be an object, found %s", bsonval.TypeName(v.Type))
		}
		if g.restrict, err = compileFilter(bsoncore.Document(v.Data), g.env.Vars); err != nil {
			return err
		}
	}
	return nil
}

func (g *graphLookup) run(in []bsoncore.Document) ([]bsoncore.Document, error) {
	// the searchable documents, by the values of connectToField
	byKey := map[string][]int{}
	var docs []bsoncore.Document
	var kb []byte
	for _, fd := range g.env.Read(g.env.DB, g.from) {
		if g.restrict != nil && !g.restrict.Match(fd) {
			continue
		}
		for _, v := range connectValues(fd, g.toField) {
			kb = bsonval.AppendGroupKey(kb[:0], v)
			byKey[string(kb)] = append(byKey[string(kb)], len(docs))
		}
		docs = append(docs, fd)
	}
	out := make([]bsoncore.Document, 0, len(in))
	for _, doc := range in {
		sv, err := g.start.Eval(doc, nil)
		if err != nil {
			return nil, err
		}
		md := bsonval.MutableDoc(doc)
		setMPath(md, g.as, bsonval.Mutable(bsonval.Array(g.search(sv, docs, byKey))))
		out = append(out, md.Build())
	}
	return out, nil
}

// search is the documents found from startWith's value sv, breadth
// first, among docs indexed by byKey.
func (g *graphLookup) search(sv bsoncore.Value, docs []bsoncore.Document, byKey map[string][]int) []bsoncore.Value {
	frontier := []bsoncore.Value{sv}
	if sv.Type == bsoncore.TypeArray {
		frontier = bsonval.ArrayValues(sv)
	}
	seen := map[int]bool{}
	var found []bsoncore.Value
	var kb []byte
	for depth := int64(0); len(frontier) > 0 && (g.maxDepth < 0 || depth <= g.maxDepth); depth++ {
		var next []bsoncore.Value
		for _, v := range frontier {
			kb = bsonval.AppendGroupKey(kb[:0], v)
			for _, i := range byKey[string(kb)] {
				if seen[i] || !connects(docs[i], g.toField, v) {
					continue
				}
				seen[i] = true
				hit := docs[i]
				if g.depthField != "" {
					md := bsonval.MutableDoc(hit)
					setMPath(md, g.depthField, bsonval.Mutable(bsonval.Int64(depth)))
					hit = md.Build()
				}
				found = append(found, bsonval.Doc(hit))
				next = append(next, recurseValues(docs[i], g.fromField)...)
			}
		}
		frontier = next
	}
	return found
}

// connects reports whether doc's field holds v (an element of it, for an
// array); null and undefined only find themselves.
func connects(doc bsoncore.Document, field string, v bsoncore.Value) bool {
	for _, w := range connectValues(doc, field) {
		if bsonval.Equal(w, v) && (w.Type == v.Type || !expr.Nullish(w) && !expr.Nullish(v)) {
			return true
		}
	}
	return false
}

// connectValues is what connectToField offers a search: each value the
// path reaches, an array as itself and as its elements; a missing field
// offers nothing (MongoDB's null finds null, not missing or undefined).
func connectValues(doc bsoncore.Document, path string) []bsoncore.Value {
	return graphValues(doc, path, true)
}

// recurseValues is what the search goes on with from a document found:
// its connectFromField values, an array's elements each on their own; a
// missing field goes nowhere, while null looks for null.
func recurseValues(doc bsoncore.Document, path string) []bsoncore.Value {
	return graphValues(doc, path, false)
}

func graphValues(doc bsoncore.Document, path string, search bool) []bsoncore.Value {
	var out []bsoncore.Value
	for _, c := range bsonval.Candidates(doc, path) {
		switch {
		case c.Value.Type == 0:
			continue
		case c.Value.Type == bsoncore.TypeArray:
			out = append(out, bsonval.ArrayValues(c.Value)...)
			if !search {
				continue
			}
		}
		out = append(out, c.Value)
	}
	return out
}
