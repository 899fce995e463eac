package seed

// The plan file: its JSON form, read by LoadPlan and ParsePlan.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/oidkit/oidkit/indexes"
)

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
