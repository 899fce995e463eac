package seed

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/rules"
)

// Index is the inverse of ID: the number of the document of c whose _id is
// id, and true; false when no document of c has that _id. It answers in
// constant time for the objectid and int strategies, an IDMix's included. An int _id matches
// whatever its numeric type (int32, int64, or a whole double), as the server
// compares numbers by value. uuid and field:NAME _ids are not invertible
// without generating every _id: Index reports false for them, and a caller
// that needs the inverse builds a table from Stream.
func (c *Collection) Index(id bson.RawValue) (int64, bool) {
	n := c.spec.Count
	if n <= 0 {
		return 0, false
	}
	if v, ok := id.ObjectIDOK(); ok {
		if !c.spec.usesID(IDObjectID) {
			return 0, false
		}
		// Bytes 4..11 are one 64-bit number, oidTail(0)+i modulo 2^64 (see
		// ObjectID); the timestamp then confirms the match.
		i := binary.BigEndian.Uint64(v[4:]) - c.oidTail()
		if i >= uint64(n) || c.idKind(int64(i)) != IDObjectID || bson.ObjectID(c.ObjectID(int64(i))) != v {
			return 0, false
		}
		return int64(i), true
	}
	if !c.spec.usesID(IDInt) {
		return 0, false
	}
	v, ok := rules.Integral(id)
	if !ok {
		return 0, false
	}
	if c.idq != nil {
		i, ok := c.idq.index(v)
		if !ok || c.idKind(i) != IDInt {
			return 0, false
		}
		return i, true
	}
	off, step := uint64(v)-uint64(c.spec.IDStart), uint64(c.spec.idStep())
	i := off / step
	if off%step != 0 || i >= uint64(n) || c.idKind(int64(i)) != IDInt {
		return 0, false
	}
	return int64(i), true
}

// oidTail is bytes 4..11 of ObjectID(0) as one number: the 40-bit random
// value over the 24-bit counter, which ObjectID advances by one per document,
// the carry going into the random value.
func (c *Collection) oidTail() uint64 {
	return c.oidRandom<<24 + uint64(c.counterStart)
}

// IDOrderBreak is the first document whose objectid _id does not sort after
// the previous document's, and true; false when the _ids increase with the
// document number. Timestamps never decrease with the number and bytes 4..11
// grow by one per document, so the only break is where those bytes wrap past
// 2^64 between two documents of the same second. int _ids always increase;
// uuid and field:NAME _ids follow no rule of the layout, and report false,
// as collections with an IDMix do (their _ids sort by type first).
func (c *Collection) IDOrderBreak() (int64, bool) {
	if c.spec.ID.Kind != IDObjectID || len(c.spec.IDMix) > 0 || c.spec.Count < 2 {
		return 0, false
	}
	k := int64(-c.oidTail()) // the document whose bytes 4..11 are zero
	if k <= 0 || k >= c.spec.Count || c.unix(k-1) != c.unix(k) {
		return 0, false
	}
	return k, true
}
