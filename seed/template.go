package seed

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// ErrTemplate is matched (errors.Is) by every template error, which is a
// *TemplateError.
var ErrTemplate = errors.New("invalid template")

// TemplateError is a template that cannot be used: the file, where in it (a
// JSON path such as $.address.city, "" when the file could not be read) and
// the cause.
type TemplateError struct {
	Name string // the file name, as given
	Path string // the JSON path of the offending value
	Err  error
}

func (e *TemplateError) Error() string {
	if e.Path == "" {
		return ErrTemplate.Error() + ": " + e.Err.Error()
	}
	return ErrTemplate.Error() + ": " + e.Name + ": " + e.Path + ": " + e.Err.Error()
}

func (e *TemplateError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrTemplate) true.
func (e *TemplateError) Is(target error) bool { return target == ErrTemplate }

// Template is a parsed template file: a JSON object whose string values may
// hold gofakeit placeholders such as {firstname} or {number:1,100}, and
// {index}, the document number. Objects and arrays nest. Text outside
// placeholders is kept as written.
//
// A string that is exactly one placeholder of a numeric or boolean gofakeit
// function ({number:1,100}, {bool}, {float64range:1,9}) or exactly {index}
// becomes a number or a boolean; every other string stays a string. JSON
// integers become int32 (int64 when they do not fit), other numbers float64.
type Template struct {
	name   string
	root   *tnode
	fields []string
	// indexed holds the top-level fields whose value is a string from which
	// {index} can be read back (uniquePattern): unique by construction, so
	// usable as field:NAME _id and in a unique index.
	indexed map[string]bool
	// unstable lists placeholders (with their paths) whose values do not
	// follow from the seed alone; a seeded plan refuses them.
	unstable []string
}

type tkind int

const (
	tConst tkind = iota
	tObject
	tArray
	tPattern
	tShape // a shape object (template_shape.go)
)

type tnode struct {
	kind     tkind
	value    any      // tConst
	keys     []string // tObject
	children []*tnode // tObject, tArray
	parts    []tpart  // tPattern
	typed    string   // tPattern of one placeholder: "int", "float", "bool" or ""
	shape    *tshape  // tShape
}

type tpart struct {
	lit   string // literal text, when ph is empty and !index
	ph    string // a placeholder with its braces, passed to gofakeit
	index bool
	gen   *tgen // one of oidkit's own placeholders (ph holds its text)
}

// ParseTemplate parses a template; name is used in error messages. Every
// placeholder is tried once with gofakeit, so a bad one is reported here, with
// its JSON path, before anything is generated.
func ParseTemplate(name string, data []byte) (*Template, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &tparser{dec: dec, name: name, probe: gofakeit.New(1)}
	tok, err := dec.Token()
	if err != nil {
		return nil, p.errf("$", "expected a JSON object: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, p.errf("$", "expected a JSON object at the top, got %v", tok)
	}
	root, err := p.object("$")
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, p.errf("$", "unexpected data after the top-level object")
	}
	t := &Template{name: name, root: root, indexed: map[string]bool{}}
	for k, ph := range p.unstable {
		t.unstable = append(t.unstable, p.paths[k]+": "+ph)
	}
	for k, key := range root.keys {
		if key == "_id" {
			return nil, p.errf("$._id", "the _id is set by the collection's _id strategy; remove it from the template")
		}
		t.fields = append(t.fields, key)
		if c := root.children[k]; (c.kind == tPattern && uniquePattern(c.parts)) || uniqueShape(c) {
			t.indexed[key] = true
		}
	}
	return t, nil
}

// uniquePattern reports whether a string pattern gives every document a
// different value: the document number i can be read back from the value.
// That holds when an {index} has only literal text on one side up to the
// end of the value, and on the other side the end of the value or a literal
// non-digit character: its digits are then the whole run of digits there.
// "REV-{index}", "user{index}@example.com" and "{firstname}.{index}@x.org"
// qualify; "{number:1,100}{index}" does not (1 then 11 and 11 then 1 both
// give "111").
func uniquePattern(parts []tpart) bool {
	literal := func(ps []tpart) bool {
		for _, p := range ps {
			if p.index || p.ph != "" {
				return false
			}
		}
		return true
	}
	nonDigit := func(p tpart, last bool) bool {
		if p.index || p.ph != "" || p.lit == "" {
			return false
		}
		c := p.lit[0]
		if last {
			c = p.lit[len(p.lit)-1]
		}
		return c < '0' || c > '9'
	}
	for k, p := range parts {
		if !p.index {
			continue
		}
		before := k == 0 || nonDigit(parts[k-1], true)
		after := k == len(parts)-1 || nonDigit(parts[k+1], false)
		if (literal(parts[k+1:]) && before) || (literal(parts[:k]) && after) {
			return true
		}
	}
	return false
}

// Name is the file name the template was read from.
func (t *Template) Name() string { return t.name }

// topFields lists the template's top-level fields in order.
func (t *Template) topFields() []string { return append([]string(nil), t.fields...) }

// build returns the document value of n for document i.
func (n *tnode) build(f *gofakeit.Faker, i int64, sb *strings.Builder) any {
	switch n.kind {
	case tObject:
		d := make(bson.D, 0, len(n.keys))
		for k, key := range n.keys {
			if v := n.children[k].build(f, i, sb); v != (missingValue{}) {
				d = append(d, bson.E{Key: key, Value: v})
			}
		}
		return d
	case tArray:
		a := make(bson.A, 0, len(n.children))
		for _, c := range n.children {
			if v := c.build(f, i, sb); v != (missingValue{}) {
				a = append(a, v)
			}
		}
		return a
	case tShape:
		return n.shape.build(f, i, sb)
	case tPattern:
		if len(n.parts) == 1 && n.parts[0].gen != nil {
			return n.parts[0].gen.value(f)
		}
		sb.Reset()
		for _, part := range n.parts {
			switch {
			case part.index:
				sb.WriteString(strconv.FormatInt(i, 10))
			case part.gen != nil:
				part.gen.appendText(sb, f)
			case part.ph != "":
				out, err := f.Generate(part.ph)
				if err == nil {
					sb.WriteString(out)
				}
			default:
				sb.WriteString(part.lit)
			}
		}
		if n.typed != "" {
			if v, err := typedValue(n.typed, sb.String()); err == nil {
				return v
			}
		}
		return sb.String()
	}
	return n.value
}
