package seed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/oidkit/oidkit/oid"
)

// DefaultBase is the time base of a seeded plan without an explicit At:
// 2024-01-01T00:00:00Z. It is part of the output format: changing it changes
// every seeded ObjectID.
var DefaultBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// DefaultDB is the database a plan writes to when none is named.
const DefaultDB = "oidkit"

// MaxCount bounds a collection's document count (2^40), far above anything
// useful and small enough that no index arithmetic overflows.
const MaxCount = int64(1) << 40

// ErrPlan is wrapped by every plan validation error.
var ErrPlan = errors.New("invalid plan")

// Plan describes what to generate: collections with their kinds or
// templates, counts, _id strategies and references, plus the seed and time
// settings shared by all of them.
type Plan struct {
	DB string // database name; empty means DefaultDB

	// Seed makes the run deterministic when Seeded is true.
	Seed   uint64
	Seeded bool

	// At is the time base; zero means DefaultBase when seeded, the current
	// time otherwise. Span spreads timestamps over [At-Span, At].
	At   time.Time
	Span time.Duration

	Collections []CollectionSpec
}

// CollectionSpec is one collection of a plan.
type CollectionSpec struct {
	Name     string
	Kind     string    // a built-in kind, or "" with Template
	Template *Template // a parsed template, or nil with Kind
	Count    int64
	ID       IDStrategy
	IDStart  int64 // first _id of the int strategy
	Refs     []Ref
	// RefOnly collections are not written; they exist so that references
	// resolve to the IDs another run (with the same seed) writes.
	RefOnly bool
}

// Ref makes Field of every document hold the _id of a document of collection
// To, chosen from the seed. With Max > 0 the field is an array of Min..Max
// such IDs.
type Ref struct {
	Field string `json:"field"`
	To    string `json:"to"`
	Min   int    `json:"min,omitempty"`
	Max   int    `json:"max,omitempty"`
}

// planFile is the JSON form of a plan file.
type planFile struct {
	DB          string           `json:"db"`
	Collections []collectionFile `json:"collections"`
}

type collectionFile struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Template string `json:"template"`
	Count    *int64 `json:"count"`
	ID       string `json:"id"`
	IDStart  int64  `json:"idStart"`
	Refs     []Ref  `json:"refs"`
	RefOnly  bool   `json:"refOnly"`
}

// LoadPlan reads a plan file; template paths in it are relative to the file.
func LoadPlan(path string) (*Plan, error) {
	data, err := readSmallFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPlan, err)
	}
	return ParsePlan(path, data, filepath.Dir(path))
}

// ParsePlan parses a plan file's JSON. name is used in messages; template
// paths are relative to dir. Seed and time settings are not part of the file:
// the caller sets them. The result is parsed, not yet validated: call
// Validate or Build.
//
//	{"db": "shop", "collections": [
//	  {"name": "users", "kind": "user", "count": 1000, "id": "field:email"},
//	  {"name": "reviews", "template": "review.json", "count": 5000,
//	   "refs": [{"field": "userId", "to": "users"}]}]}
func ParsePlan(name string, data []byte, dir string) (*Plan, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var pf planFile
	if err := dec.Decode(&pf); err != nil {
		return nil, fmt.Errorf("%w: %s: %v (expected {\"collections\": [{\"name\", \"kind\" or \"template\", \"count\", \"id\", \"refs\"}]})", ErrPlan, name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: %s: unexpected data after the plan object", ErrPlan, name)
	}
	if len(pf.Collections) == 0 {
		return nil, fmt.Errorf("%w: %s: collections: expected at least one collection", ErrPlan, name)
	}
	p := &Plan{DB: pf.DB}
	for k, cf := range pf.Collections {
		where := fmt.Sprintf("%s: collections[%d]", name, k)
		if cf.Name != "" {
			where += " (" + cf.Name + ")"
		}
		if cf.Count == nil {
			return nil, fmt.Errorf("%w: %s: count: missing; expected a number of documents", ErrPlan, where)
		}
		cs := CollectionSpec{Name: cf.Name, Kind: cf.Kind, Count: *cf.Count, IDStart: cf.IDStart, Refs: cf.Refs, RefOnly: cf.RefOnly}
		id, err := ParseIDStrategy(cf.ID)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: id: %v", ErrPlan, where, err)
		}
		cs.ID = id
		if cf.Template != "" {
			if cf.Kind != "" {
				return nil, fmt.Errorf("%w: %s: has both kind %q and template %q; expected one of them", ErrPlan, where, cf.Kind, cf.Template)
			}
			path := cf.Template
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			t, err := LoadTemplate(path)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrPlan, where, err)
			}
			cs.Template = t
		}
		p.Collections = append(p.Collections, cs)
	}
	return p, nil
}

// BuiltinPlans lists the names BuiltinPlan knows.
func BuiltinPlans() []string { return []string{"shop"} }

// BuiltinPlan returns a built-in plan. "shop" has n users, n/10 products (at
// least 1) and 3n orders whose userId and productIds point at them; n <= 0
// means 1000.
func BuiltinPlan(name string, n int64) (*Plan, error) {
	if name != "shop" {
		return nil, fmt.Errorf("%w: built-in plan %q: expected one of %s", ErrPlan, name, strings.Join(BuiltinPlans(), ", "))
	}
	if n <= 0 {
		n = 1000
	}
	if n > MaxCount/3 {
		return nil, fmt.Errorf("%w: plan shop with -n %d: expected at most %d", ErrPlan, n, MaxCount/3)
	}
	return &Plan{Collections: []CollectionSpec{
		{Name: "users", Kind: KindUser, Count: n},
		{Name: "products", Kind: KindProduct, Count: max(1, n/10)},
		{Name: "orders", Kind: KindOrder, Count: 3 * n, Refs: []Ref{
			{Field: "userId", To: "users"},
			{Field: "productIds", To: "products", Min: 1, Max: 5},
		}},
	}}, nil
}

// DefaultCollectionName is the collection a kind or template goes to when
// none is named: the plural of the kind ("users"), or the template file's
// base name without extension.
func DefaultCollectionName(kind string, t *Template) string {
	if t != nil {
		base := filepath.Base(t.Name())
		if ext := filepath.Ext(base); ext != "" {
			base = strings.TrimSuffix(base, ext)
		}
		if base == "" || base == "." {
			return "documents"
		}
		return base
	}
	if kind == "" {
		return "documents"
	}
	return kind + "s"
}

// Validate checks the whole plan: names, counts, kinds and templates, _id
// strategies (field:NAME must be a field the kind or template produces and
// that is unique by construction), references and the time window. It also
// fills defaults (DB, the references of the order kind).
func (p *Plan) Validate() error {
	if p.DB == "" {
		p.DB = DefaultDB
	}
	if err := checkDBName(p.DB); err != nil {
		return err
	}
	if len(p.Collections) == 0 {
		return fmt.Errorf("%w: no collections", ErrPlan)
	}
	if p.Span < 0 {
		return fmt.Errorf("%w: span %v: expected a duration >= 0", ErrPlan, p.Span)
	}
	if !p.At.IsZero() {
		if err := oid.CheckTime(p.At); err != nil {
			return fmt.Errorf("%w: at %s: %v", ErrPlan, p.At.Format(time.RFC3339), err)
		}
	}
	base := p.At
	if base.IsZero() {
		base = DefaultBase
		if !p.Seeded {
			base = time.Now()
		}
	}
	if err := oid.CheckTime(base.Add(-p.Span)); err != nil {
		return fmt.Errorf("%w: span %v before %s starts before the ObjectID epoch: %v", ErrPlan, p.Span, base.UTC().Format(time.RFC3339), err)
	}
	names := map[string]int{}
	for k := range p.Collections {
		cs := &p.Collections[k]
		where := fmt.Sprintf("collection %q", cs.Name)
		if err := checkCollectionName(cs.Name); err != nil {
			return fmt.Errorf("%w: collections[%d]: %v", ErrPlan, k, err)
		}
		if _, dup := names[cs.Name]; dup {
			return fmt.Errorf("%w: %s appears twice; expected unique collection names", ErrPlan, where)
		}
		names[cs.Name] = k
		if cs.Count < 0 || cs.Count > MaxCount {
			return fmt.Errorf("%w: %s: count %d: expected 0..%d", ErrPlan, where, cs.Count, MaxCount)
		}
		var fields, unique []string
		switch {
		case cs.Kind != "" && cs.Template != nil:
			return fmt.Errorf("%w: %s: has both kind %q and a template; expected one", ErrPlan, where, cs.Kind)
		case cs.Template != nil:
			if p.Seeded && len(cs.Template.unstable) > 0 {
				return fmt.Errorf("%w: %s: template %s: %s gives different values for the same seed (it reads the clock), so a seeded run could not be reproduced; use {date}, {year} or a fixed value", ErrPlan, where, cs.Template.Name(), cs.Template.unstable[0])
			}
			fields = cs.Template.Fields()
			for f := range cs.Template.indexed {
				unique = append(unique, f)
			}
		case cs.Kind != "":
			kd, ok := kindByName(cs.Kind)
			if !ok {
				return fmt.Errorf("%w: %s: kind %q: expected one of %s", ErrPlan, where, cs.Kind, strings.Join(Kinds(), ", "))
			}
			fields, unique = kd.fields(), kd.unique()
			// The kind's own references default to the usual collections.
			for _, kr := range kd.refs() {
				if findRef(cs.Refs, kr.Field) < 0 {
					cs.Refs = append(cs.Refs, kr)
				}
			}
		default:
			return fmt.Errorf("%w: %s: expected a kind (%s) or a template", ErrPlan, where, strings.Join(Kinds(), ", "))
		}
		switch cs.ID.Kind {
		case IDObjectID, IDUUID:
		case IDInt:
			if cs.Count > 0 && cs.IDStart > math.MaxInt64-(cs.Count-1) {
				return fmt.Errorf("%w: %s: id-start %d: the last _id would overflow int64", ErrPlan, where, cs.IDStart)
			}
		case IDField:
			if !contains(fields, cs.ID.Field) {
				return fmt.Errorf("%w: %s: id %s: the documents have no field %q; expected one of %s", ErrPlan, where, cs.ID, cs.ID.Field, strings.Join(fields, ", "))
			}
			if !contains(unique, cs.ID.Field) {
				if cs.Template != nil {
					return fmt.Errorf("%w: %s: id %s: field %q is not unique by construction; put {index} in its template value, e.g. \"user{index}@example.com\"", ErrPlan, where, cs.ID, cs.ID.Field)
				}
				return fmt.Errorf("%w: %s: id %s: field %q is not unique by construction; expected one of %s", ErrPlan, where, cs.ID, cs.ID.Field, strings.Join(unique, ", "))
			}
			if findRef(cs.Refs, cs.ID.Field) >= 0 {
				return fmt.Errorf("%w: %s: id %s: field %q is a reference; expected a natural key", ErrPlan, where, cs.ID, cs.ID.Field)
			}
		default:
			return fmt.Errorf("%w: %s: unknown _id strategy", ErrPlan, where)
		}
	}
	for k := range p.Collections {
		cs := &p.Collections[k]
		seen := map[string]bool{}
		for _, r := range cs.Refs {
			where := fmt.Sprintf("collection %q: ref %q", cs.Name, r.Field)
			if r.Field == "" || r.Field == "_id" || strings.ContainsAny(r.Field, ".$\x00") {
				return fmt.Errorf("%w: %s: expected a top-level field name other than _id", ErrPlan, where)
			}
			if seen[r.Field] {
				return fmt.Errorf("%w: %s: field referenced twice", ErrPlan, where)
			}
			seen[r.Field] = true
			j, ok := names[r.To]
			if !ok {
				return fmt.Errorf("%w: %s: refers to collection %q, which is not in the plan; expected one of %s", ErrPlan, where, r.To, strings.Join(sortedNames(p), ", "))
			}
			if p.Collections[j].Count == 0 && cs.Count > 0 {
				return fmt.Errorf("%w: %s: refers to collection %q, which has no documents", ErrPlan, where, r.To)
			}
			if r.Min < 0 || r.Max < 0 || r.Max > 1000 || (r.Max > 0 && r.Min > r.Max) || (r.Max == 0 && r.Min != 0) {
				return fmt.Errorf("%w: %s: min %d max %d: expected 0 <= min <= max <= 1000 (max 0 for a single reference)", ErrPlan, where, r.Min, r.Max)
			}
		}
		if cs.Kind == KindOrder {
			if i := findRef(cs.Refs, "productIds"); i >= 0 && cs.Refs[i].Max == 0 {
				return fmt.Errorf("%w: collection %q: ref \"productIds\": expected max >= 1 (an array of products)", ErrPlan, cs.Name)
			}
			if i := findRef(cs.Refs, "userId"); i >= 0 && cs.Refs[i].Max != 0 {
				return fmt.Errorf("%w: collection %q: ref \"userId\": expected a single reference (max 0)", ErrPlan, cs.Name)
			}
		}
	}
	return nil
}

func findRef(refs []Ref, field string) int {
	for i, r := range refs {
		if r.Field == field {
			return i
		}
	}
	return -1
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func sortedNames(p *Plan) []string {
	var out []string
	for _, c := range p.Collections {
		out = append(out, fmt.Sprintf("%q", c.Name))
	}
	return out
}

func checkDBName(s string) error {
	if s == "" || len(s) > 63 || strings.ContainsAny(s, "/\\. \"$*<>:|?\x00") {
		return fmt.Errorf("%w: database name %q: expected 1-63 characters without / \\ . space \" $ * < > : | ?", ErrPlan, s)
	}
	return nil
}

func checkCollectionName(s string) error {
	if s == "" || strings.ContainsAny(s, "$\x00") || strings.HasPrefix(s, "system.") || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || len(s) > 200 {
		return fmt.Errorf("collection name %q: expected a non-empty name without $, not starting with system.", s)
	}
	return nil
}
