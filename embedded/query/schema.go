package query

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// compileJSONSchema compiles the common keywords of $jsonSchema: bsonType,
// type, required, properties, enum, minimum, maximum, minLength, maxLength,
// items (a schema, or an array of them with additionalItems),
// additionalProperties.
func compileJSONSchema(v bsoncore.Value) (matcher, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "$jsonSchema must be an object")
	}
	check, err := CompileSchema(bsoncore.Document(v.Data))
	if err != nil {
		return nil, err
	}
	return func(doc bsoncore.Document, _ *int) bool { return check(bsonval.Doc(doc)) }, nil
}

// CompileSchema compiles a $jsonSchema document s into a test of a value:
// every keyword's check passes.
func CompileSchema(s bsoncore.Document) (func(bsoncore.Value) bool, error) {
	var checks []func(bsoncore.Value) bool
	for _, e := range bsonval.Elements(s) {
		c, err := schemaKeyword(s, e.Key(), e.Value())
		if err != nil {
			return nil, err
		}
		if c != nil {
			checks = append(checks, c)
		}
	}
	return func(v bsoncore.Value) bool {
		for _, c := range checks {
			if !c(v) {
				return false
			}
		}
		return true
	}, nil
}

// schemaKeyword compiles keyword k of schema s, with argument a; nil for
// a keyword that checks nothing.
func schemaKeyword(s bsoncore.Document, k string, a bsoncore.Value) (func(bsoncore.Value) bool, error) {
	switch k {
	case "bsonType", "type":
		return schemaType(a), nil
	case "required":
		return schemaRequired(a), nil
	case "properties":
		return schemaProperties(a)
	case "enum":
		vals := bsonval.ArrayValues(a)
		return func(v bsoncore.Value) bool {
			for _, x := range vals {
				if bsonval.Equal(x, v) {
					return true
				}
			}
			return v.Type == 0
		}, nil
	case "minimum", "maximum":
		return func(v bsoncore.Value) bool {
			if !bsonval.IsNumber(v) {
				return true
			}
			c := bsonval.Compare(v, a)
			return (k == "minimum" && c >= 0) || (k == "maximum" && c <= 0)
		}, nil
	case "minLength", "maxLength":
		n := int(bsonval.NumberFloat(a))
		return func(v bsoncore.Value) bool {
			if v.Type != bsoncore.TypeString {
				return true
			}
			l := len([]rune(v.StringValue()))
			return (k == "minLength" && l >= n) || (k == "maxLength" && l <= n)
		}, nil
	case "items":
		return schemaItems(s, a)
	case "additionalItems":
		if a.Type != bsoncore.TypeBoolean && a.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "$jsonSchema keyword 'additionalItems' must be either an object or a boolean, but got a(n) %s", bsonval.TypeName(a.Type))
		}
		return nil, nil // read with items, whose array form it completes
	case "additionalProperties":
		if a.Type == bsoncore.TypeBoolean && !a.Boolean() {
			return schemaNoAdditional(s), nil
		}
		return nil, nil
	case "description", "title":
		return nil, nil
	}
	return nil, mongoerr.New(mongoerr.FailedToParse, "$jsonSchema keyword '%s' is not supported by oidkit's server", k)
}

// schemaType is bsonType and type: a value missing, or of one of the
// types a names.
func schemaType(a bsoncore.Value) func(bsoncore.Value) bool {
	var names []string
	if a.Type == bsoncore.TypeArray {
		for _, x := range bsonval.ArrayValues(a) {
			names = append(names, bsonval.Text(x))
		}
	} else {
		names = []string{bsonval.Text(a)}
	}
	return func(v bsoncore.Value) bool {
		if v.Type == 0 {
			return true
		}
		for _, n := range names {
			tn := bsonval.TypeName(v.Type)
			switch {
			case n == tn, n == "number" && bsonval.IsNumber(v), n == "integer" && (v.Type == bsoncore.TypeInt32 || v.Type == bsoncore.TypeInt64),
				n == "boolean" && v.Type == bsoncore.TypeBoolean:
				return true
			}
		}
		return false
	}
}

func schemaRequired(a bsoncore.Value) func(bsoncore.Value) bool {
	req := bsonval.ArrayValues(a)
	return func(v bsoncore.Value) bool {
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return true
		}
		for _, r := range req {
			if _, err := bsoncore.Document(v.Data).LookupErr(bsonval.Text(r)); err != nil {
				return false
			}
		}
		return true
	}
}

func schemaProperties(a bsoncore.Value) (func(bsoncore.Value) bool, error) {
	props := map[string]func(bsoncore.Value) bool{}
	for _, p := range bsonval.Elements(bsoncore.Document(a.Data)) {
		c, err := CompileSchema(bsoncore.Document(p.Value().Data))
		if err != nil {
			return nil, err
		}
		props[p.Key()] = c
	}
	return func(v bsoncore.Value) bool {
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return true
		}
		for name, c := range props {
			f, err := bsoncore.Document(v.Data).LookupErr(name)
			if err == nil && !c(f) {
				return false
			}
		}
		return true
	}, nil
}

// schemaItems is items: a schema every element of an array matches, or
// an array of schemas (a tuple), each for the element at its position;
// the elements past the tuple match additionalItems (a schema, or false
// for none), the schema s's.
func schemaItems(s bsoncore.Document, a bsoncore.Value) (func(bsoncore.Value) bool, error) {
	var tuple []func(bsoncore.Value) bool
	switch a.Type {
	case bsoncore.TypeEmbeddedDocument:
		c, err := CompileSchema(bsoncore.Document(a.Data))
		if err != nil {
			return nil, err
		}
		return schemaElements(nil, c), nil
	case bsoncore.TypeArray:
	default:
		return nil, mongoerr.New(mongoerr.TypeMismatch, "$jsonSchema keyword 'items' must be an array or an object, not %s", bsonval.TypeName(a.Type))
	}
	for _, x := range bsonval.ArrayValues(a) {
		if x.Type != bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.TypeMismatch, "$jsonSchema keyword 'items' requires that each element of the array is an object, but found a %s", bsonval.TypeName(x.Type))
		}
		c, err := CompileSchema(bsoncore.Document(x.Data))
		if err != nil {
			return nil, err
		}
		tuple = append(tuple, c)
	}
	rest := func(bsoncore.Value) bool { return true }
	switch ai := bsonval.Lookup(s, "additionalItems"); ai.Type {
	case bsoncore.TypeBoolean:
		rest = func(bsoncore.Value) bool { return ai.Boolean() }
	case bsoncore.TypeEmbeddedDocument:
		c, err := CompileSchema(bsoncore.Document(ai.Data))
		if err != nil {
			return nil, err
		}
		rest = c
	}
	return schemaElements(tuple, rest), nil
}

// schemaElements is the test of an array (any other value passes): its
// element i matches tuple[i], each element past them matches rest.
func schemaElements(tuple []func(bsoncore.Value) bool, rest func(bsoncore.Value) bool) func(bsoncore.Value) bool {
	return func(v bsoncore.Value) bool {
		if v.Type != bsoncore.TypeArray {
			return true
		}
		for i, x := range bsonval.ArrayValues(v) {
			c := rest
			if i < len(tuple) {
				c = tuple[i]
			}
			if !c(x) {
				return false
			}
		}
		return true
	}
}

// schemaNoAdditional is additionalProperties: false, a document holding
// only the fields of schema s's properties.
func schemaNoAdditional(s bsoncore.Document) func(bsoncore.Value) bool {
	props, _ := s.LookupErr("properties")
	return func(v bsoncore.Value) bool {
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return true
		}
		for _, f := range bsonval.Elements(bsoncore.Document(v.Data)) {
			if props.Type != bsoncore.TypeEmbeddedDocument {
				return false
			}
			if _, err := bsoncore.Document(props.Data).LookupErr(f.Key()); err != nil {
				return false
			}
		}
		return true
	}
}
