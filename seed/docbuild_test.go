package seed

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/brianvoe/gofakeit/v7/data"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The stream builds documents into reused scratch space; every shape a plan
// can give must marshal to the bytes of bson.Marshal(Doc(i)), which owns
// its memory.
func TestStreamBytesAreMarshalledDocForEveryShape(t *testing.T) {
	tmpl, err := ParseTemplate("t.json", []byte(`{
		"name": "{firstname} {lastname}",
		"code": "C-{index}",
		"n": "{number:1,100}",
		"price": "{float64range:1,9}",
		"ok": "{bool}",
		"plain": "text",
		"nested": {"city": "{city}", "deep": {"zip": "{zip}", "list": ["{color}", 7, 2.5, null, true, {"x": "{index}"}]}},
		"owner": "placeholder",
		"empty": {},
		"none": []
	}`))
	if err != nil {
		t.Fatal(err)
	}
	withCreatedAt, err := ParseTemplate("c.json", []byte(`{"createdAt": "{index}", "w": "{word}"}`))
	if err != nil {
		t.Fatal(err)
	}
	users := CollectionSpec{Name: "users", Kind: KindUser, Count: 40, RefOnly: true}
	products := CollectionSpec{Name: "products", Kind: KindProduct, Count: 7, RefOnly: true, ID: IDStrategy{Kind: IDField, Field: "code"}}
	specs := []CollectionSpec{
		{Kind: KindUser, Refs: []Ref{{Field: "name", To: "users"}, {Field: "friends", To: "users", Min: 0, Max: 3}}},
		{Kind: KindEmployee, Refs: []Ref{{Field: "manager", To: "employees"}}},
		{Kind: KindProduct, Refs: []Ref{{Field: "related", To: "products", Min: 2, Max: 9}}},
		{Kind: KindOrder},
		{Kind: KindUser},
		{Kind: KindEmployee},
		{Kind: KindProduct},
		{Kind: KindEmployee, IDStart: 1 << 40}, // int64 _ids under int
		{Kind: KindUser, IDStart: -1000},
		{Template: tmpl, Refs: []Ref{{Field: "owner", To: "users"}, {Field: "bought", To: "products", Min: 1, Max: 4}}},
		{Template: withCreatedAt},
	}
	for _, spec := range specs {
		for _, strat := range []string{"objectid", "int", "uuid", "field"} {
			cs := spec
			cs.Name, cs.Count = "c", 600
			switch {
			case strat != "field":
				cs.ID = mustStrategy(t, strat)
			case cs.Kind != "":
				_, unique, _ := KindFields(cs.Kind)
				cs.ID = IDStrategy{Kind: IDField, Field: unique[0]}
			case cs.Template == tmpl:
				cs.ID = IDStrategy{Kind: IDField, Field: "code"}
			default:
				continue // no field holds {index}
			}
			for k := range cs.Refs {
				switch cs.Refs[k].To {
				case "employees":
					cs.Refs[k].To = "c" // to itself
				}
			}
			name := cs.Kind
			if name == "" {
				name = cs.Template.Name()
			}
			t.Run(name+"/"+strat, func(t *testing.T) {
				p := &Plan{Seed: 5, Seeded: true, Collections: []CollectionSpec{cs, users, products}}
				ds, err := p.Build()
				if err != nil {
					t.Fatal(err)
				}
				c := ds.Collection("c")
				// Kinds with no reference of their own are written as
				// bytes directly; the rest go through bson.D.
				if want := cs.Kind != "" && strat != "field" && len(cs.Refs) == 0; c.rawKind != want {
					t.Fatalf("rawKind = %v; want %v", c.rawKind, want)
				}
				s := c.Stream(context.Background(), StreamOptions{Batch: 97, Workers: 2})
				defer s.Close()
				n := 0
				for _, b := range drain(t, s) {
					for k, raw := range b.Docs {
						i := b.From + int64(k)
						want, err := bson.Marshal(c.Doc(i))
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(raw, want) {
							t.Fatalf("document %d: stream %v; Doc %v", i, raw, bson.Raw(want))
						}
						n++
					}
				}
				if n != int(cs.Count) {
					t.Fatalf("streamed %d documents; want %d", n, cs.Count)
				}
			})
		}
	}
}

// A document from Doc is the caller's: building more documents with the
// same worker leaves it as it was.
func TestDocIsNotOverwrittenByTheNextOne(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "orders", Kind: KindOrder, Count: 100}, 3)
	w := c.NewWorker()
	first := w.Doc(0)
	want, err := bson.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(100) {
		_ = w.Doc(i)
	}
	got, err := bson.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Doc(0) changed after more documents were built: %v; want %v", bson.Raw(got), bson.Raw(want))
	}
}

// slugRef is the definition appendSlug must match byte for byte: the one
// seeded output was pinned with.
func slugRef(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}

func TestAppendSlugMatchesUnicodeLowering(t *testing.T) {
	inputs := []string{"", "-", "O'Brien", "Zoë", "\u212Aelvin", "İstanbul", "ÅSA", "\xff\xfeab", "é"[:1], "42 Street", "ǅemal", "ΑΒΓ"}
	for _, list := range [][]string{data.Person["first"], data.Person["last"], data.Product["category"]} {
		for _, s := range list {
			inputs = append(inputs, s, s[:1])
		}
	}
	for _, s := range inputs {
		got := string(appendSlug([]byte("pre"), s))
		if want := "pre" + slugRef(s); got != want {
			t.Errorf("appendSlug(%q) = %q; want %q", s, got, want)
		}
		code := string(appendCodePrefix(nil, s))
		p := slugRef(s)
		for len(p) < 3 {
			p += "x"
		}
		if want := strings.ToUpper(p[:3]); code != want {
			t.Errorf("appendCodePrefix(%q) = %q; want %q", s, code, want)
		}
	}
}

func TestAppendNumberMatchesFmt(t *testing.T) {
	for _, i := range []int64{0, 1, 9, 10, 999999, 1000000, 9999999, 10000000, 99999999, 100000000, 12345678901, math.MaxInt64, -1, -999999, -1000000, -12345678, math.MinInt64} {
		for _, width := range []int{0, 7, 8} {
			got := string(appendNumber([]byte("E"), i, width))
			if want := fmt.Sprintf("E%0*d", width, i); got != want {
				t.Errorf("appendNumber(%d, %d) = %q; want %q", i, width, got, want)
			}
		}
	}
}

// The strings the kinds assemble from drawn names are those fmt gave: check
// them against the names stored in the documents themselves.
func TestKindStringsMatchFmt(t *testing.T) {
	n := int64(100_000)
	if testing.Short() {
		n = 5_000
	}
	users := buildOne(t, CollectionSpec{Name: "u", Kind: KindUser, Count: n}, 11)
	employees := buildOne(t, CollectionSpec{Name: "e", Kind: KindEmployee, Count: n}, 11)
	products := buildOne(t, CollectionSpec{Name: "p", Kind: KindProduct, Count: n}, 11)
	orders := buildOne(t, CollectionSpec{Name: "o", Kind: KindOrder, Count: n}, 11)
	str := func(d bson.D, key string) string { return d[indexOf(d, key)].Value.(string) }
	uw, ew, pw, ow := users.NewWorker(), employees.NewWorker(), products.NewWorker(), orders.NewWorker()
	for i := range n {
		u := uw.Doc(i)
		first, last := str(u, "firstName"), str(u, "lastName")
		if want := fmt.Sprintf("%s%s%d", slugRef(first[:1]), slugRef(last), i); str(u, "username") != want {
			t.Fatalf("user %d: username %q; want %q", i, str(u, "username"), want)
		}
		email := str(u, "email")
		domain := email[strings.IndexByte(email, '@')+1:]
		if want := fmt.Sprintf("%s.%s.%d@%s", slugRef(first), slugRef(last), i, domain); email != want {
			t.Fatalf("user %d: email %q; want %q", i, email, want)
		}
		e := ew.Doc(i)
		full := str(e, "EmployeeName")
		first, last, _ = strings.Cut(full, " ")
		if want := fmt.Sprintf("E%07d", i); str(e, "employeeNumber") != want {
			t.Fatalf("employee %d: number %q; want %q", i, str(e, "employeeNumber"), want)
		}
		if strings.Count(full, " ") == 1 { // else the split is unknown
			if want := fmt.Sprintf("%s.%s.%d@%s", slugRef(first), slugRef(last), i, exampleDomains[0]); str(e, "email") != want {
				t.Fatalf("employee %d: email %q; want %q", i, str(e, "email"), want)
			}
		}
		p := pw.Doc(i)
		prefix := slugRef(str(p, "category"))
		for len(prefix) < 3 {
			prefix += "x"
		}
		if want := fmt.Sprintf("%s-%07d", strings.ToUpper(prefix[:3]), i); str(p, "code") != want {
			t.Fatalf("product %d: code %q; want %q", i, str(p, "code"), want)
		}
		if want := fmt.Sprintf("ORD-%08d", i); str(ow.Doc(i), "number") != want {
			t.Fatalf("order %d: number %q; want %q", i, str(ow.Doc(i), "number"), want)
		}
	}
}

// appendD gives bson.Marshal's bytes, or declines.
func TestAppendDIsMarshal(t *testing.T) {
	long := make(bson.A, 70)
	for k := range long {
		long[k] = int32(k)
	}
	for _, d := range []bson.D{
		{},
		{{Key: "s", Value: ""}, {Key: "u", Value: "zoë\x00"}, {Key: "i", Value: int32(math.MinInt32)}, {Key: "l", Value: int64(math.MaxInt64)}},
		{{Key: "f", Value: math.NaN()}, {Key: "z", Value: math.Copysign(0, -1)}, {Key: "inf", Value: math.Inf(1)}, {Key: "b", Value: false}, {Key: "n", Value: nil}},
		{{Key: "t", Value: bson.DateTime(-1)}, {Key: "o", Value: bson.NewObjectID()}},
		{{Key: "u4", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: make([]byte, 16)}}, {Key: "old", Value: bson.Binary{Subtype: 2, Data: []byte{1, 2}}}, {Key: "b0", Value: bson.Binary{}}},
		{{Key: "d", Value: bson.D{{Key: "e", Value: bson.D{}}, {Key: "a", Value: bson.A{}}}}, {Key: "a", Value: bson.A{bson.D{{Key: "x", Value: int32(1)}}, bson.A{nil, "y"}}}},
		{{Key: "long", Value: long}},
	} {
		got, ok := appendD([]byte("pre"), d)
		want, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || !bytes.Equal(got, append([]byte("pre"), want...)) {
			t.Errorf("appendD(%v) = %q, %v; want %q", d, got, ok, want)
		}
	}
	for _, d := range []bson.D{
		{{Key: "a\x00b", Value: int32(1)}},
		{{Key: "int", Value: 1}},
		{{Key: "nilD", Value: bson.D(nil)}},
		{{Key: "nilA", Value: bson.A(nil)}},
		{{Key: "deep", Value: bson.A{bson.D{{Key: "m", Value: map[string]int{}}}}}},
	} {
		if _, ok := appendD(nil, d); ok {
			t.Errorf("appendD(%v) accepted it; want it left to the driver", d)
		}
	}
}

// Kinds written as bytes directly, over many documents: every name, city,
// product and reference combination gofakeit draws must come out as
// bson.Marshal(Doc(i)) does.
func TestRawKindsMatchDocOverManyDocuments(t *testing.T) {
	n := int64(100_000)
	if testing.Short() {
		n = 10_000
	}
	for _, kind := range Kinds() {
		t.Run(kind, func(t *testing.T) {
			c := buildOne(t, CollectionSpec{Name: "c", Kind: kind, Count: n}, 13)
			if !c.rawKind {
				t.Fatalf("%s is not written directly", kind)
			}
			s := c.Stream(context.Background(), StreamOptions{Workers: 1})
			defer s.Close()
			w := c.NewWorker()
			for _, b := range drain(t, s) {
				for k, raw := range b.Docs {
					want, err := bson.Marshal(w.Doc(b.From + int64(k)))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(raw, want) {
						t.Fatalf("document %d: stream %v; Doc %v", b.From+int64(k), raw, bson.Raw(want))
					}
				}
			}
		})
	}
}
