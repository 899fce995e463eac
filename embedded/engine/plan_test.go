package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// TestIndexScansAgreeWithCollectionScans: for random documents of mixed
// types and random equality, range and $in filters, reading through an
// index (ascending and descending, single and compound) returns exactly
// the documents a collection scan does.
func TestIndexScansAgreeWithCollectionScans(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ixRanges := 0
	vals := []bsoncore.Value{bsonval.Int32(1), bsonval.Int64(2), bsonval.Double(2.5), bsonval.Double(-1), bsonval.String("a"), bsonval.String("b"), bsonval.Null(), bsonval.Bool(true), bsonval.DateTime(5), bsonval.Int32(7)}
	for round := 0; round < 30; round++ {
		st := newStore()
		spec := fmt.Sprintf(`{"key": {"a": %d, "b": 1}}`, []int{1, -1}[round%2])
		if round%3 == 0 {
			spec = fmt.Sprintf(`{"key": {"a": %d}}`, []int{1, -1}[round%2])
		}
		err := st.write(context.Background(), func(tx *tx) error {
			col, _ := tx.mut("d", "c", true)
			if _, err := tx.createIndex(col, ext(t, spec)); err != nil {
				return err
			}
			for i := 0; i < 60; i++ {
				b := bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(i))
				if r.IntN(8) > 0 {
					b.AppendValue("a", vals[r.IntN(len(vals))])
				}
				b.AppendInt32("b", int32(r.IntN(3)))
				if err := tx.putDoc(col, b.Build(), true); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		col := st.view().coll("d", "c")
		for q := 0; q < 40; q++ {
			v := vals[r.IntN(len(vals))]
			w := vals[r.IntN(len(vals))]
			var filter bsoncore.Document
			switch q % 4 {
			case 0:
				filter = bsoncore.NewDocumentBuilder().AppendValue("a", v).Build()
			case 1:
				filter = bsoncore.NewDocumentBuilder().AppendDocument("a", bsoncore.NewDocumentBuilder().AppendValue("$gte", v).Build()).Build()
			case 2:
				filter = bsoncore.NewDocumentBuilder().AppendDocument("a", bsoncore.NewDocumentBuilder().AppendValue("$gt", v).AppendValue("$lte", w).Build()).Build()
			case 3:
				filter = bsoncore.NewDocumentBuilder().AppendDocument("a", bsoncore.NewDocumentBuilder().AppendArray("$in", bsoncore.BuildArray(nil, v, w)).Build()).Build()
			}
			f, err := compileFilter(filter, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, p, err := selectDocs(col, f, nil, 0, 0, func() error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if q%4 != 0 && p.stage == "IXSCAN" {
				ixRanges++
			}
			var want []bsoncore.Document
			col.scan(func(r *record) bool {
				if f.Match(r.doc) {
					want = append(want, r.doc)
				}
				return true
			})
			if len(got) != len(want) {
				t.Fatalf("%s over %s (%s): %d documents, a collection scan finds %d", bsoncore.Document(filter), spec, p.stage, len(got), len(want))
			}
			seen := map[string]bool{}
			for _, d := range got {
				seen[string(d)] = true
			}
			for _, d := range want {
				if !seen[string(d)] {
					t.Fatalf("%s over %s (%s): misses %s", bsoncore.Document(filter), spec, p.stage, d)
				}
			}
		}
	}
	if ixRanges == 0 {
		t.Fatal("no range or $in query read through the index")
	}
}
