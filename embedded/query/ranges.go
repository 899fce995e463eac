package query

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// Range is a top-level condition on Path an index can serve: bounds (Lo,
// Hi; Missing: unbounded), or the values of an $in (In).
type Range struct {
	Path           string
	Lo, Hi         bsoncore.Value // missing: unbounded
	LoIncl, HiIncl bool
	In             []bsoncore.Value
	// Exact: the range is the whole filter. A document whose value at
	// Path is one value, not an array, matches exactly when that value
	// lies within the bounds, in their type class: the documents an index
	// on Path finds in the range need no test.
	Exact bool
}

// IndexRanges are the ranges an index can serve (none when scanOnly).
func (f *Filter) IndexRanges() []Range {
	if f == nil || f.scanOnly {
		return nil
	}
	return f.ranges
}

// rangeOf reads the bounds of {$gt, $gte, $lt, $lte} (and $type:
// objectId, the ObjectIDs' bounds) or the values of {$in} on one field,
// when an index scan can serve them.
func rangeOf(path string, ops bsoncore.Document) (Range, bool) {
	rc := Range{Path: path, Exact: true}
	ok := false
	bracket := false // $type: objectId, the bounds of the ObjectIDs
	for _, e := range bsonval.Elements(ops) {
		v := e.Value()
		switch e.Key() {
		case "$gt", "$gte":
			if !Indexable(v) || v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeMinKey || v.Type == bsoncore.TypeMaxKey {
				return rc, false
			}
			rc.Lo, rc.LoIncl, ok = v, e.Key() == "$gte", true
			rc.Exact = rc.Exact && exactBound(v)
		case "$lt", "$lte":
			if !Indexable(v) || v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeMinKey || v.Type == bsoncore.TypeMaxKey {
				return rc, false
			}
			rc.Hi, rc.HiIncl, ok = v, e.Key() == "$lte", true
			rc.Exact = rc.Exact && exactBound(v)
		case "$type":
			bracket = isObjectIDType(v)
			rc.Exact = rc.Exact && bracket
		case "$in":
			rc.Exact = false
			if v.Type != bsoncore.TypeArray {
				return rc, false
			}
			for _, x := range bsonval.ArrayValues(v) {
				if !Indexable(x) {
					return rc, false
				}
				rc.In = append(rc.In, x)
			}
			ok = true
		default:
			rc.Exact = false
		}
	}
	if rc.In != nil && (rc.Lo.Type != 0 || rc.Hi.Type != 0) {
		return rc, false
	}
	if bracket {
		// the ObjectIDs are the values from twelve 0x00 to twelve 0xff
		if rc.Lo.Type == 0 && rc.Hi.Type == 0 {
			rc.Lo = bsoncore.Value{Type: bsoncore.TypeObjectID, Data: make([]byte, 12)}
			rc.Hi = bsoncore.Value{Type: bsoncore.TypeObjectID, Data: bytes.Repeat([]byte{0xff}, 12)}
			rc.LoIncl, rc.HiIncl, ok = true, true, true
		}
		rc.Exact = rc.Exact && (rc.Lo.Type == 0 || rc.Lo.Type == bsoncore.TypeObjectID) && (rc.Hi.Type == 0 || rc.Hi.Type == bsoncore.TypeObjectID)
	}
	rc.Exact = rc.Exact && ok && (rc.Lo.Type == 0 || rc.Hi.Type == 0 || rc.Lo.Type == rc.Hi.Type)
	return rc, ok
}

// exactBound is whether a bound's comparisons are exactly its index
// order: ObjectIDs, strings without a collation and dates (numbers are
// not, for NaN's sake).
func exactBound(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeObjectID, bsoncore.TypeString, bsoncore.TypeDateTime:
		return true
	}
	return false
}

// isObjectIDType is whether a $type argument names the ObjectIDs alone.
func isObjectIDType(v bsoncore.Value) bool {
	if s, ok := v.StringValueOK(); ok {
		return s == "objectId"
	}
	n, ok := bsonval.IntOf(v)
	return ok && n == int64(bsoncore.TypeObjectID)
}
