package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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

// TestIDRangeScansAgreeWithCollectionScans: over _ids of every kind
// (ObjectIDs, strings, numbers with NaN, dates, documents), a range or
// $type on _id read from the documents' own _id order, with the filter
// applied or, where the range is the whole filter, without it, returns
// exactly the documents a collection scan matches.
func TestIDRangeScansAgreeWithCollectionScans(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	oidOf := func(b byte) bsoncore.Value {
		return bsoncore.Value{Type: bsoncore.TypeObjectID, Data: []byte{b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b}}
	}
	ids := []bsoncore.Value{oidOf(0), oidOf(1), oidOf(0x80), oidOf(0xff), bsonval.String(""), bsonval.String("a"), bsonval.String("b"),
		bsonval.Int32(1), bsonval.Int64(2), bsonval.Double(2.5), bsonval.Double(math.NaN()), bsonval.DateTime(5), bsonval.DateTime(-5),
		bsonval.Doc(bsoncore.NewDocumentBuilder().AppendInt32("x", 1).Build()), bsonval.Bool(true)}
	st := newStore()
	err := st.write(context.Background(), func(tx *tx) error {
		col, _ := tx.mut("d", "c", true)
		for i, id := range ids {
			if err := tx.putDoc(col, bsoncore.NewDocumentBuilder().AppendValue("_id", id).AppendInt32("n", int32(i%3)).Build(), true); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	col := st.view().coll("d", "c")
	ops := []string{"$gt", "$gte", "$lt", "$lte"}
	var served, exact int
	for q := 0; q < 400; q++ {
		cond := bsoncore.NewDocumentBuilder()
		switch q % 5 {
		case 0:
			cond.AppendString("$type", "objectId")
		case 1:
			cond.AppendInt32("$type", 7).AppendValue(ops[r.IntN(4)], ids[r.IntN(len(ids))])
		case 2:
			cond.AppendValue(ops[r.IntN(4)], ids[r.IntN(len(ids))])
		default:
			cond.AppendValue(ops[r.IntN(2)], ids[r.IntN(len(ids))]).AppendValue(ops[2+r.IntN(2)], ids[r.IntN(len(ids))])
		}
		if q%7 == 0 {
			cond.AppendValue("$ne", ids[r.IntN(len(ids))])
		}
		fb := bsoncore.NewDocumentBuilder().AppendDocument("_id", cond.Build())
		if q%11 == 0 {
			fb.AppendInt32("n", 1)
		}
		filter := fb.Build()
		f, err := compileFilter(filter, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, rc := range f.IndexRanges() {
			if rc.Exact {
				exact++
			}
		}
		got, p, err := selectDocs(col, f, nil, 0, 0, func() error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if p.index == idIndex {
			served++
		}
		var want []string
		col.scan(func(r *record) bool {
			if f.Match(r.doc) {
				want = append(want, r.doc.String())
			}
			return true
		})
		var have []string
		for _, d := range got {
			have = append(have, d.String())
		}
		slices.Sort(want)
		slices.Sort(have)
		if !slices.Equal(have, want) {
			t.Fatalf("%s (%s): got %v, a collection scan matches %v", filter, p.stage, have, want)
		}
	}
	if served == 0 || exact == 0 {
		t.Fatalf("of 400 filters on _id, %d were read in _id order and %d had an exact range", served, exact)
	}
}
