package seed_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

func templateCollection(t *testing.T, src string) *seed.Collection {
	t.Helper()
	tmpl, err := seed.ParseTemplate("t.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ds := buildPlan(t, &seed.Plan{Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "c", Template: tmpl, Count: 5}}})
	return ds.Collection("c")
}

// A template's keys and depth are checked against the target's rules
// before any document is generated, with the field's path.
func TestCheckShape(t *testing.T) {
	dotted := templateCollection(t, `{"a": "{firstname}", "addr": {"geo.lat": "{latitude}"}}`)
	err := dotted.CheckShape(rules.FerretDB.Check)
	var se *seed.ShapeError
	var v *rules.Violation
	if !errors.As(err, &se) || !errors.As(err, &v) || se.Collection != "c" || v.Path != "addr.geo.lat" || v.Reason != rules.DottedKey {
		t.Fatalf("FerretDB: %v", err)
	}
	if err := dotted.CheckShape(rules.MongoDB.Check); err != nil {
		t.Fatalf("MongoDB accepts dotted keys: %v", err)
	}
	deep := "\"{word}\""
	for range 100 {
		deep = `{"x": ` + deep + `}`
	}
	err = templateCollection(t, `{"d": `+deep+`}`).CheckShape(rules.MongoDB.Check)
	if !errors.As(err, &v) || v.Reason != rules.TooDeep || !strings.HasPrefix(v.Path, "d.x.x") {
		t.Fatalf("deep template: %v", err)
	}
	if err := templateCollection(t, `{"n": "{number:1,5}", "a": [["{word}"]]}`).CheckShape(rules.MongoDB.Check); err != nil {
		t.Fatalf("MongoDB accepts nested arrays: %v", err)
	}
	if err := templateCollection(t, `{"a": [["{word}"]]}`).CheckShape(rules.FerretDB.Check); !errors.As(err, &v) || v.Reason != rules.NestedArray {
		t.Fatalf("FerretDB nested array: %v", err)
	}
}
