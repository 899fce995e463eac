package bsonval

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// Sort is a compiled sort specification ({a: 1, b: -1}): its fields
// with their directions, and the collation strings compare by.
type Sort struct {
	Keys []SortField
	Coll *Collator // strings compare by it; nil: simple
}

// SortField is one field of a sort or an index key: a dotted path and
// whether it is descending.
type SortField struct {
	Path string
	Desc bool
}

// CompileSort reads a sort specification; each value must be 1 or -1
// ($meta sorts are refused, there is no text search).
func CompileSort(spec bsoncore.Document) (*Sort, error) {
	s := &Sort{}
	for _, e := range Elements(spec) {
		v := e.Value()
		if v.Type == bsoncore.TypeEmbeddedDocument {
			return nil, mongoerr.New(mongoerr.BadValue, "$meta sort is not supported by oidkit's server (it has no text search)")
		}
		if !IsNumber(v) || (NumberFloat(v) != 1 && NumberFloat(v) != -1) {
			return nil, mongoerr.New(mongoerr.Location(15975), "$sort key ordering must be 1 (for ascending) or -1 (for descending)")
		}
		s.Keys = append(s.Keys, SortField{e.Key(), NumberFloat(v) < 0})
	}
	return s, nil
}

// Compare orders documents a and b as the sort does: by each key in turn,
// an array by its least (ascending) or greatest (descending) element.
func (s *Sort) Compare(a, b bsoncore.Document) int {
	for _, k := range s.Keys {
		c := s.Coll.Compare(SortKey(a, k.Path, k.Desc), SortKey(b, k.Path, k.Desc))
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
