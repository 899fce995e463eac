package seed

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
)

// checkIndexes checks the indexes of cs: each valid, every key field one
// the documents have (a dotted path into a template's nested documents),
// and a unique index only on a key holding a field unique by construction
// (the rule of field:NAME _ids, or _id): a seeded unique field must never
// collide.
func checkIndexes(cs *CollectionSpec, fields, unique []string) error {
	bad := func(j int, value string, err error) error {
		e := &PlanError{Collection: cs.Name, Setting: SettingIndexes, Value: value, Err: err}
		e.where = fmt.Sprintf("collection %q: indexes[%d]", cs.Name, j)
		return e
	}
	if err := indexes.ValidateList(cs.Indexes); err != nil {
		var ie *indexes.Error
		j := 0
		if errors.As(err, &ie) {
			for k, ix := range cs.Indexes {
				if ix.NameOrDefault() == ie.Index {
					j = k
				}
			}
		}
		return bad(j, cs.Indexes[j].String(), err)
	}
	for j, ix := range cs.Indexes {
		name := ix.NameOrDefault()
		for _, f := range ix.Fields() {
			if f == "_id" {
				continue
			}
			top, _, nested := strings.Cut(f, ".")
			switch {
			case !slices.Contains(fields, top):
				return bad(j, f, fmt.Errorf("index %q: the documents have no field %q; expected _id or one of %s", name, top, strings.Join(fields, ", ")))
			case nested && cs.Template != nil && !cs.Template.hasPath(f):
				return bad(j, f, fmt.Errorf("index %q: the documents have no field %q (template %s); expected a dotted path to a field of a nested document", name, f, cs.Template.Name()))
			}
		}
		if !ix.Unique {
			continue
		}
		ok := false
		for _, f := range ix.Fields() {
			ok = ok || f == "_id" || slices.Contains(unique, f)
		}
		if ok {
			continue
		}
		hint := "expected a key with _id or one of " + strings.Join(unique, ", ")
		if cs.Template != nil {
			hint = "expected a key with _id or a field whose template value holds {index} between literal text, e.g. \"user{index}@example.com\""
		}
		return bad(j, ix.String(), fmt.Errorf("index %q: unique on %s, which is not unique by construction: a seeded unique field must never collide; %s", name, strings.Join(ix.Fields(), ", "), hint))
	}
	return nil
}

// checkIndexValues checks what only a document shows, on document 0: a
// dotted key path of a kind names a field of its nested documents, and the
// field of a TTL index holds a date (the server ignores any other value, so
// the index would never expire anything).
func (c *Collection) checkIndexValues() error {
	cs := c.spec
	if len(cs.Indexes) == 0 || cs.Count == 0 {
		return nil
	}
	doc := c.Doc(0)
	for j, ix := range cs.Indexes {
		bad := func(value string, format string, args ...any) error {
			e := planErrorf(cs.Name, SettingIndexes, value, "index %q: "+format, append([]any{ix.NameOrDefault()}, args...)...)
			e.where = fmt.Sprintf("collection %q: indexes[%d]", cs.Name, j)
			return e
		}
		for _, f := range ix.Fields() {
			if vals := lookUpPath(doc, f); len(vals) == 0 {
				return bad(f, "the documents have no field %q; expected a dotted path to a field of a nested document", f)
			}
		}
		if ix.ExpireAfterSeconds != nil {
			f := ix.Fields()[0]
			for _, v := range lookUpPath(doc, f) {
				if _, ok := v.(bson.DateTime); !ok {
					return bad(f, "a TTL index expires documents by a date, and %q holds %T; expected a date field such as createdAt", f, v)
				}
			}
		}
	}
	return nil
}

// lookUpPath is the values at a dotted path of doc, through arrays.
func lookUpPath(doc bson.D, path string) []any {
	vals := []any{doc}
	for _, part := range strings.Split(path, ".") {
		var next []any
		for len(vals) > 0 {
			v := vals[0]
			vals = vals[1:]
			switch v := v.(type) {
			case bson.D:
				for _, e := range v {
					if e.Key == part {
						next = append(next, e.Value)
					}
				}
			case bson.A:
				vals = append(vals, v...)
			}
		}
		if len(next) == 0 {
			return nil
		}
		vals = next
	}
	return vals
}
