package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// compileJSONSchema compiles the common keywords of $jsonSchema: bsonType,
// type, required, properties, enum, minimum, maximum, minLength, maxLength,
// items, additionalProperties.
func compileJSONSchema(v bsoncore.Value) (matcher, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "$jsonSchema must be an object")
	}
	check, err := schemaCheck(bsoncore.Document(v.Data))
	if err != nil {
		return nil, err
	}
	return func(doc bsoncore.Document, _ *int) bool { return check(vDoc(doc)) }, nil
}

// schemaCheck compiles schema s: a test every keyword's check passes.
func schemaCheck(s bsoncore.Document) (func(bsoncore.Value) bool, error) {
	var checks []func(bsoncore.Value) bool
	for _, e := range elements(s) {
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
		vals := arrayValues(a)
		return func(v bsoncore.Value) bool {
			for _, x := range vals {
				if valuesEqual(x, v) {
					return true
				}
			}
			return v.Type == 0
		}, nil
	case "minimum", "maximum":
		return func(v bsoncore.Value) bool {
			if !isNumber(v) {
				return true
			}
			c := compareValues(v, a)
			return (k == "minimum" && c >= 0) || (k == "maximum" && c <= 0)
		}, nil
	case "minLength", "maxLength":
		n := int(numberFloat(a))
		return func(v bsoncore.Value) bool {
			if v.Type != bsoncore.TypeString {
				return true
			}
			l := len([]rune(v.StringValue()))
			return (k == "minLength" && l >= n) || (k == "maxLength" && l <= n)
		}, nil
	case "items":
		return schemaItems(a)
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
		for _, x := range arrayValues(a) {
			names = append(names, toStr(x))
		}
	} else {
		names = []string{toStr(a)}
	}
	return func(v bsoncore.Value) bool {
		if v.Type == 0 {
			return true
		}
		for _, n := range names {
			tn := typeName(v.Type)
			switch {
			case n == tn, n == "number" && isNumber(v), n == "integer" && (v.Type == bsoncore.TypeInt32 || v.Type == bsoncore.TypeInt64),
				n == "boolean" && v.Type == bsoncore.TypeBoolean:
				return true
			}
		}
		return false
	}
}

func schemaRequired(a bsoncore.Value) func(bsoncore.Value) bool {
	req := arrayValues(a)
	return func(v bsoncore.Value) bool {
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return true
		}
		for _, r := range req {
			if _, err := bsoncore.Document(v.Data).LookupErr(toStr(r)); err != nil {
				return false
			}
		}
		return true
	}
}

func schemaProperties(a bsoncore.Value) (func(bsoncore.Value) bool, error) {
	props := map[string]func(bsoncore.Value) bool{}
	for _, p := range elements(bsoncore.Document(a.Data)) {
		c, err := schemaCheck(bsoncore.Document(p.Value().Data))
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

func schemaItems(a bsoncore.Value) (func(bsoncore.Value) bool, error) {
	c, err := schemaCheck(bsoncore.Document(a.Data))
	if err != nil {
		return nil, err
	}
	return func(v bsoncore.Value) bool {
		if v.Type != bsoncore.TypeArray {
			return true
		}
		for _, x := range arrayValues(v) {
			if !c(x) {
				return false
			}
		}
		return true
	}, nil
}

// schemaNoAdditional is additionalProperties: false, a document holding
// only the fields of schema s's properties.
func schemaNoAdditional(s bsoncore.Document) func(bsoncore.Value) bool {
	props, _ := s.LookupErr("properties")
	return func(v bsoncore.Value) bool {
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return true
		}
		for _, f := range elements(bsoncore.Document(v.Data)) {
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
