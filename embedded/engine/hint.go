package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// checkHint refuses a hint that names no index of col, as MongoDB does
// (BadValue); a hint on a collection that does not exist is accepted.
func checkHint(col *collection, h bsoncore.Value) error {
	if col == nil {
		return nil
	}
	bad := mongoerr.New(mongoerr.BadValue, "error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index")
	switch h.Type {
	case 0, bsoncore.TypeNull:
		return nil
	case bsoncore.TypeString:
		if h.StringValue() == "_id_" || col.index(h.StringValue()) != nil {
			return nil
		}
		return bad
	case bsoncore.TypeEmbeddedDocument:
		key := bsoncore.Document(h.Data)
		els := bsonval.Elements(key)
		if len(els) == 1 && (els[0].Key() == "$natural" || els[0].Key() == "_id") {
			return nil
		}
		for _, ix := range col.indexes {
			if sameKeyPattern(ix.key, key) {
				return nil
			}
		}
		return bad
	}
	return mongoerr.New(mongoerr.FailedToParse, "hint must be a string or an object, not %s", bsonval.TypeName(h.Type))
}

// sameKeyPattern reports whether two index key patterns name the same
// fields in the same order and directions (1 and 1.0 alike).
func sameKeyPattern(a, b bsoncore.Document) bool {
	ea, eb := bsonval.Elements(a), bsonval.Elements(b)
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		if ea[i].Key() != eb[i].Key() || bsonval.Compare(ea[i].Value(), eb[i].Value()) != 0 {
			return false
		}
	}
	return true
}
