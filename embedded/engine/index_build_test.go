package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// buildDocs makes n documents of mixed shapes: values of several types on
// "a", sometimes missing or null, arrays of them on "tags" (one document
// in a hundred), and a nested "s.x".
func buildDocs(n int) []bsoncore.Document {
	r := rand.New(rand.NewPCG(3, 4))
	vals := []bsoncore.Value{bsonval.Int32(1), bsonval.Int64(2), bsonval.Double(2.5), bsonval.Double(-1), bsonval.String("a"), bsonval.String("b"), bsonval.Null(), bsonval.Bool(true), bsonval.DateTime(5)}
	docs := make([]bsoncore.Document, n)
	for i := range docs {
		b := bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(i))
		if r.IntN(10) > 0 {
			b.AppendValue("a", vals[r.IntN(len(vals))])
		}
		if i%100 == 7 {
			b.AppendArray("tags", bsoncore.BuildArray(nil, vals[r.IntN(len(vals))], vals[r.IntN(len(vals))]))
		} else {
			b.AppendValue("tags", vals[r.IntN(len(vals))])
		}
		b.AppendDocument("s", bsoncore.NewDocumentBuilder().AppendInt32("x", int32(r.IntN(50))).Build())
		docs[i] = b.Build()
	}
	return docs
}

// indexEntries lists an index's entries in its order, as "key…|_id".
func indexEntries(col *collection, name string) []string {
	var out []string
	for _, ix := range col.indexes {
		if ix.name != name {
			continue
		}
		ix.tree.Scan(func(e ientry) bool {
			var parts []string
			for _, v := range e.vals {
				parts = append(parts, v.String())
			}
			out = append(out, strings.Join(parts, ",")+"|"+e.id.String())
			return true
		})
	}
	return out
}

// An index built over stored documents (split across CPUs, sorted and
// merged) holds exactly the entries, in the same order, as the same index
// kept up while the documents were inserted one by one: single, dotted,
// compound, descending, multikey, sparse and partial indexes.
func TestIndexBuiltAfterEqualsIndexKeptUp(t *testing.T) {
	docs := buildDocs(3*buildMinDocs + 17)
	specs := []string{
		`{"key": {"a": 1}, "name": "a"}`,
		`{"key": {"a": -1}, "name": "a_desc", "sparse": true}`,
		`{"key": {"tags": 1}, "name": "tags"}`,
		`{"key": {"s.x": 1, "a": -1}, "name": "sx_a"}`,
		`{"key": {"a": 1, "tags": -1}, "name": "a_tags", "partialFilterExpression": {"s.x": {"$gte": 25}}}`,
	}
	load := func(before bool) *collection {
		st := newStore()
		err := st.write(context.Background(), func(tx *tx) error {
			col, _ := tx.mut("d", "c", true)
			if before {
				for _, s := range specs {
					if _, err := tx.createIndex(col, ext(t, s)); err != nil {
						return err
					}
				}
			}
			for _, d := range docs {
				if err := tx.putDoc(col, d, true); err != nil {
					return err
				}
			}
			if !before {
				for _, s := range specs {
					if _, err := tx.createIndex(col, ext(t, s)); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return st.view().coll("d", "c")
	}
	kept, built := load(true), load(false)
	for _, s := range []string{"a", "a_desc", "tags", "sx_a", "a_tags"} {
		want, got := indexEntries(kept, s), indexEntries(built, s)
		if len(want) == 0 {
			t.Fatalf("index %s kept up holds no entries", s)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("index %s: built after the documents, %d entries; kept up, %d (or in another order)", s, len(got), len(want))
		}
	}
	for _, ix := range built.indexes {
		if want := strings.Contains(ix.name, "tags"); ix.multikey != want {
			t.Errorf("index %s built over stored documents: multikey %v, want %v", ix.name, ix.multikey, want)
		}
	}
}

// A unique index over stored documents whose only clash is between the
// first and the last part of the build is refused with E11000 naming the
// value; a compound index meeting parallel arrays in the last part is
// refused with 171; neither leaves an index behind.
func TestIndexBuildRefusesAcrossParts(t *testing.T) {
	n := 3 * buildMinDocs
	for _, c := range []struct {
		spec string
		last bsoncore.Document
		code mongoerr.Code
		msg  string
	}{
		{`{"key": {"u": 1}, "name": "u", "unique": true}`, bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(n)).AppendString("u", "u5").Build(), mongoerr.DuplicateKey, `dup key: { u: "u5" }`},
		{`{"key": {"x": 1, "y": 1}, "name": "xy"}`, bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(n)).AppendArray("x", bsoncore.BuildArray(nil, bsonval.Int32(1), bsonval.Int32(2))).AppendArray("y", bsoncore.BuildArray(nil, bsonval.Int32(1), bsonval.Int32(2))).Build(), 171, "cannot index parallel arrays"},
	} {
		st := newStore()
		err := st.write(context.Background(), func(tx *tx) error {
			col, _ := tx.mut("d", "c", true)
			for i := range n {
				d := bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(i)).AppendString("u", fmt.Sprint("u", i)).AppendInt32("x", int32(i)).Build()
				if err := tx.putDoc(col, d, true); err != nil {
					return err
				}
			}
			if err := tx.putDoc(col, c.last, true); err != nil {
				return err
			}
			_, err := tx.createIndex(col, ext(t, c.spec))
			if len(col.indexes) != 0 {
				t.Errorf("%s: a refused build left %d indexes", c.spec, len(col.indexes))
			}
			return err
		})
		var me *mongoerr.Error
		if !errors.As(err, &me) || me.Code != c.code || !strings.Contains(me.Msg, c.msg) {
			t.Errorf("%s over %d documents: %v; want code %d with %q", c.spec, n+1, err, c.code, c.msg)
		}
	}
}
