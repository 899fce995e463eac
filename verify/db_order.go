package verify

import (
	"go.mongodb.org/mongo-driver/v2/bson"
)

// orderCheck checks the order row on the one read of a collection.
//
// Read sorted by _id (MongoDB), it checks that the expected documents come
// in generation order, as the server sorted them.
//
// Read in natural order (from a server that sorts in memory), it checks the
// same property on the client, without a second, sorted read. The property
// is that a read sorted by _id gives the expected documents in generation
// (or file) order, and it follows from two facts:
//
//  1. Each stored document matched to expected document i has an _id with
//     the key of expected _id i (the lookup that matched it), so it sorts
//     where expected _id i sorts: equal keys are equal under compareIDs
//     (the same type and bytes, or numbers of equal value; long values are
//     keyed by a 120-bit hash, so up to its collisions).
//  2. The expected _ids strictly increase with i under compareIDs, which
//     orders _ids as MongoDB sorts them: Expected.ordered, established when
//     the Expected was built (fixture files and field:NAME collections by
//     compareIDs on every consecutive pair; objectid and int collections
//     by seed's layout, IDOrderBreak).
//
// Strict increase on every consecutive pair gives it on every subsequence,
// compareIDs being a strict weak order (fuzzed), so the matched documents,
// sorted by _id, come in increasing i. What is left to check per document is
// that no two stored documents match the same expected one (the same _id
// under another numeric type, which the unique index on _id refuses on
// every server): a sorted read would give that document twice.
type orderCheck struct {
	prevI  int64 // the expected document read last, plus one (0: none yet)
	prevID bson.RawValue
}

// check records that expected document i, with _id id, is read next in a
// read sorted by _id. id must stay valid until the next call.
func (o *orderCheck) check(row *Row, e *Expected, i int64, id bson.RawValue) {
	prev := o.prevI - 1
	if prev < 0 || i > prev {
		row.Pass()
	} else {
		row.Failf("_id %s (%s) read after _id %s (%s)", show(id), e.src.label(i), show(o.prevID), e.src.label(prev))
	}
	o.prevI, o.prevID = i+1, id
}

// checkNatural records that expected document i, with _id id, was read in
// natural order; twice says a stored document matched it already.
func checkNatural(row *Row, e *Expected, i int64, id bson.RawValue, twice bool) {
	if twice {
		row.Failf("_id %s: %s stored twice, so a read sorted by _id gives it twice", showTyped(id), e.src.label(i))
	} else {
		row.Pass()
	}
}

// order finishes the order row: skipped when the _ids do not follow
// generation order or nothing is expected; otherwise the read checked it.
func (v *dbVerifier) order(st *collState) {
	e, row := st.e, st.rows.order
	switch {
	case !e.ordered:
		row.Skip(e.orderReason)
	case e.Len() == 0:
		row.Skip("no expected documents")
	}
}
