package verify

import (
	"context"
	"sync"
)

// collection verifies one collection, phase by phase: read it once (checking and comparing each document as
// it comes), then the checks that need the whole read: missing documents,
// copies and the details of mismatches, the _id order, and the ObjectID
// timestamps on the server.
func (v *dbVerifier) collection(ctx context.Context, st *collState) error {
	e := st.e
	st.rows = v.rows(e)
	st.seen = make([]uint64, (e.Len()+63)/64)
	st.unexpected = map[idKey]struct{}{}
	st.coll = v.client.Database(e.DB).Collection(e.Collection)
	// FerretDB sorts in memory: it is read in natural order, and the order
	// is checked by a separate read of the _ids. That read costs the server
	// as much as the read of the collection (it decodes every document to
	// sort the _ids), so it runs beside it, on another server goroutine,
	// rather than after it. It touches only the order row.
	sorted := !v.opts.FerretDB
	var (
		orderErr error
		ordering sync.WaitGroup
	)
	if !sorted {
		octx, cancel := context.WithCancel(ctx)
		ordering.Go(func() { orderErr = v.order(octx, st, sorted) })
		// On an early return the sorted read is stopped and waited for.
		defer ordering.Wait()
		defer cancel()
	}
	rd, err := v.read(ctx, st, sorted)
	if err != nil {
		return err
	}
	st.rows.count.Check(st.stored == e.Len(), "%s.%s holds %d documents, expected %d", e.DB, e.Collection, st.stored, e.Len())
	missing := v.missing(st)
	if err := v.details(ctx, st, rd, missing); err != nil {
		return err
	}
	if sorted {
		orderErr = v.order(ctx, st, sorted)
	} else {
		ordering.Wait()
	}
	if orderErr != nil {
		return orderErr
	}
	return v.objectIDs(ctx, st, rd.oidDocs)
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
