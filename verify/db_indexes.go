package verify

import (
	"context"

	"github.com/oidkit/oidkit/indexes"
)

// indexes checks that the collection has each expected index, under its
// name, with its key and options (listIndexes; indexes beyond those
// expected are not checked). A missing or different index is a failed case
// naming it.
func (v *dbVerifier) indexes(ctx context.Context, st *collState) error {
	row := st.rows.indexes
	if row == nil {
		return nil
	}
	v.progress(st.e.Collection, "indexes", 0, int64(len(st.e.Indexes)))
	problems, err := indexes.Check(ctx, st.coll, st.e.Indexes)
	if err != nil {
		return err
	}
	for range len(st.e.Indexes) - len(problems) {
		row.Pass()
	}
	for _, p := range problems {
		row.Failf("%s.%s: %s", st.e.DB, st.e.Collection, p)
	}
	return nil
}
