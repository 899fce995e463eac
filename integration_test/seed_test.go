package integration

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Scenario 1: seed with each _id strategy and the shop plan through the
// binary; verify db passes; the driver reads back exactly the documents the
// generator makes (byte for byte, _id types included), and for ObjectIDs the
// driver's Timestamp() equals oid's (and createdAt) for every document.
func TestSeedThenVerify(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c := s.Client()
	at := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	cases := []struct {
		name string
		g    gen
		// bsonType is the BSON type every _id must have.
		bsonType bson.Type
	}{
		{"objectid", gen{kind: "user", id: "objectid", n: 3000, seed: 7, span: 30 * 24 * time.Hour}, bson.TypeObjectID},
		{"objectid_default_base", gen{kind: "order", n: 1000, seed: 11}, bson.TypeObjectID},
		{"int", gen{kind: "employee", id: "int", n: 2000, seed: 8, at: at, span: time.Hour}, bson.TypeInt32},
		{"uuid", gen{kind: "product", id: "uuid", n: 2000, seed: 9, at: at}, bson.TypeBinary},
		{"field_email", gen{kind: "user", id: "field:email", n: 2000, seed: 10, at: at, span: 72 * time.Hour}, bson.TypeString},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			g.db, g.coll = s.DB, tc.name
			r := run(t, 5*time.Minute, nil, append([]string{"seed", "--uri", s.URI(), "--quiet"}, g.flags()...)...)
			notBuilt(t, r)
			if r.code != 0 {
				t.Fatalf("seed failed:\n%s", r)
			}
			if !strings.Contains(r.stdout, "inserted "+strconv.FormatInt(g.n, 10)) {
				t.Errorf("seed summary does not say it inserted %d:\n%s", g.n, r)
			}
			ds := g.dataset(t)
			col := ds.Collection(g.coll)
			want := expectCollection(t, col)
			got := readAll(t, s.Coll(c, g.coll))
			compareExact(t, want, got)
			for _, d := range got {
				if typ := d.Lookup("_id").Type; typ != tc.bsonType {
					t.Fatalf("_id %s has BSON type %v, want %v", d.Lookup("_id"), typ, tc.bsonType)
				}
				if tc.bsonType == bson.TypeBinary {
					if st, _ := d.Lookup("_id").Binary(); st != bson.TypeBinaryUUID {
						t.Fatalf("_id %s has binary subtype %#x, want 4 (UUID)", d.Lookup("_id"), st)
					}
				}
			}
			if tc.bsonType == bson.TypeObjectID {
				checkObjectIDTimes(t, got, ds.Base, ds.Span)
			}
			verifyDB(t, s, g)
		})
	}
}

// The shop plan: three collections whose references all point at documents
// that exist.
func TestSeedShopPlan(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c := s.Client()
	g := gen{db: s.DB, plan: "shop", n: 300, seed: 5, span: 7 * 24 * time.Hour}
	r := run(t, 5*time.Minute, nil, append([]string{"seed", "--uri", s.URI(), "--quiet"}, g.flags()...)...)
	notBuilt(t, r)
	if r.code != 0 {
		t.Fatalf("seed --plan shop failed:\n%s", r)
	}
	ds := g.dataset(t)
	ids := map[string]map[string]bool{}
	counts := map[string]int{"users": 300, "products": 30, "orders": 900}
	for _, col := range ds.Written() {
		want := expectCollection(t, col)
		got := readAll(t, s.Coll(c, col.Name()))
		if len(got) != counts[col.Name()] {
			t.Errorf("%s: %d documents, want %d", col.Name(), len(got), counts[col.Name()])
		}
		compareExact(t, want, got)
		checkObjectIDTimes(t, got, ds.Base, ds.Span)
		ids[col.Name()] = map[string]bool{}
		for _, d := range got {
			ids[col.Name()][idKey(d.Lookup("_id"))] = true
		}
	}
	if len(ids) != 3 {
		t.Fatalf("the shop plan wrote %d collections, want users, products, orders", len(ids))
	}
	orders := readAll(t, s.Coll(c, "orders"))
	for _, o := range orders {
		if u := o.Lookup("userId"); !ids["users"][idKey(u)] {
			t.Fatalf("order %s: userId %s is not a user", o.Lookup("_id"), u)
		}
		arr, ok := o.Lookup("productIds").ArrayOK()
		if !ok {
			t.Fatalf("order %s: productIds is %s, want an array", o.Lookup("_id"), o.Lookup("productIds"))
		}
		vals, _ := arr.Values()
		if len(vals) < 1 || len(vals) > 5 {
			t.Fatalf("order %s: %d productIds, want 1 to 5", o.Lookup("_id"), len(vals))
		}
		for _, v := range vals {
			if !ids["products"][idKey(v)] {
				t.Fatalf("order %s: productId %s is not a product", o.Lookup("_id"), v)
			}
		}
	}
	verifyDB(t, s, g)
}

// verifyDB runs `oidkit verify db` with the generation flags and requires a
// pass (exit 0). It runs last in a test: if the command is not built yet the
// test is marked skipped after its other checks have passed.
func verifyDB(t *testing.T, s *server, g gen, more ...string) result {
	t.Helper()
	args := append([]string{"verify", "db", "--uri", s.URI(), "--timeout", "60s"}, g.flags()...)
	r := run(t, 5*time.Minute, nil, append(args, more...)...)
	notBuilt(t, r)
	if r.code != 0 {
		t.Fatalf("verify db should pass:\n%s", r)
	}
	return r
}
