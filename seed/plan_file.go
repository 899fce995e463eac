package seed

// The plan a plan setting names: a built-in plan (BuiltinPlan), or a plan
// file read by LoadPlan and ParsePlan, with the template files it names
// (LoadTemplate, which the template setting uses too).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/indexes"
)

// BuiltinPlans lists the names BuiltinPlan knows.
func BuiltinPlans() []string { return []string{"shop"} }

// BuiltinPlan returns a built-in plan. "shop" has n users, n/10 products (at
// least 1) and 3n orders whose userId and productIds point at them; n <= 0
// means 1000. Its indexes: users email and username (unique), products code
// (unique) and category, orders number (unique), userId and status.
func BuiltinPlan(name string, n int64) (*Plan, error) {
	if name != "shop" {
		return nil, planErrorf("", SettingFile, name, "built-in plan %q: expected one of %s", name, strings.Join(BuiltinPlans(), ", "))
	}
	if n <= 0 {
		n = 1000
	}
	if n > MaxCount/3 {
		return nil, planErrorf("", SettingCount, strconv.FormatInt(n, 10), "plan shop with %d users: expected at most %d", n, MaxCount/3)
	}
	asc := func(field string, unique bool) indexes.Index {
		return indexes.Index{Key: bson.D{{Key: field, Value: int32(1)}}, Unique: unique}
	}
	return &Plan{Collections: []CollectionSpec{
		{Name: "users", Kind: KindUser, Count: n, Indexes: []indexes.Index{asc("email", true), asc("username", true)}},
		{Name: "products", Kind: KindProduct, Count: shopProducts(n), Indexes: []indexes.Index{asc("code", true), asc("category", false)}},
		{Name: "orders", Kind: KindOrder, Count: 3 * n, Refs: []Ref{
			{Field: "userId", To: "users"},
			{Field: "productIds", To: "products", Min: 1, Max: 5},
		}, Indexes: []indexes.Index{asc("number", true), asc("userId", false), asc("status", false)}},
	}}, nil
}

// shopProducts is how many products a shop of n users sells: one for ten
// users, at least one.
func shopProducts(n int64) int64 { return max(1, n/10) }

// LoadPlan reads a plan file; template paths in it are relative to the file.
func LoadPlan(path string) (*Plan, error) {
	data, err := readSmallFile(path)
	if err != nil {
		return nil, &PlanError{Setting: SettingFile, Value: path, Err: err}
	}
	return ParsePlan(path, data, filepath.Dir(path))
}

// ParsePlan parses a plan file's JSON. name is used in messages; template
// paths are relative to dir. Seed and time settings are not part of the file:
// the caller sets them. The result is parsed, not yet validated: call
// Validate or Build.
//
//	{"db": "shop", "collections": [
//	  {"name": "users", "kind": "user", "count": 1000, "id": "field:email",
//	   "indexes": [{"key": {"username": 1}, "unique": true}]},
//	  {"name": "reviews", "template": "review.json", "count": 5000,
//	   "refs": [{"field": "userId", "to": "users"}]}]}
func ParsePlan(name string, data []byte, dir string) (*Plan, error) {
	fileErr := func(format string, args ...any) error {
		e := planErrorf("", SettingFile, name, format, args...)
		e.Source = name
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var pf PlanFile
	if err := dec.Decode(&pf); err != nil {
		return nil, fileErr("%v (expected {\"collections\": [{\"name\", \"kind\" or \"template\", \"count\", \"id\", \"refs\"}]})", err)
	}
	if dec.More() {
		return nil, fileErr("unexpected data after the plan object")
	}
	if len(pf.Collections) == 0 {
		return nil, fileErr("collections: expected at least one collection")
	}
	p := &Plan{DB: pf.DB}
	if pf.At != "" {
		t, err := time.Parse(time.RFC3339, pf.At)
		if err != nil {
			e := planErrorf("", SettingAt, pf.At, "at %q: expected an RFC 3339 time such as 2024-01-01T00:00:00Z", pf.At)
			e.Source = name
			return nil, e
		}
		p.At = t
	}
	if pf.Span != "" {
		d, err := time.ParseDuration(pf.Span)
		if err != nil || d < 0 {
			e := planErrorf("", SettingSpan, pf.Span, "span %q: expected a duration >= 0 such as 8760h", pf.Span)
			e.Source = name
			return nil, e
		}
		p.Span = spanOf(d)
	}
	for k, cf := range pf.Collections {
		cs, err := cf.spec(name, dir, k)
		if err != nil {
			return nil, err
		}
		p.Collections = append(p.Collections, cs)
	}
	return p, nil
}

// spec is the CollectionSpec of collections[k] of the plan file name;
// template file names are relative to dir.
func (cf *CollectionPlan) spec(name, dir string, k int) (CollectionSpec, error) {
	where := fmt.Sprintf("collections[%d]", k)
	if cf.Name != "" {
		where += " (" + cf.Name + ")"
	}
	bad := func(s Setting, value string, err error) error {
		return &PlanError{Source: name, Collection: cf.Name, Setting: s, Value: value, Err: err, where: where}
	}
	var cs CollectionSpec
	if err := cf.copyTo(&cs); err != nil {
		return CollectionSpec{}, bad(SettingCount, "", err)
	}
	for j, raw := range cf.Indexes {
		ix, err := indexes.ParseJSON(raw)
		if err != nil {
			e := bad(SettingIndexes, string(raw), err)
			e.(*PlanError).where = fmt.Sprintf("%s: indexes[%d]", where, j)
			return CollectionSpec{}, e
		}
		cs.Indexes = append(cs.Indexes, ix)
	}
	if s, v, err := cf.parseIDs(&cs); err != nil {
		return CollectionSpec{}, bad(s, v, err)
	}
	tmpl := bytes.TrimSpace(cf.Template)
	if len(tmpl) > 0 && !bytes.Equal(tmpl, []byte("null")) && !bytes.Equal(tmpl, []byte(`""`)) {
		if cf.Kind != "" {
			return CollectionSpec{}, bad(SettingKind, cf.Kind, fmt.Errorf("has both kind %q and template %s; expected one of them", cf.Kind, tmpl))
		}
		t, path, err := readTemplate(fmt.Sprintf("%s: %s.template", name, where), tmpl, dir)
		if err != nil {
			return CollectionSpec{}, bad(SettingTemplate, path, err)
		}
		cs.Template = t
	}
	return cs, nil
}

// parseIDs reads the collection's id and idMix into cs; an error comes
// with the setting and the value it is about.
func (cf *CollectionPlan) parseIDs(cs *CollectionSpec) (Setting, string, error) {
	id, err := ParseIDStrategy(cf.ID)
	if err != nil {
		return SettingID, cf.ID, fmt.Errorf("id: %w", err)
	}
	cs.ID = id
	if cs.IDMix, err = ParseIDMix(cf.IDMix); err == nil {
		err = checkIDMix(cs.ID, cs.IDMix)
	}
	if err != nil {
		raw, _ := json.Marshal(cf.IDMix)
		return SettingIDMix, string(raw), err
	}
	return 0, "", nil
}

// readTemplate reads the template of a collection: inline (named name),
// or the file tmpl names, relative to dir. path is "(inline)" or the file
// name as the plan gives it.
func readTemplate(name string, tmpl []byte, dir string) (t *Template, path string, err error) {
	if tmpl[0] == '{' {
		t, err = ParseTemplate(name, tmpl)
		path = "(inline)"
	} else if err = json.Unmarshal(tmpl, &path); err != nil {
		err = fmt.Errorf("template %s: expected a file name or a template object", tmpl)
	} else {
		file := path
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		t, err = LoadTemplate(file)
	}
	return t, path, err
}

// LoadTemplate reads and parses a template file.
func LoadTemplate(path string) (*Template, error) {
	data, err := readSmallFile(path)
	if err != nil {
		return nil, &TemplateError{Name: path, Err: err}
	}
	return ParseTemplate(path, data)
}

// maxFileSize bounds template and plan files: they describe documents, they
// are not data.
const maxFileSize = 4 << 20

// readSmallFile reads a regular file of at most maxFileSize bytes, so that a
// path such as /dev/zero fails instead of hanging. Anything else is refused
// before it is opened: opening a FIFO waits for a writer.
func readSmallFile(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: expected a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: expected a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxFileSize)
	}
	return data, nil
}
