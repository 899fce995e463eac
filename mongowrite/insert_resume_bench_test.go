package mongowrite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/seed"
)

// BenchmarkResumeDuplicates is a resumed run whose first batches were
// already stored (as after a kill: the batches in flight are sent again),
// beside the same run into an empty collection: the duplicates told from
// the stored documents by one read of the collection (ReadStored, what
// FerretDB gets) and by a query of each batch's duplicates.
func BenchmarkResumeDuplicates(b *testing.B) {
	const n, there = 20000, 2000
	_, client := server(b, b.TempDir())
	c := benchCollection(b, seed.KindUser, n)
	for _, v := range []struct {
		name          string
		resume, read  bool
		alreadyStored int64
	}{{"empty", false, false, 0}, {"resume-read-once", true, true, there}, {"resume-query-per-batch", true, false, there}} {
		b.Run(v.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				coll := client.Database(fmt.Sprintf("bench_%s_%d", v.name, i)).Collection("users")
				if v.alreadyStored > 0 {
					if _, err := mongowrite.Insert(context.Background(), coll, c, mongowrite.InsertOptions{Ranges: []parts.Range{{From: 0, To: v.alreadyStored}}}); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				res, err := mongowrite.Insert(context.Background(), coll, c, mongowrite.InsertOptions{Workers: 1, Resume: v.resume, ReadStored: v.read})
				if err != nil || res.Skipped != v.alreadyStored {
					b.Fatalf("%+v, %v", res, err)
				}
			}
		})
	}
}
