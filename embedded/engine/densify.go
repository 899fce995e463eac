package engine

import (
	"slices"
	"strings"

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
	required := func(d bsoncore.Document, k, path string) (bsoncore.Value, error) {
		v, err := d.LookupErr(k)
		if err != nil {
			return v, mongoerr.New(mongoerr.Location(40414), "BSON field '$densify.%s' is missing but a required field", path)
		}
		return v, nil
	}
	wrongType := func(path string, v bsoncore.Value, want string) error {
		return mongoerr.New(mongoerr.TypeMismatch, "BSON field '$densify.%s' is the wrong type '%s', expected type '%s'", path, typeName(v.Type), want)
	}
	fieldPath := func(v bsoncore.Value, path string) (string, error) {
		if v.Type != bsoncore.TypeString {
			return "", wrongType(path, v, "string")
		}
		if strings.HasPrefix(v.StringValue(), "$") {
			return "", mongoerr.New(mongoerr.Location(16410), "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
		return v.StringValue(), nil
	}
	fv, err := required(d, "field", "field")
	if err != nil {
		return nil, err
	}
	field, err := fieldPath(fv, "field")
	if err != nil {
		return nil, err
	}
	var partFields []string
	if pv, err := d.LookupErr("partitionByFields"); err == nil {
		if pv.Type != bsoncore.TypeArray {
			return nil, wrongType("partitionByFields", pv, "array")
		}
		for _, v := range arrayValues(pv) {
			f, err := fieldPath(v, "partitionByFields")
			if err != nil {
				return nil, err
			}
			partFields = append(partFields, f)
		}
	}
	rv, err := required(d, "range", "range")
	if err != nil {
		return nil, err
	}
	if rv.Type != bsoncore.TypeEmbeddedDocument {
		return nil, wrongType("range", rv, "object")
	}
	rd := bsoncore.Document(rv.Data)
	stepV, err := required(rd, "step", "range.step")
	if err != nil {
		return nil, err
	}
	bounds, err := required(rd, "bounds", "range.bounds")
	if err != nil {
		return nil, err
	}
	if !isNumber(stepV) {
		return nil, wrongType("range.step", stepV, "[int, decimal, double, long]")
	}
	if !(numberFloat(stepV) > 0) {
		return nil, mongoerr.New(mongoerr.Location(5733401), "the step parameter in a range statement must be a strictly positive numeric value")
	}
	unit := ""
	if u, err := rd.LookupErr("unit"); err == nil {
		if u.Type != bsoncore.TypeString {
			return nil, wrongType("range.unit", u, "string")
		}
		if unit = u.StringValue(); !isTimeUnit(unit) {
			return nil, mongoerr.New(mongoerr.FailedToParse, "unknown time unit value: %s", unit)
		}
	}
	dateStep, wholeStep := wholeNumber(stepV)
	mode := toStr(bounds)
	var lo, hi bsoncore.Value
	switch {
	case bounds.Type == bsoncore.TypeArray:
		b := arrayValues(bounds)
		if len(b) != 2 {
			return nil, mongoerr.New(mongoerr.Location(5733403), "a bounding array in a range statement must have exactly two elements")
		}
		lo, hi, mode = b[0], b[1], "explicit"
		isDate := func(v bsoncore.Value) bool { return v.Type == bsoncore.TypeDateTime }
		switch {
		case !(isNumber(lo) || isDate(lo)) || !(isNumber(hi) || isDate(hi)) || compareValues(lo, hi) > 0:
			return nil, mongoerr.New(mongoerr.Location(5733402), "the bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates")
		case isDate(lo) != isDate(hi):
			return nil, mongoerr.New(mongoerr.Location(5733406), "a bounding array must contain either both dates or both numeric types")
		case isNumber(lo) && unit != "":
			return nil, mongoerr.New(mongoerr.Location(5733409), "numeric bounds may not have unit parameter")
		case isDate(lo) && unit == "":
			return nil, mongoerr.New(mongoerr.Location(5733410), "date bounds require a unit")
		}
	case mode == "partition" && len(partFields) == 0:
		return nil, mongoerr.New(mongoerr.Location(5733408), "one may not specify the bounds as 'partition' without specifying a non-empty array of partitionByFields. You may have meant to specify 'full' bounds.")
	case mode != "full" && mode != "partition":
		return nil, mongoerr.New(mongoerr.Location(5946802), "the bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates")
	}
	if unit != "" && !wholeStep {
		return nil, mongoerr.New(mongoerr.Location(6586400), "The step parameter in a range satement must be a whole number when densifying a date range")
	}
	// next is the value one step after v: a date plus step units (as
	// $dateAdd adds them, from the value before), or a number plus step.
	next := func(v bsoncore.Value) (bsoncore.Value, error) {
		if v.Type == bsoncore.TypeDateTime {
			if unit == "" {
				return missing, mongoerr.New(mongoerr.Location(5733410), "$densify of dates requires a unit (millisecond to year)")
			}
			ms, ok := addTimeUnit(v.DateTime(), unit, dateStep)
			if !ok {
				return missing, mongoerr.New(mongoerr.Location(5166406), "$dateAdd overflowed")
			}
			return vDate(ms), nil
		}
		if !isNumber(v) || unit != "" {
			return missing, mongoerr.New(mongoerr.Location(5733409), "$densify: the values of %q must be numbers, or dates with a unit; found %s", field, shell(v))
		}
		return arith('+', v, stepV), nil
	}
	return func(in []bsoncore.Document) ([]bsoncore.Document, error) {
		// as MongoDB does, sort by the partition fields then the field
		// (missing as null), and densify each partition's run of documents
		// that hold the field; the others pass through in their place
		key := func(d bsoncore.Document, i int) bsoncore.Value {
			if i < len(partFields) {
				return nullIfMissing(lookup(d, partFields[i]))
			}
			return nullIfMissing(lookup(d, field))
		}
		sorted := slices.Clone(in)
		slices.SortStableFunc(sorted, func(a, b bsoncore.Document) int {
			for i := 0; i <= len(partFields); i++ {
				if c := compareValues(key(a, i), key(b, i)); c != 0 {
					return c
				}
			}
			return 0
		})
		type part struct {
			vals    []bsoncore.Value // the partition fields' values
			without []bsoncore.Document
			docs    []bsoncore.Document
		}
		var parts []*part
		var with []bsoncore.Document
		for _, doc := range sorted {
			vals := make([]bsoncore.Value, len(partFields))
			for i := range partFields {
				vals[i] = key(doc, i)
			}
			var p *part
			if len(parts) > 0 && slices.EqualFunc(parts[len(parts)-1].vals, vals, func(a, b bsoncore.Value) bool { return compareValues(a, b) == 0 }) {
				p = parts[len(parts)-1]
			} else {
				p = &part{vals: vals}
				parts = append(parts, p)
			}
			v := lookup(doc, field)
			switch {
			case nullish(v):
				p.without = append(p.without, doc) // without the field: unchanged
			case unit != "" && v.Type != bsoncore.TypeDateTime, unit == "" && !isNumber(v):
				want := "numeric"
				if unit != "" {
					want = "a date"
				}
				return nil, mongoerr.New(mongoerr.Location(6053600), "Encountered a %s value in the densify field %q; with this range every value must be %s", typeName(v.Type), field, want)
			default:
				p.docs = append(p.docs, doc)
				with = append(with, doc)
			}
		}
		slices.SortStableFunc(with, func(a, b bsoncore.Document) int { return compareValues(lookup(a, field), lookup(b, field)) })
		var out []bsoncore.Document
		flo, fhi := lo, hi
		if mode == "full" && len(with) > 0 {
			flo, fhi = lookup(with[0], field), lookup(with[len(with)-1], field)
		}
		for _, p := range parts {
			out = append(out, p.without...)
			if len(p.docs) == 0 {
				continue
			}
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
