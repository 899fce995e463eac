package seed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// idTypeShares counts the BSON types of a collection's _ids.
func idTypeShares(t *testing.T, c *Collection) map[bson.Type]float64 {
	t.Helper()
	n := map[bson.Type]float64{}
	for i := range c.Len() {
		n[rawID(t, c.ID(i)).Type]++
	}
	for k := range n {
		n[k] /= float64(c.Len())
	}
	return n
}

// The shares of an idMix hold in any prefix of the documents, to within a
// few documents, and each strategy makes the _id it would alone.
func TestIDMixShares(t *testing.T) {
	mix := []IDShare{{ID: IDStrategy{Kind: IDObjectID}, Share: 0.074}, {ID: IDStrategy{Kind: IDUUID}, Share: 0.2}}
	for _, n := range []int64{50, 431, 5000} {
		for seed := range uint64(4) {
			c := buildOne(t, CollectionSpec{Name: "books", Kind: KindProduct, Count: n, ID: IDStrategy{Kind: IDInt}, IDStart: 1, IDMix: mix}, seed)
			got := idTypeShares(t, c)
			tol := 3 / float64(n) // a few documents, far below binomial noise at 5000
			for typ, want := range map[bson.Type]float64{bson.TypeObjectID: 0.074, bson.TypeBinary: 0.2, bson.TypeInt32: 1 - 0.274} {
				if math.Abs(got[typ]-want) > tol {
					t.Errorf("n %d seed %d: %s share %.4f; want %.4f within %.4f", n, seed, typ, got[typ], want, tol)
				}
			}
			for i := range c.Len() {
				switch v := c.ID(i).(type) {
				case int32:
					if int64(v) != 1+i {
						t.Fatalf("n %d: ID(%d) = %d; want IDStart+i = %d", n, i, v, 1+i)
					}
				case bson.ObjectID:
					if v != bson.ObjectID(c.ObjectID(i)) || v.Timestamp() != c.Time(i) {
						t.Fatalf("n %d: ID(%d) = %s; want ObjectID(%d) = %s at %s", n, i, v, i, c.ObjectID(i), c.Time(i))
					}
				}
			}
		}
	}
}

// digestOf hashes a collection's documents as Doc builds them.
func digestOf(t *testing.T, c *Collection) [32]byte {
	t.Helper()
	h := sha256.New()
	for i := range c.Len() {
		b, err := bson.Marshal(c.Doc(i))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	return [32]byte(h.Sum(nil))
}

// The same seed gives the same bytes, another seed another mix; the stream's
// bytes (a kind's fast path included) are Doc's; an idMix written in any
// order of its keys means the same documents.
func TestIDMixDeterministic(t *testing.T) {
	mix := []IDShare{{ID: IDStrategy{Kind: IDObjectID}, Share: 0.3}}
	for _, kind := range []string{KindUser, ""} {
		cs := CollectionSpec{Name: "c", Kind: kind, Count: 300, ID: IDStrategy{Kind: IDInt}, IDMix: mix}
		if kind == "" {
			cs.Template = mustTemplate(t, `{"name": "{name}", "n": "{number:1,9}"}`)
		}
		a, b, other := buildOne(t, cs, 9), buildOne(t, cs, 9), buildOne(t, cs, 10)
		if digestOf(t, a) != digestOf(t, b) {
			t.Fatalf("kind %q: two builds with seed 9 differ", kind)
		}
		same := 0
		for i := range a.Len() {
			if rawID(t, a.ID(i)).Type == rawID(t, other.ID(i)).Type {
				same++
			}
		}
		if same == int(a.Len()) {
			t.Errorf("kind %q: seeds 9 and 10 put the same strategy at every document", kind)
		}
		if want := kind != ""; a.rawKind != want {
			t.Fatalf("kind %q: rawKind %v; want %v", kind, a.rawKind, want)
		}
		s := a.Stream(context.Background(), StreamOptions{Batch: 41, Workers: 2})
		for _, bt := range drain(t, s) {
			for k, raw := range bt.Docs {
				want, _ := bson.Marshal(a.Doc(bt.From + int64(k)))
				if !bytes.Equal(raw, want) {
					t.Fatalf("kind %q: document %d: stream %v; Doc %v", kind, bt.From+int64(k), raw, bson.Raw(want))
				}
			}
		}
		s.Close()
	}
	p1, err := ParsePlan("a", []byte(`{"collections": [{"name": "c", "kind": "user", "count": 50, "id": "int", "idMix": {"objectid": 0.1, "uuid": 0.2}}]}`), ".")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := ParsePlan("b", []byte(`{"collections": [{"name": "c", "kind": "user", "count": 50, "id": "int", "idMix": {"uuid": 0.2, "oid": 0.1}}]}`), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Plan{p1, p2} {
		p.Seed, p.Seeded = 3, true
	}
	d1, err1 := p1.Build()
	d2, err2 := p2.Build()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if digestOf(t, d1.Collection("c")) != digestOf(t, d2.Collection("c")) {
		t.Fatal("the same idMix in another key order gives other documents")
	}
}

// Bad idMix settings are refused when the plan is read, naming the value
// and what was expected.
func TestIDMixRefused(t *testing.T) {
	for _, tc := range []struct{ id, mix, want string }{
		{`"int"`, `{"objectid": 0}`, `share 0: expected a share above 0 and below 1`},
		{`"int"`, `{"objectid": 1}`, `share 1: expected a share above 0 and below 1`},
		{`"int"`, `{"objectid": -0.1}`, `share -0.1`},
		{`"int"`, `{"objectid": 0.6, "uuid": 0.4}`, `expected a sum below 1`},
		{`"int"`, `{"serial": 0.1}`, `idMix "serial": expected objectid, int or uuid`},
		{`"int"`, `{"field:email": 0.1}`, `idMix "field:email": expected objectid, int or uuid`},
		{`"int"`, `{"int": 0.1}`, `idMix "int": it is the collection's own id`},
		{`"int"`, `{"oid": 0.1, "objectid": 0.2}`, `appears twice`},
		{`"field:email"`, `{"int": 0.1}`, `idMix with id field:email: expected id objectid, int or uuid`},
		{`"int"`, `{"objectid": "a lot"}`, `cannot unmarshal string`},
	} {
		plan := `{"collections": [{"name": "users", "kind": "user", "count": 10, "id": ` + tc.id + `, "idMix": ` + tc.mix + `}]}`
		_, err := ParsePlan("p.json", []byte(plan), ".")
		if err == nil || !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("idMix %s: error %v; want an ErrPlan containing %q", tc.mix, err, tc.want)
			continue
		}
		var pe *PlanError
		if errors.As(err, &pe) && !strings.Contains(tc.want, "unmarshal") && pe.Setting != SettingIDMix {
			t.Errorf("idMix %s: setting %q; want %q", tc.mix, pe.Setting, SettingIDMix)
		}
	}
	// A plan built in code is checked by Validate the same way.
	p := &Plan{Collections: []CollectionSpec{{Name: "users", Kind: KindUser, Count: 10, IDMix: []IDShare{{ID: IDStrategy{Kind: IDInt}, Share: 1.5}}}}}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "share 1.5") {
		t.Errorf("Validate of share 1.5: %v; want it refused", err)
	}
}

// References into a mixed collection hold its _ids, of every strategy, and
// Index inverts them; the rest (unresolved) are no document's.
func TestIDMixReferences(t *testing.T) {
	p := &Plan{Seed: 2, Seeded: true, Collections: []CollectionSpec{
		{Name: "books", Kind: KindProduct, Count: 200, ID: IDStrategy{Kind: IDInt}, IDMix: []IDShare{{ID: IDStrategy{Kind: IDObjectID}, Share: 0.25}}},
		{Name: "reviews", Template: mustTemplate(t, `{"stars": "{number:1,5}"}`), Count: 1000, Refs: []Ref{{Field: "bookId", To: "books", Unresolved: 0.1}}},
	}}
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	books, reviews := ds.Collection("books"), ds.Collection("reviews")
	checkIndex(t, books)
	types := map[bson.Type]int{}
	resolved := 0
	for i := range reviews.Len() {
		v := rawID(t, reviews.Doc(i)[indexOf(reviews.Doc(i), "bookId")].Value)
		types[v.Type]++
		if j, ok := books.Index(v); ok {
			if !rawID(t, books.ID(j)).Equal(v) {
				t.Fatalf("review %d: bookId %v resolves to book %d, whose _id is %v", i, v, j, books.ID(j))
			}
			resolved++
		}
	}
	if types[bson.TypeObjectID] < 150 || types[bson.TypeInt32] < 600 {
		t.Errorf("bookId types %v: expected both ObjectIDs and ints, near 1:3", types)
	}
	if share := float64(resolved) / float64(reviews.Len()); math.Abs(share-0.9) > 0.04 {
		t.Errorf("%.3f of the references resolve; want 0.9", share)
	}
	// Index refuses an _id of a strategy the document does not use.
	for i := range books.Len() {
		if _, isInt := books.ID(i).(int32); isInt {
			if _, ok := books.Index(rawID(t, bson.ObjectID(books.ObjectID(i)))); ok {
				t.Fatalf("Index found the ObjectID of document %d, whose _id is an int", i)
			}
		} else if _, ok := books.Index(rawID(t, int32(i))); ok {
			t.Fatalf("Index found the int of document %d, whose _id is an ObjectID", i)
		}
	}
}
