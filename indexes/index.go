package indexes

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// MaxNameLen bounds an index name, in bytes: the limit MongoDB enforced
// before 4.2 (a namespace of 127 bytes), so that a declared index fits
// every server oidkit talks to.
const MaxNameLen = 127

// IDIndexName is the name of the _id index every collection has.
const IDIndexName = "_id_"

// ErrInvalid is matched (errors.Is) by every *Error.
var ErrInvalid = errors.New("invalid index")

// Error is an index declaration that cannot be used.
type Error struct {
	Index   string // the index's name, given or generated; "" when not known yet
	Setting string // "key", "key.email", "name", "unique", "expireAfterSeconds", ...
	Value   string // the offending value, as Extended JSON
	Err     error  // what is wrong and what was expected
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(ErrInvalid.Error())
	if e.Index != "" {
		fmt.Fprintf(&b, " %q", e.Index)
	}
	b.WriteString(": ")
	if e.Setting != "" {
		b.WriteString(e.Setting)
		if e.Value != "" {
			b.WriteString(" ")
			b.WriteString(e.Value)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalid) true.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Index is one index declaration, in the shape of an element of MongoDB's
// createIndexes command. The zero value is not valid: Key needs a field.
type Index struct {
	// Key is ordered: field → int32 1 or -1, or a string index type
	// ("text", "hashed", "2dsphere", "2d").
	Key bson.D
	// Name is the index name; "" means the generated one (see NameOrDefault).
	Name   string
	Unique bool
	Sparse bool
	// ExpireAfterSeconds, when set, makes a TTL index.
	ExpireAfterSeconds *int32
	// PartialFilterExpression, when set, indexes only the documents that
	// match it.
	PartialFilterExpression bson.D
	// Other holds options a server or a sidecar file gave that this type
	// does not model (collation, text weights, ...), kept in order so that
	// List → WriteSidecar → Create loses nothing. Plan files cannot set it.
	Other bson.D
}

// Key types accepted as a key value besides 1 and -1.
var keyTypes = []string{"text", "hashed", "2dsphere", "2d"}

const directionExpected = "expected 1 (ascending), -1 (descending), or \"text\", \"hashed\", \"2dsphere\" or \"2d\""

// NameOrDefault is Name, or when empty the name MongoDB generates for the
// key: each field and its value joined with "_" ("userId_1_createdAt_-1").
func (ix Index) NameOrDefault() string {
	if ix.Name != "" {
		return ix.Name
	}
	return DefaultName(ix.Key)
}

// DefaultName is the name MongoDB generates for an index on key.
func DefaultName(key bson.D) string {
	var b strings.Builder
	for k, e := range key {
		if k > 0 {
			b.WriteByte('_')
		}
		b.WriteString(e.Key)
		b.WriteByte('_')
		switch v := e.Value.(type) {
		case string:
			b.WriteString(v)
		case int32:
			b.WriteString(strconv.Itoa(int(v)))
		default:
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// Fields lists the key's fields, in order.
func (ix Index) Fields() []string {
	out := make([]string, len(ix.Key))
	for k, e := range ix.Key {
		out[k] = e.Key
	}
	return out
}

// Document is the index as one element of createIndexes' "indexes" array,
// and of a sidecar's: key, name, then the options that are set.
func (ix Index) Document() bson.D {
	d := bson.D{{Key: "key", Value: ix.Key}, {Key: "name", Value: ix.NameOrDefault()}}
	if ix.Unique {
		d = append(d, bson.E{Key: "unique", Value: true})
	}
	if ix.Sparse {
		d = append(d, bson.E{Key: "sparse", Value: true})
	}
	if ix.ExpireAfterSeconds != nil {
		d = append(d, bson.E{Key: "expireAfterSeconds", Value: *ix.ExpireAfterSeconds})
	}
	if ix.PartialFilterExpression != nil {
		d = append(d, bson.E{Key: "partialFilterExpression", Value: ix.PartialFilterExpression})
	}
	return append(d, ix.Other...)
}

// String is the index as relaxed Extended JSON, as a plan file writes it.
func (ix Index) String() string { return extJSON(ix.Document()) }

// MarshalJSON writes the index as a plan file does: relaxed Extended JSON.
func (ix Index) MarshalJSON() ([]byte, error) {
	return bson.MarshalExtJSON(ix.Document(), false, false)
}

// UnmarshalJSON reads an index as a plan file does (see ParseJSON).
func (ix *Index) UnmarshalJSON(data []byte) error {
	v, err := ParseJSON(data)
	if err != nil {
		return err
	}
	*ix = v
	return nil
}

func extJSON(v any) string {
	b, err := bson.MarshalExtJSON(v, false, false)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Equal reports whether a and b define the same index: the same name (given
// or generated), key (fields, order and directions) and options.
func Equal(a, b Index) bool { return Diff(a, b) == "" }

// Diff says how b differs from a ("" when they are equal): the first
// setting that differs, with both values.
func Diff(a, b Index) string {
	if an, bn := a.NameOrDefault(), b.NameOrDefault(); an != bn {
		return fmt.Sprintf("name %q, not %q", bn, an)
	}
	if x, y := extJSON(a.Key), extJSON(b.Key); x != y {
		return fmt.Sprintf("key %s, not %s", y, x)
	}
	if a.Unique != b.Unique {
		return fmt.Sprintf("unique %t, not %t", b.Unique, a.Unique)
	}
	if a.Sparse != b.Sparse {
		return fmt.Sprintf("sparse %t, not %t", b.Sparse, a.Sparse)
	}
	ttl := func(p *int32) string {
		if p == nil {
			return "not set"
		}
		return strconv.Itoa(int(*p))
	}
	if x, y := ttl(a.ExpireAfterSeconds), ttl(b.ExpireAfterSeconds); x != y {
		return fmt.Sprintf("expireAfterSeconds %s, not %s", y, x)
	}
	pfe := func(d bson.D) string {
		if d == nil {
			return "not set"
		}
		return extJSON(d)
	}
	if x, y := pfe(a.PartialFilterExpression), pfe(b.PartialFilterExpression); x != y {
		return fmt.Sprintf("partialFilterExpression %s, not %s", y, x)
	}
	if x, y := otherText(a.Other), otherText(b.Other); x != y {
		return fmt.Sprintf("options %s, not %s", y, x)
	}
	return ""
}

// otherText is the extra options in a fixed order: servers list them in
// their own.
func otherText(d bson.D) string {
	if len(d) == 0 {
		return "{}"
	}
	parts := make([]string, len(d))
	for k, e := range d {
		parts[k] = strconv.Quote(e.Key) + ":" + valueText(e.Value)
	}
	for i := 1; i < len(parts); i++ {
		for j := i; j > 0 && parts[j] < parts[j-1]; j-- {
			parts[j], parts[j-1] = parts[j-1], parts[j]
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// Validate checks one index against the rules of the package doc.
func (ix Index) Validate() error {
	name := ix.NameOrDefault()
	bad := func(setting, value, format string, args ...any) error {
		return &Error{Index: name, Setting: setting, Value: value, Err: fmt.Errorf(format, args...)}
	}
	if len(ix.Key) == 0 {
		return bad("key", "{}", "expected at least one field, such as {\"email\": 1}")
	}
	seen := map[string]bool{}
	hashed, plain := 0, true
	for _, e := range ix.Key {
		if err := CheckField(e.Key); err != nil {
			return bad("key", strconv.Quote(e.Key), "%v", err)
		}
		if seen[e.Key] {
			return bad("key", strconv.Quote(e.Key), "field appears twice in the key; expected each field once")
		}
		seen[e.Key] = true
		switch v := e.Value.(type) {
		case int32:
			if v != 1 && v != -1 {
				return bad("key."+e.Key, strconv.Itoa(int(v)), directionExpected)
			}
		case string:
			plain = false
			if !contains(keyTypes, v) {
				return bad("key."+e.Key, strconv.Quote(v), directionExpected)
			}
			if v == "hashed" {
				hashed++
			}
		default:
			return bad("key."+e.Key, valueText(v), directionExpected)
		}
	}
	if hashed > 1 {
		return bad("key", extJSON(ix.Key), "expected at most one hashed field")
	}
	if ix.Unique && !plain {
		return bad("unique", "true", "a unique index needs a key of 1/-1 fields; MongoDB refuses a unique %s index", firstType(ix.Key))
	}
	if ix.Name != "" || len(name) > MaxNameLen {
		if err := checkName(name, ix.Key); err != nil {
			what := "name"
			if ix.Name == "" {
				what = "generated name"
			}
			return bad(what, strconv.Quote(name), "%v", err)
		}
	}
	if ix.ExpireAfterSeconds != nil {
		s := strconv.Itoa(int(*ix.ExpireAfterSeconds))
		switch {
		case *ix.ExpireAfterSeconds < 0:
			return bad("expireAfterSeconds", s, "expected a whole number of seconds from 0 to %d", math.MaxInt32)
		case len(ix.Key) != 1:
			return bad("expireAfterSeconds", s, "a TTL index has one field, a date; the key %s has %d", extJSON(ix.Key), len(ix.Key))
		case ix.Key[0].Key == "_id":
			return bad("expireAfterSeconds", s, "a TTL index cannot be on _id; expected a date field")
		case !plain:
			return bad("expireAfterSeconds", s, "a TTL index needs a 1 or -1 key, not %s", firstType(ix.Key))
		}
	}
	if ix.Sparse && ix.PartialFilterExpression != nil {
		return bad("sparse", "true", "sparse and partialFilterExpression cannot be used together (MongoDB refuses it); expected one of them")
	}
	if len(ix.Key) == 1 && ix.Key[0].Key == "_id" && ix.Key[0].Value == int32(1) && len(ix.Document()) == 2 {
		return bad("key", extJSON(ix.Key), "the _id index always exists; expected another key")
	}
	return nil
}

func firstType(key bson.D) string {
	for _, e := range key {
		if s, ok := e.Value.(string); ok {
			return s
		}
	}
	return ""
}

// CheckField checks one key field: a dotted path of non-empty parts, none
// starting with '$', without NUL.
func CheckField(f string) error {
	if f == "" {
		return errors.New("empty field name; expected a field such as \"email\" or \"address.city\"")
	}
	if strings.IndexByte(f, 0) >= 0 {
		return errors.New("field name holds a NUL byte")
	}
	for _, part := range strings.Split(f, ".") {
		switch {
		case part == "":
			return errors.New("empty part in the dotted path; expected names such as \"address.city\"")
		case part[0] == '$':
			return fmt.Errorf("part %q starts with $; expected a field name (wildcard indexes are not supported)", part)
		}
	}
	return nil
}

func checkName(name string, key bson.D) error {
	switch {
	case name == "":
		return errors.New("expected a non-empty name, or no name for the generated one")
	case len(name) > MaxNameLen:
		return fmt.Errorf("%d bytes; expected at most %d (give a shorter name)", len(name), MaxNameLen)
	case strings.IndexByte(name, 0) >= 0:
		return errors.New("holds a NUL byte")
	case name == "*":
		return errors.New("\"*\" means every index to the server; expected another name")
	case name == IDIndexName:
		return errors.New("_id_ is the name of the _id index, which always exists; expected another name")
	}
	return nil
}

// ValidateList validates each index and the list: no two with one name,
// nor with one key and filter (the server would refuse the second).
func ValidateList(list []Index) error {
	names := map[string]int{}
	keys := map[string]int{}
	for i, ix := range list {
		if err := ix.Validate(); err != nil {
			return err
		}
		name := ix.NameOrDefault()
		if j, dup := names[name]; dup {
			return &Error{Index: name, Setting: "name", Value: strconv.Quote(name), Err: fmt.Errorf("indexes %d and %d have this name; expected distinct names (give one a \"name\")", j, i)}
		}
		names[name] = i
		k := extJSON(ix.Key) + " " + extJSON(ix.PartialFilterExpression)
		if j, dup := keys[k]; dup {
			return &Error{Index: name, Setting: "key", Value: extJSON(ix.Key), Err: fmt.Errorf("index %q has the same key; expected each key once", list[j].NameOrDefault())}
		}
		keys[k] = i
	}
	return nil
}
