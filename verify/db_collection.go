package verify

import (
	"context"
)

// collection verifies one collection, phase by phase: read it once
// (checking and comparing each document as it comes, the _id order
// included), then the checks that need the whole read: missing documents,
// copies and the details of mismatches, and the ObjectID timestamps on the
// server.
func (v *dbVerifier) collection(ctx context.Context, st *collState) error {
	e := st.e
	st.rows = v.rows(e)
	st.seen = make([]uint64, (e.Len()+63)/64)
	st.unexpected = map[idKey]struct{}{}
	st.coll = v.client.Database(e.DB).Collection(e.Collection)
	// A server that sorts in memory: it is read in natural order, and the order
	// row is checked on that read (orderCheck says why that is the same).
	sorted := !v.opts.Profile.SortsInMemory()
	// The server's conversion of the _ids runs beside the read.
	sc := v.startServerCheck(ctx, st)
	defer sc.stop()
	rd, err := v.read(ctx, st, sorted)
	if err != nil {
		return err
	}
	st.rows.count.Check(st.stored == e.Len(), "%s.%s holds %d documents, expected %d", e.DB, e.Collection, st.stored, e.Len())
	if e.outside != nil {
		v.rep.Note("%s.%s %s; the %d documents of the other parts read were not checked", e.DB, e.Collection, e.outsideDesc, st.othersCount)
	}
	missing := v.missing(st)
	if err := v.details(ctx, st, rd, missing); err != nil {
		return err
	}
	v.order(st)
	if err := v.objectIDs(ctx, st, sc, rd.oidDocs); err != nil {
		return err
	}
	return v.indexes(ctx, st)
}

// missing fails the row of every expected document the read did not find.
// Their _ids are described now when the source has them at hand; the rest
// are returned for the details pass.
func (v *dbVerifier) missing(st *collState) (later []int64) {
	e, row := st.e, st.rows.missing
	var found int64
	for i := range e.Len() {
		if st.seen[i>>6]&(1<<(i&63)) != 0 {
			found++
			continue
		}
		if len(row.Examples) >= MaxExamples || len(later) >= MaxExamples {
			row.Cases++
			row.Mismatches++
			continue
		}
		if id, ok := e.src.id(i); ok {
			row.Failf("%s (_id %s): not in the collection", e.src.label(i), show(id))
		} else {
			later = append(later, i)
		}
	}
	row.Cases += found
	return later
}
