package seed

import (
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestShapeObjects(t *testing.T) {
	tmpl, err := ParseTemplate("shape.json", []byte(`{
	 "age": {"$mix": [{"$number": [18, 30, 90], "$type": "int"}, "x", {"$missing": true}], "$weights": [80, 10, 10]},
	 "email": {"$string": "email", "$lengths": [15, 30], "$unique": true},
	 "when": {"$date": ["2023-01-01T00:00:00Z", "2024-01-01T00:00:00Z"]},
	 "price": {"$number": [1, 500], "$type": "cents"},
	 "tags": {"$array": {"$string": "letters", "$lengths": [3, 8]}, "$lengths": [0, 2], "$weights": [1, 1]},
	 "createdAt": {"$mix": [{"$missing": true}], "$weights": [1]}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Seeded: true, Seed: 1, Collections: []CollectionSpec{{Name: "s", Template: tmpl, Count: 2000, ID: IDStrategy{Kind: IDField, Field: "email"}}}}
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	c := ds.Collection("s")
	emails := map[string]bool{}
	var missing, strs int
	for i := range c.Len() {
		d := c.Doc(i)
		m := map[string]any{}
		for _, e := range d {
			m[e.Key] = e.Value
		}
		if _, ok := m["createdAt"]; ok {
			t.Fatalf("doc %d has createdAt, which the template leaves out", i)
		}
		switch v := m["age"].(type) {
		case nil:
			missing++
		case string:
			strs++
		case int32:
			if v < 18 || v > 90 {
				t.Fatalf("age %d outside the quantiles", v)
			}
		default:
			t.Fatalf("age %T", v)
		}
		e := m["email"].(string)
		if emails[e] || !strings.HasSuffix(e, "@example.com") || len(e) < 15 {
			t.Fatalf("email %q: duplicate, or not an example.com address of 15+ bytes", e)
		}
		emails[e] = true
		if pr := m["price"].(float64); pr < 1 || pr > 500 || math.Abs(pr*100-math.Round(pr*100)) > 1e-6 {
			t.Fatalf("price %v: not whole cents in [1, 500]", pr)
		}
		if n := len(m["tags"].(bson.A)); n != 0 && n != 2 {
			t.Fatalf("tags of length %d", n)
		}
		if _, ok := m["when"].(bson.DateTime); !ok {
			t.Fatalf("when %T", m["when"])
		}
	}
	if missing < 150 || missing > 250 || strs < 150 || strs > 250 {
		t.Errorf("age missing %d, string %d of 2000: want about 200 each", missing, strs)
	}
	// The manifest's copy of the template reads back to the same documents.
	again, err := ParseTemplate("again", tmpl.JSON())
	if err != nil {
		t.Fatal(err)
	}
	p2 := &Plan{Seeded: true, Seed: 1, Collections: []CollectionSpec{{Name: "s", Template: again, Count: 2000, ID: IDStrategy{Kind: IDField, Field: "email"}}}}
	ds2, _ := p2.Build()
	a, _ := bson.Marshal(c.Doc(3))
	b, _ := bson.Marshal(ds2.Collection("s").Doc(3))
	if string(a) != string(b) {
		t.Error("the template read back from its JSON gives another document")
	}
}

func TestShapeErrors(t *testing.T) {
	for body, want := range map[string]string{
		`{"a": {"$missing": true}}`:                              "only an option of $mix",
		`{"a": {"$mix": [1, 2], "$weights": [1]}}`:               "2 options but 1 weights",
		`{"a": {"$number": [3, 1], "$type": "int"}}`:             "out of order",
		`{"a": {"$number": [1], "$type": "short"}}`:              "expected one of int, long",
		`{"a": {"$string": "poem"}}`:                             "expected one of email",
		`{"a": {"$date": ["yesterday"]}}`:                        "RFC 3339",
		`{"a": {"$array": 1, "$lengths": [1], "$weights": [0]}}`: "above 0",
		`{"a": {"$mix": [{"$nope": 1}], "$weights": [1]}}`:       "$nope",
		`{"a": {"$string": "email", "$bogus": 1}}`:               `unknown key "$bogus"`,
	} {
		_, err := ParseTemplate("t.json", []byte(body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", body, err, want)
		}
	}
}
