package engine

// Document validation: a collection's validator (a query filter, with
// $jsonSchema or query operators), validationLevel and validationAction,
// checked on every insert and update as MongoDB checks them.

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/query"
)

// validation is a collection's compiled validator.
type validation struct {
	rule     bsoncore.Document
	filter   *query.Filter
	moderate bool // updates of documents that already fail are not checked
	warn     bool // a failing document is written all the same
}

// parseValidation reads the validator options of a collection's options;
// nil when there is nothing to check (no validator, or level "off").
func parseValidation(opts bsoncore.Document) (*validation, error) {
	v := &validation{}
	level, action := "strict", "error"
	if lv, err := opts.LookupErr("validationLevel"); err == nil {
		if lv.Type != bsoncore.TypeString {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'validationLevel' is the wrong type '%s', expected type 'string'", bsonval.TypeName(lv.Type))
		}
		level = lv.StringValue()
	}
	if av, err := opts.LookupErr("validationAction"); err == nil {
		if av.Type != bsoncore.TypeString {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'validationAction' is the wrong type '%s', expected type 'string'", bsonval.TypeName(av.Type))
		}
		action = av.StringValue()
	}
	switch level {
	case "strict", "off":
	case "moderate":
		v.moderate = true
	default:
		return nil, mongoerr.New(mongoerr.BadValue, "Enumeration value '%s' for field 'validationLevel' is not a valid value.", level)
	}
	switch action {
	case "error":
	case "warn":
		v.warn = true
	default:
		return nil, mongoerr.New(mongoerr.BadValue, "Enumeration value '%s' for field 'validationAction' is not a valid value.", action)
	}
	rv, err := opts.LookupErr("validator")
	if err != nil {
		return nil, nil
	}
	if rv.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'validator' is the wrong type '%s', expected type 'object'", bsonval.TypeName(rv.Type))
	}
	v.rule = bsoncore.Document(rv.Data)
	for _, e := range bsonval.Elements(v.rule) {
		switch e.Key() {
		case "$where", "$near", "$nearSphere", "$text", "$geoNear":
			return nil, mongoerr.New(mongoerr.InvalidOptions, "%s is not allowed in collection validators", e.Key())
		}
	}
	if v.filter, err = compileFilter(v.rule, nil); err != nil {
		return nil, err
	}
	if level == "off" || len(bsonval.Elements(v.rule)) == 0 {
		return nil, nil
	}
	return v, nil
}

// check refuses doc, which replaces old (when exists), unless it passes the
// validator: DocumentValidationFailure with errInfo as MongoDB gives it.
func (v *validation) check(doc, old bsoncore.Document, exists bool) error {
	if v == nil || v.warn || v.filter.Match(doc) {
		return nil
	}
	if exists && v.moderate && !v.filter.Match(old) {
		return nil
	}
	id, _ := doc.LookupErr("_id")
	info := bsoncore.NewDocumentBuilder().AppendValue("failingDocumentId", id).AppendDocument("details", v.details(doc)).Build()
	return &mongoerr.Error{
		Code:  mongoerr.DocumentValidationFailure,
		Msg:   "Document failed validation",
		Extra: bsoncore.NewDocumentBuilder().AppendDocument("errInfo", info).Build(),
	}
}

// details says which clauses of the validator doc fails: the clause itself
// when there is one, else $and with the index of each failing clause.
func (v *validation) details(doc bsoncore.Document) bsoncore.Document {
	els := bsonval.Elements(v.rule)
	if len(els) == 1 {
		return clauseDetails(els[0], doc)
	}
	var failing []bsoncore.Value
	for i, e := range els {
		clause := bsoncore.NewDocumentBuilder().AppendValue(e.Key(), e.Value()).Build()
		if f, err := compileFilter(clause, nil); err == nil && !f.Match(doc) {
			failing = append(failing, bsonval.Doc(bsoncore.NewDocumentBuilder().AppendInt32("index", int32(i)).AppendDocument("details", clauseDetails(e, doc)).Build()))
		}
	}
	return bsoncore.NewDocumentBuilder().AppendString("operatorName", "$and").
		AppendDocument("specifiedAs", v.rule).AppendArray("clausesNotSatisfied", bsoncore.BuildArray(nil, failing...)).Build()
}

// clauseDetails describes one failing top-level clause of a validator.
func clauseDetails(e bsoncore.Element, doc bsoncore.Document) bsoncore.Document {
	k, a := e.Key(), e.Value()
	specified := bsoncore.NewDocumentBuilder().AppendValue(k, a).Build()
	b := bsoncore.NewDocumentBuilder()
	switch {
	case k == "$jsonSchema" && a.Type == bsoncore.TypeEmbeddedDocument:
		return b.AppendString("operatorName", "$jsonSchema").
			AppendArray("schemaRulesNotSatisfied", bsoncore.BuildArray(nil, schemaRulesNotSatisfied(bsoncore.Document(a.Data), bsonval.Doc(doc))...)).Build()
	case len(k) > 0 && k[0] == '$':
		return b.AppendString("operatorName", k).AppendDocument("specifiedAs", specified).Build()
	}
	op := "$eq"
	if a.Type == bsoncore.TypeEmbeddedDocument {
		if inner := bsonval.Elements(bsoncore.Document(a.Data)); len(inner) > 0 && len(inner[0].Key()) > 0 && inner[0].Key()[0] == '$' {
			op = inner[0].Key()
		}
	}
	b.AppendString("operatorName", op).AppendDocument("specifiedAs", specified)
	considered := bsonval.Lookup(doc, k)
	if considered.Type == 0 {
		return b.AppendString("reason", "field was missing").Build()
	}
	return b.AppendString("reason", "comparison failed").AppendValue("consideredValue", considered).Build()
}

// schemaRulesNotSatisfied lists the keywords of schema that v fails:
// required with the missing properties, properties with the properties
// that fail their own schema, any other keyword by its name.
func schemaRulesNotSatisfied(schema bsoncore.Document, v bsoncore.Value) []bsoncore.Value {
	var out []bsoncore.Value
	for _, e := range bsonval.Elements(schema) {
		k, a := e.Key(), e.Value()
		one := bsoncore.NewDocumentBuilder().AppendValue(k, a).Build()
		check, err := query.CompileSchema(one)
		if err != nil || check(v) {
			continue
		}
		b := bsoncore.NewDocumentBuilder().AppendString("operatorName", k).AppendDocument("specifiedAs", one)
		switch {
		case k == "required" && v.Type == bsoncore.TypeEmbeddedDocument:
			var missing []bsoncore.Value
			for _, r := range bsonval.ArrayValues(a) {
				if _, err := bsoncore.Document(v.Data).LookupErr(bsonval.Text(r)); err != nil {
					missing = append(missing, r)
				}
			}
			b.AppendArray("missingProperties", bsoncore.BuildArray(nil, missing...))
		case k == "properties" && a.Type == bsoncore.TypeEmbeddedDocument && v.Type == bsoncore.TypeEmbeddedDocument:
			var props []bsoncore.Value
			for _, p := range bsonval.Elements(bsoncore.Document(a.Data)) {
				if p.Value().Type != bsoncore.TypeEmbeddedDocument {
					continue
				}
				field := bsonval.Lookup(bsoncore.Document(v.Data), p.Key())
				if pc, err := query.CompileSchema(bsoncore.Document(p.Value().Data)); err == nil && !pc(field) {
					props = append(props, bsonval.Doc(bsoncore.NewDocumentBuilder().AppendString("propertyName", p.Key()).
						AppendArray("details", bsoncore.BuildArray(nil, schemaRulesNotSatisfied(bsoncore.Document(p.Value().Data), field)...)).Build()))
				}
			}
			b.AppendArray("propertiesNotSatisfied", bsoncore.BuildArray(nil, props...))
		}
		out = append(out, bsonval.Doc(b.Build()))
	}
	return out
}
