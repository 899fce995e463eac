package pipeline

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// densifySpec is a compiled $densify.
type densifySpec struct {
	field      string
	partFields []string
	step       bsoncore.Value
	unit       string // dates: the unit of step
	dateStep   int64  // dates: step, a whole number
	mode       string // the bounds: "full", "partition" or "explicit"
	lo, hi     bsoncore.Value
}

// densifyPart is one partition of $densify's documents.
type densifyPart struct {
	vals    []bsoncore.Value // the partition fields' values
	without []bsoncore.Document
	docs    []bsoncore.Document
}

// compileDensify is $densify: for field (numbers, or dates with a unit),
// a document is added, holding the field and the partitionByFields, for
// each step of range.step within range.bounds ("full": the lowest to the
// highest value of all documents; "partition": of each partition; or
// [lower, upper), upper excluded) that no document holds. Documents
// without the field pass through unchanged.
func compileDensify(arg bsoncore.Value, env *Env) (Stage, error) {
	d, err := needDoc("$densify", arg)
	if err != nil {
		return nil, err
	}
	s := &densifySpec{}
	if err := s.parseFields(d); err != nil {
		return nil, err
	}
	if err := s.parseRange(d); err != nil {
		return nil, err
	}
	return s.run, nil
}

func densifyRequired(d bsoncore.Document, k, path string) (bsoncore.Value, error) {
	v, err := d.LookupErr(k)
	if err != nil {
		return v, mongoerr.Missing(mongoerr.Location(40414), "$densify."+path)
	}
	return v, nil
}

func densifyWrongType(path string, v bsoncore.Value, want string) error {
	return mongoerr.New(mongoerr.TypeMismatch, "BSON field '$densify.%s' is the wrong type '%s', expected type '%s'", path, bsonval.TypeName(v.Type), want)
}

func densifyFieldPath(v bsoncore.Value, path string) (string, error) {
	if v.Type != bsoncore.TypeString {
		return "", densifyWrongType(path, v, "string")
	}
	if strings.HasPrefix(v.StringValue(), "$") {
		return "", mongoerr.New(mongoerr.Location(16410), "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
	}
	return v.StringValue(), nil
}

// parseFields reads field and partitionByFields.
func (s *densifySpec) parseFields(d bsoncore.Document) error {
	fv, err := densifyRequired(d, "field", "field")
	if err != nil {
		return err
	}
	if s.field, err = densifyFieldPath(fv, "field"); err != nil {
		return err
	}
	if pv, err := d.LookupErr("partitionByFields"); err == nil {
		if pv.Type != bsoncore.TypeArray {
			return densifyWrongType("partitionByFields", pv, "array")
		}
		for _, v := range bsonval.ArrayValues(pv) {
			f, err := densifyFieldPath(v, "partitionByFields")
			if err != nil {
				return err
			}
			s.partFields = append(s.partFields, f)
		}
	}
	return nil
}

// parseRange reads range: step, unit and bounds.
func (s *densifySpec) parseRange(d bsoncore.Document) error {
	rv, err := densifyRequired(d, "range", "range")
	if err != nil {
		return err
	}
	if rv.Type != bsoncore.TypeEmbeddedDocument {
		return densifyWrongType("range", rv, "object")
	}
	rd := bsoncore.Document(rv.Data)
	if s.step, err = densifyRequired(rd, "step", "range.step"); err != nil {
		return err
	}
	bounds, err := densifyRequired(rd, "bounds", "range.bounds")
	if err != nil {
		return err
	}
	if !bsonval.IsNumber(s.step) {
		return densifyWrongType("range.step", s.step, "[int, decimal, double, long]")
	}
	if !(bsonval.NumberFloat(s.step) > 0) {
		return mongoerr.New(mongoerr.Location(5733401), "the step parameter in a range statement must be a strictly positive numeric value")
	}
	if u, err := rd.LookupErr("unit"); err == nil {
		if u.Type != bsoncore.TypeString {
			return densifyWrongType("range.unit", u, "string")
		}
		if s.unit = u.StringValue(); !bsonval.IsTimeUnit(s.unit) {
			return mongoerr.New(mongoerr.FailedToParse, "unknown time unit value: %s", s.unit)
		}
	}
	dateStep, wholeStep := wholeNumber(s.step)
	s.dateStep = dateStep
	if err := s.parseBounds(bounds); err != nil {
		return err
	}
	if s.unit != "" && !wholeStep {
		return mongoerr.New(mongoerr.Location(6586400), "The step parameter in a range statement must be a whole number when densifying a date range")
	}
	return nil
}

// parseBounds reads range.bounds: "full", "partition", or [lower, upper].
func (s *densifySpec) parseBounds(bounds bsoncore.Value) error {
	s.mode = bsonval.Text(bounds)
	switch {
	case bounds.Type == bsoncore.TypeArray:
		b := bsonval.ArrayValues(bounds)
		if len(b) != 2 {
			return mongoerr.New(mongoerr.Location(5733403), "a bounding array in a range statement must have exactly two elements")
		}
		lo, hi := b[0], b[1]
		s.lo, s.hi, s.mode = lo, hi, "explicit"
		isDate := func(v bsoncore.Value) bool { return v.Type == bsoncore.TypeDateTime }
		switch {
		case !(bsonval.IsNumber(lo) || isDate(lo)) || !(bsonval.IsNumber(hi) || isDate(hi)) || bsonval.Compare(lo, hi) > 0:
			return mongoerr.New(mongoerr.Location(5733402), "the bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates")
		case isDate(lo) != isDate(hi):
			return mongoerr.New(mongoerr.Location(5733406), "a bounding array must contain either both dates or both numeric types")
		case bsonval.IsNumber(lo) && s.unit != "":
			return mongoerr.New(mongoerr.Location(5733409), "numeric bounds may not have unit parameter")
		case isDate(lo) && s.unit == "":
			return mongoerr.New(mongoerr.Location(5733410), "date bounds require a unit")
		}
	case s.mode == "partition" && len(s.partFields) == 0:
		return mongoerr.New(mongoerr.Location(5733408), "one may not specify the bounds as 'partition' without specifying a non-empty array of partitionByFields. You may have meant to specify 'full' bounds.")
	case s.mode != "full" && s.mode != "partition":
		return mongoerr.New(mongoerr.Location(5946802), "the bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates")
	}
	return nil
}

// next is the value one step after v: a date plus step units (as
// $dateAdd adds them, from the value before), or a number plus step.
func (s *densifySpec) next(v bsoncore.Value) (bsoncore.Value, error) {
	if v.Type == bsoncore.TypeDateTime {
		if s.unit == "" {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5733410), "$densify of dates requires a unit (millisecond to year)")
		}
		ms, ok := bsonval.AddTimeUnit(v.DateTime(), s.unit, s.dateStep)
		if !ok {
			return bsonval.Missing, mongoerr.New(mongoerr.Location(5166406), "$dateAdd overflowed")
		}
		return bsonval.DateTime(ms), nil
	}
	if !bsonval.IsNumber(v) || s.unit != "" {
		return bsonval.Missing, mongoerr.New(mongoerr.Location(5733409), "$densify: the values of '%s' must be numbers, or dates with a unit; found %s", s.field, bsonval.Shell(v))
	}
	return bsonval.Arith('+', v, s.step), nil
}

// key is the i-th sort key of d: a partition field's value, then (i
// past them) the field's, missing as null.
func (s *densifySpec) key(d bsoncore.Document, i int) bsoncore.Value {
	if i < len(s.partFields) {
		return nullIfMissing(bsonval.Lookup(d, s.partFields[i]))
	}
	return nullIfMissing(bsonval.Lookup(d, s.field))
}

func (s *densifySpec) run(in []bsoncore.Document) ([]bsoncore.Document, error) {
	parts, with, err := s.partition(in)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(with, func(a, b bsoncore.Document) int {
		return bsonval.Compare(bsonval.Lookup(a, s.field), bsonval.Lookup(b, s.field))
	})
	var out []bsoncore.Document
	flo, fhi := s.lo, s.hi
	if s.mode == "full" && len(with) > 0 {
		flo, fhi = bsonval.Lookup(with[0], s.field), bsonval.Lookup(with[len(with)-1], s.field)
	}
	for _, p := range parts {
		out = append(out, p.without...)
		if len(p.docs) == 0 {
			continue
		}
		start, end := flo, fhi
		if s.mode == "partition" {
			start, end = bsonval.Lookup(p.docs[0], s.field), bsonval.Lookup(p.docs[len(p.docs)-1], s.field)
		}
		if out, err = s.fill(out, p, start, end); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// partition splits in into its partitions, and returns them and the
// documents that hold the field.
func (s *densifySpec) partition(in []bsoncore.Document) ([]*densifyPart, []bsoncore.Document, error) {
	// as MongoDB does, sort by the partition fields then the field
	// (missing as null), and densify each partition's run of documents
	// that hold the field; the others pass through in their place
	sorted := slices.Clone(in)
	slices.SortStableFunc(sorted, func(a, b bsoncore.Document) int {
		for i := 0; i <= len(s.partFields); i++ {
			if c := bsonval.Compare(s.key(a, i), s.key(b, i)); c != 0 {
				return c
			}
		}
		return 0
	})
	var parts []*densifyPart
	var with []bsoncore.Document
	for _, doc := range sorted {
		vals := make([]bsoncore.Value, len(s.partFields))
		for i := range s.partFields {
			vals[i] = s.key(doc, i)
		}
		var p *densifyPart
		if len(parts) > 0 && slices.EqualFunc(parts[len(parts)-1].vals, vals, func(a, b bsoncore.Value) bool { return bsonval.Compare(a, b) == 0 }) {
			p = parts[len(parts)-1]
		} else {
			p = &densifyPart{vals: vals}
			parts = append(parts, p)
		}
		v := bsonval.Lookup(doc, s.field)
		switch {
		case expr.Nullish(v):
			p.without = append(p.without, doc) // without the field: unchanged
		case s.unit != "" && v.Type != bsoncore.TypeDateTime, s.unit == "" && !bsonval.IsNumber(v):
			want := "numeric"
			if s.unit != "" {
				want = "a date"
			}
			return nil, nil, mongoerr.New(mongoerr.Location(6053600), "Encountered a %s value in the densify field '%s'; with this range every value must be %s", bsonval.TypeName(v.Type), s.field, want)
		default:
			p.docs = append(p.docs, doc)
			with = append(with, doc)
		}
	}
	return parts, with, nil
}

// fill appends to out the documents of p that hold the field, in order,
// and one for each step from start to end that none of them holds.
func (s *densifySpec) fill(out []bsoncore.Document, p *densifyPart, start, end bsoncore.Value) ([]bsoncore.Document, error) {
	inclusive := s.mode != "explicit"
	k := 0
	for v, n := start, 0; ; n++ {
		if n > 1_000_000 {
			return nil, mongoerr.New(mongoerr.Location(5897900), "$densify would add more than 1,000,000 documents to one partition")
		}
		c := bsonval.Compare(v, end)
		if c > 0 || c == 0 && !inclusive {
			break
		}
		for k < len(p.docs) && bsonval.Compare(bsonval.Lookup(p.docs[k], s.field), v) < 0 {
			out = append(out, p.docs[k])
			k++
		}
		if k < len(p.docs) && bsonval.Compare(bsonval.Lookup(p.docs[k], s.field), v) == 0 {
			for k < len(p.docs) && bsonval.Compare(bsonval.Lookup(p.docs[k], s.field), v) == 0 {
				out = append(out, p.docs[k])
				k++
			}
		} else {
			md := bsonval.MutableDoc(bsoncore.NewDocumentBuilder().Build())
			for i, f := range s.partFields {
				setMPath(md, f, bsonval.Mutable(p.vals[i]))
			}
			setMPath(md, s.field, bsonval.Mutable(v))
			out = append(out, md.Build())
		}
		nv, err := s.next(v)
		if err != nil {
			return nil, err
		}
		v = nv
	}
	return append(out, p.docs[k:]...), nil
}
