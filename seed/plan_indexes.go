package seed

// The checks of a plan's indexes that only a built document shows.

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

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
