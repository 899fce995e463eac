package seed

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// PlanDiff is the first setting in which two plan records would make different
// documents: Field is SettingFormat, SettingSeed, SettingAt, SettingSpan,
// SettingCollections, SettingStored, or a collection's setting
// (SettingKind, SettingTemplate, SettingCount, SettingID, SettingRef ...),
// with Collection naming the collection.
type PlanDiff struct {
	Field      Setting
	Collection string
	Old, New   string
}

// Diff compares the settings that decide the documents of m and n; nil
// means both make the same documents.
func (m *PlanRecord) Diff(n *PlanRecord) *PlanDiff {
	at := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	span := func(s int64) string { return (time.Duration(s) * time.Second).String() }
	switch {
	case m.format() != n.format():
		return &PlanDiff{Field: SettingFormat, Old: strconv.Itoa(m.format()), New: strconv.Itoa(n.format())}
	case m.Seeded != n.Seeded || (m.Seeded && m.Seed != n.Seed):
		return &PlanDiff{Field: SettingSeed, Old: m.seedString(), New: n.seedString()}
	case !m.At.Equal(n.At):
		return &PlanDiff{Field: SettingAt, Old: at(m.At), New: at(n.At)}
	case m.Span != n.Span:
		return &PlanDiff{Field: SettingSpan, Old: span(m.Span), New: span(n.Span)}
	}
	names := func(ss []CollectionPlan) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return fmt.Sprint(out)
	}
	if len(m.Specs) != len(n.Specs) {
		// A reference that draws from stored documents replaces the
		// collection it referred to: the references are the difference.
		if d := refsDiff(m.Specs, n.Specs); d != nil {
			return d
		}
		return &PlanDiff{Field: SettingCollections, Old: names(m.Specs), New: names(n.Specs)}
	}
	for k, a := range m.Specs {
		b := n.Specs[k]
		if a.Name != b.Name {
			return &PlanDiff{Field: SettingCollections, Old: names(m.Specs), New: names(n.Specs)}
		}
		if field, x, y := collectionDiff(a, b); field != 0 {
			return &PlanDiff{Field: field, Collection: a.Name, Old: x, New: y}
		}
	}
	if d := StoredDiff(m.Stored, n.Stored); d != nil {
		return d
	}
	return nil
}

// sameDocuments are the fields of CollectionPlan, by key, that do not
// change the documents (or that another field's rule compares): Diff
// passes over them.
var sameDocuments = []string{"name", "templateName", "idMix", "refOnly", "indexes"}

// collectionDiff is the first setting in which a and b, one collection of
// two plans, make other documents, and each side's value as messages show
// it; 0 when they make the same. It goes through CollectionPlan's fields
// in order (planFields): a field with a rule of its own below is compared
// by it, one of sameDocuments not at all, and any other by its text
// (fmt.Sprint) under the Setting its key names, so that a new setting is
// compared with no line here.
func collectionDiff(a, b CollectionPlan) (Setting, string, string) {
	intIDs := a.ID == "int" || a.IDMix["int"] > 0
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for _, f := range planFields {
		key := tagKey(f, "bson")
		var x, y string
		switch {
		case key == "" || slices.Contains(sameDocuments, key):
			continue // not stored, or no other documents
		case key == "kind":
			// A kind and a template are one choice.
			if a.Kind == b.Kind && (len(a.Template) == 0) == (len(b.Template) == 0) {
				continue
			}
			return SettingKind, a.what(), b.what()
		case key == "template":
			x, y = string(a.Template), string(b.Template)
		case key == "count":
			x, y = countText(a.Count), countText(b.Count)
		case key == "id" && a.ID == b.ID:
			// The shares of the other strategies, with the strategy.
			key, x, y = "idMix", fmt.Sprint(a.IDMix), fmt.Sprint(b.IDMix)
		case (key == "idStart" || key == "idStep" || key == "idQuantiles") && !intIDs:
			continue // only int _ids use them
		case key == "idStep":
			x, y = strconv.FormatInt(max(a.IDStep, 1), 10), strconv.FormatInt(max(b.IDStep, 1), 10)
		case key == "refs":
			x, y = refsText(a.Refs), refsText(b.Refs)
		default:
			x, y = fmt.Sprint(va.FieldByIndex(f.Index).Interface()), fmt.Sprint(vb.FieldByIndex(f.Index).Interface())
		}
		if x != y {
			return settingOfKey(key), x, y
		}
	}
	return 0, "", ""
}

// refsDiff is the first collection of both was and now whose references
// differ, or nil.
func refsDiff(was, now []CollectionPlan) *PlanDiff {
	for _, a := range was {
		for _, b := range now {
			if a.Name == b.Name && refsText(a.Refs) != refsText(b.Refs) {
				return &PlanDiff{Field: SettingRef, Collection: a.Name, Old: refsText(a.Refs), New: refsText(b.Refs)}
			}
		}
	}
	return nil
}

// refsText is refs as a plan file writes them.
func refsText(refs []Ref) string {
	if len(refs) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(refs)
	return string(b)
}

// StoredDiff is the first difference between two records of what stored
// references drew from (Manifest.Stored), or nil: field "stored", the
// collection, and each side's count of _ids ("300 _ids").
func StoredDiff(was, now []StoredSet) *PlanDiff {
	find := func(ss []StoredSet, name string) (StoredSet, bool) {
		for _, s := range ss {
			if s.Collection == name {
				return s, true
			}
		}
		return StoredSet{}, false
	}
	show := func(s StoredSet, ok bool) string {
		if !ok {
			return "not read"
		}
		return fmt.Sprintf("%d _ids", s.Count)
	}
	var names []string
	for _, s := range append(append([]StoredSet(nil), was...), now...) {
		if !slices.Contains(names, s.Collection) {
			names = append(names, s.Collection)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		a, aok := find(was, name)
		b, bok := find(now, name)
		if aok == bok && a == b {
			continue
		}
		old, new := show(a, aok), show(b, bok)
		if old == new {
			new += " (other ones)"
		}
		return &PlanDiff{Field: SettingStored, Collection: name, Old: old, New: new}
	}
	return nil
}

func (m *PlanRecord) seedString() string {
	if !m.Seeded {
		return "unseeded"
	}
	return m.Seed
}

// countText is a count as messages write it ("missing" for none).
func countText(n *int64) string {
	if n == nil {
		return "missing"
	}
	return strconv.FormatInt(*n, 10)
}

// what is the kind, or "template NAME".
func (s CollectionPlan) what() string {
	if len(s.Template) > 0 {
		return "template " + s.TemplateName
	}
	return s.Kind
}
