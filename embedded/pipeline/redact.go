package pipeline

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// compileRedact is $redact: the expression, evaluated on each document
// and then on each embedded document ($$CURRENT) the answer $$DESCEND
// keeps, says $$KEEP (the level whole), $$PRUNE (the level gone) or
// $$DESCEND (its fields kept, its documents and arrays of documents
// judged in turn).
func compileRedact(arg bsoncore.Value, env *Env) (Stage, error) {
	vars := &expr.Vars{Vars: map[string]bsoncore.Value{}, Now: env.Vars.Now}
	for k, v := range env.Vars.Vars {
		vars.Vars[k] = v
	}
	for _, k := range []string{"DESCEND", "PRUNE", "KEEP"} {
		vars.Vars[k] = bsonval.String("$$" + k)
	}
	e, err := expr.Compile(arg, vars)
	if err != nil {
		return nil, err
	}
	var level func(root, cur bsoncore.Document) (bsoncore.Document, bool, error)
	level = func(root, cur bsoncore.Document) (bsoncore.Document, bool, error) {
		v, err := e.Eval(root, map[string]bsoncore.Value{"CURRENT": bsonval.Doc(cur)})
		if err != nil {
			return nil, false, err
		}
		switch {
		case v.Type == bsoncore.TypeString && v.StringValue() == "$$KEEP":
			return cur, true, nil
		case v.Type == bsoncore.TypeString && v.StringValue() == "$$PRUNE":
			return nil, false, nil
		case v.Type != bsoncore.TypeString || v.StringValue() != "$$DESCEND":
			return nil, false, mongoerr.New(mongoerr.Location(17053), "$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned %s", bsonval.Shell(v))
		}
		b := bsoncore.NewDocumentBuilder()
		for _, el := range bsonval.Elements(cur) {
			fv := el.Value()
			switch fv.Type {
			case bsoncore.TypeEmbeddedDocument:
				sub, keep, err := level(root, bsoncore.Document(fv.Data))
				if err != nil {
					return nil, false, err
				}
				if keep {
					b.AppendDocument(el.Key(), sub)
				}
			case bsoncore.TypeArray:
				var kept []bsoncore.Value
				for _, x := range bsonval.ArrayValues(fv) {
					if x.Type != bsoncore.TypeEmbeddedDocument {
						kept = append(kept, x)
						continue
					}
					sub, keep, err := level(root, bsoncore.Document(x.Data))
					if err != nil {
						return nil, false, err
					}
					if keep {
						kept = append(kept, bsonval.Doc(sub))
					}
				}
				b.AppendArray(el.Key(), bsoncore.BuildArray(nil, kept...))
			default:
				b.AppendValue(el.Key(), fv)
			}
		}
		return b.Build(), true, nil
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		out := make([]bsoncore.Document, 0, len(in))
		for _, doc := range in {
			r, keep, err := level(doc, doc)
			if err != nil {
				return nil, err
			}
			if keep {
				out = append(out, r)
			}
		}
		return out, nil
	}, nil
}
