package pipeline

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// compileFill is $fill, which is what MongoDB makes of it: the output
// fields with a method become a $setWindowFields over partitionBy (or
// partitionByFields) and sortBy, {field: {$locf: "$field"}} or
// {field: {$linearFill: "$field"}}; those with a value then an
// $addFields of {field: {$ifNull: ["$field", value]}}.
func compileFill(arg bsoncore.Value, env *Env) (Stage, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.FailedToParse, "The $fill stage specification must be an object, found %s", bsonval.TypeName(arg.Type))
	}
	d := bsoncore.Document(arg.Data)
	for _, el := range bsonval.Elements(d) {
		switch el.Key() {
		case "partitionBy", "partitionByFields", "sortBy", "output":
		default:
			return nil, mongoerr.New(mongoerr.Location(40415), "BSON field '$fill.%s' is an unknown field.", el.Key())
		}
	}
	ov, err := d.LookupErr("output")
	if err != nil {
		return nil, mongoerr.Missing(mongoerr.Location(40414), "$fill.output")
	}
	if ov.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$fill.output' is the wrong type '%s', expected type 'object'", bsonval.TypeName(ov.Type))
	}
	outs := bsonval.Elements(bsoncore.Document(ov.Data))
	if len(outs) == 0 {
		return nil, mongoerr.New(mongoerr.Location(6050203), "The output field in '$fill' must contain an object with at least one element")
	}
	windows, values, nWindows, nValues, err := fillOutputs(outs)
	if err != nil {
		return nil, err
	}
	var stages Pipeline
	if nWindows > 0 {
		spec, err := fillWindowSpec(d, windows)
		if err != nil {
			return nil, err
		}
		s, err := compileSetWindowFields(bsonval.Doc(spec), env)
		if err != nil {
			return nil, err
		}
		stages = append(stages, s)
	}
	if nValues > 0 {
		s, err := CompileStage("$addFields", bsonval.Doc(values), env)
		if err != nil {
			return nil, err
		}
		stages = append(stages, s)
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		return stages.Run(in)
	}, nil
}

// fillOutputs reads $fill's output fields: the $setWindowFields output of
// those with a method, the $addFields of those with a value, and how many
// of each.
func fillOutputs(outs []bsoncore.Element) (windows, values bsoncore.Document, nWindows, nValues int, err error) {
	wb := bsoncore.NewDocumentBuilder()
	vb := bsoncore.NewDocumentBuilder()
	for _, el := range outs {
		field := el.Key()
		if el.Value().Type != bsoncore.TypeEmbeddedDocument {
			return nil, nil, 0, 0, mongoerr.New(mongoerr.Location(6050200), "Each fill output specification must be an object with exactly one field")
		}
		od := bsoncore.Document(el.Value().Data)
		for _, f := range bsonval.Elements(od) {
			if f.Key() != "method" && f.Key() != "value" {
				return nil, nil, 0, 0, mongoerr.New(mongoerr.Location(40415), "BSON field '$fill.%s' is an unknown field.", f.Key())
			}
		}
		m, errM := od.LookupErr("method")
		v, errV := od.LookupErr("value")
		switch {
		case errM == nil && errV == nil:
			return nil, nil, 0, 0, mongoerr.New(mongoerr.Location(6050201), "Each fill output specification must have exactly one of 'method' or 'value' fields, not both")
		case errM == nil:
			if m.Type != bsoncore.TypeString {
				return nil, nil, 0, 0, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$fill.method' is the wrong type '%s', expected type 'string'", bsonval.TypeName(m.Type))
			}
			fn := map[string]string{"locf": "$locf", "linear": "$linearFill"}[m.StringValue()]
			if fn == "" {
				return nil, nil, 0, 0, mongoerr.New(mongoerr.Location(6050202), "Method must be either locf or linear")
			}
			wb.AppendDocument(field, bsoncore.NewDocumentBuilder().AppendString(fn, "$"+field).Build())
			nWindows++
		case errV == nil:
			ifNull := bsoncore.BuildArray(nil, bsonval.String("$"+field), v)
			vb.AppendDocument(field, bsoncore.NewDocumentBuilder().AppendArray("$ifNull", ifNull).Build())
			nValues++
		}
	}
	return wb.Build(), vb.Build(), nWindows, nValues, nil
}

// fillWindowSpec is the $setWindowFields of $fill d, with output windows.
func fillWindowSpec(d, windows bsoncore.Document) (bsoncore.Document, error) {
	spec := bsoncore.NewDocumentBuilder()
	if sv, err := d.LookupErr("sortBy"); err == nil {
		spec.AppendValue("sortBy", sv)
	}
	pv, errP := d.LookupErr("partitionBy")
	fv, errF := d.LookupErr("partitionByFields")
	switch {
	case errP == nil && errF == nil:
		return nil, mongoerr.New(mongoerr.Location(6050204), "Maximum one of 'partitionBy' and 'partitionByFields can be specified in '$fill'")
	case errP == nil:
		spec.AppendValue("partitionBy", pv)
	case errF == nil:
		if fv.Type != bsoncore.TypeArray {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$fill.partitionByFields' is the wrong type '%s', expected type 'array'", bsonval.TypeName(fv.Type))
		}
		by := bsoncore.NewDocumentBuilder()
		for _, f := range bsonval.ArrayValues(fv) {
			if f.Type != bsoncore.TypeString {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$fill.partitionByFields' must hold strings, found %s", bsonval.TypeName(f.Type))
			}
			by.AppendString(f.StringValue(), "$"+f.StringValue())
		}
		spec.AppendDocument("partitionBy", by.Build())
	}
	spec.AppendDocument("output", windows)
	return spec.Build(), nil
}
