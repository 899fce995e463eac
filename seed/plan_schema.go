package seed

// The plan as text: one schema for the plan file, the run manifest's copy
// of the plan and the plan infer writes.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// PlanFile is a plan file: what ParsePlan reads and infer writes.
type PlanFile struct {
	DB string `json:"db"`
	// At and Span, when set, are the plan's time base and window (RFC 3339
	// and a Go duration such as 8760h): what an inferred plan keeps of its
	// source's ObjectID times. A caller's own settings take precedence.
	At          string           `json:"at,omitempty"`
	Span        string           `json:"span,omitempty"`
	Collections []CollectionPlan `json:"collections"`
}

// CollectionPlan is one collection of a plan as text: an element of a plan
// file's "collections", of a run manifest's "plan" (PlanRecord.Specs), and of
// an inferred plan. Its JSON keys are the plan file's, its BSON keys (in
// field order) the stored manifest's; both read what earlier versions
// wrote. A new setting is a field here, with both tags, the field of the
// same name and type in CollectionSpec (copySame copies it both ways;
// one of another type needs its parsing in spec and manifestSpec), and
// its Setting, whose key is its tag; PlanRecord.Diff then compares it.
type CollectionPlan struct {
	Name string `json:"name" bson:"name"`
	Kind string `json:"kind,omitempty" bson:"kind,omitempty"`
	// Template is a plan file's file name (a JSON string) or template (a
	// JSON object); a manifest keeps the template itself, whatever its
	// source, so that it does not depend on the file.
	Template JSONText `json:"template,omitempty" bson:"template,omitempty"`
	// TemplateName names a manifest's template in messages; a plan file
	// names it by its file.
	TemplateName string `json:"-" bson:"templateName,omitempty"`
	// Count is nil when a plan file leaves it out, which it must not.
	Count   *int64 `json:"count" bson:"count"`
	ID      string `json:"id,omitempty" bson:"id"`
	IDStart int64  `json:"idStart,omitempty" bson:"idStart"`
	IDStep  int64  `json:"idStep,omitempty" bson:"idStep,omitempty"`
	// IDQuantiles: the int _ids follow these quantiles (increasing).
	IDQuantiles []float64 `json:"idQuantiles,omitempty" bson:"idQuantiles,omitempty"`
	// IDMix is the shares of the documents whose _id another strategy
	// makes: {"objectid": 0.074} beside "id": "int" (CollectionSpec.IDMix).
	IDMix   IDMixMap `json:"idMix,omitempty" bson:"idMix,omitempty"`
	Refs    []Ref    `json:"refs,omitempty" bson:"refs,omitempty"`
	RefOnly bool     `json:"refOnly,omitempty" bson:"refOnly,omitempty"`
	// Times is the collection's spread of _id times (CollectionSpec.Times).
	Times []float64 `json:"times,omitempty" bson:"times,omitempty"`
	// Indexes are the collection's index declarations, each the document
	// createIndexes takes. A manifest keeps each as its canonical Extended
	// JSON: a key ("address.city") or a partial filter ("$eq") is not a
	// field name every server stores. They do not change the documents, so
	// Diff ignores them.
	Indexes []JSONText `json:"indexes,omitempty" bson:"indexes,omitempty"`
}

// writtenLast are the JSON keys a written plan gives after all the others,
// in this order: the template, which is long, then what names its fields.
// The other keys come first, in field order, so that a reader sees each
// collection's name, count and _id settings together.
var writtenLast = []string{"template", "refs", "indexes"}

// MarshalJSON writes c's keys in field order, those of writtenLast last.
func (c CollectionPlan) MarshalJSON() ([]byte, error) {
	type plain CollectionPlan // without this method
	data, err := json.Marshal(plain(c))
	if err != nil {
		return nil, err
	}
	var head, tail []string
	last := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	for dec.More() {
		key, err := dec.Token()
		var v json.RawMessage
		if err == nil {
			err = dec.Decode(&v)
		}
		if err != nil {
			return nil, err
		}
		k, _ := json.Marshal(key)
		if slices.Contains(writtenLast, key.(string)) {
			last[key.(string)] = string(k) + ":" + string(v)
		} else {
			head = append(head, string(k)+":"+string(v))
		}
	}
	for _, k := range writtenLast {
		if e, ok := last[k]; ok {
			tail = append(tail, e)
		}
	}
	return []byte("{" + strings.Join(append(head, tail...), ",") + "}"), nil
}

// JSONText is JSON text kept as it is: in a plan file, the JSON value
// itself; in a run manifest, a BSON string that holds it.
type JSONText []byte

// MarshalJSON returns t ("null" when empty).
func (t JSONText) MarshalJSON() ([]byte, error) {
	if len(t) == 0 {
		return []byte("null"), nil
	}
	return t, nil
}

// UnmarshalJSON keeps a copy of data.
func (t *JSONText) UnmarshalJSON(data []byte) error {
	*t = append((*t)[:0], data...)
	return nil
}

// MarshalBSONValue stores t as a BSON string.
func (t JSONText) MarshalBSONValue() (byte, []byte, error) {
	typ, data, err := bson.MarshalValue(string(t))
	return byte(typ), data, err
}

// UnmarshalBSONValue reads a BSON string (null: none).
func (t *JSONText) UnmarshalBSONValue(typ byte, data []byte) error {
	var s string
	switch bson.Type(typ) {
	case bson.TypeNull:
	case bson.TypeString:
		if err := bson.UnmarshalValue(bson.Type(typ), data, &s); err != nil {
			return err
		}
	default:
		return fmt.Errorf("JSON text stored as BSON %s: expected a string", bson.Type(typ))
	}
	*t = JSONText(s)
	return nil
}

// IDMixMap is an idMix setting: a share for each strategy spelling, as
// ParseIDMix reads it. Its JSON and its BSON list the strategies in the
// order ParseIDMix sorts them (objectid, int, uuid), not in a map's order,
// which changes from run to run.
type IDMixMap map[string]float64

// names are m's strategies in ParseIDMix's order.
func (m IDMixMap) names() []string {
	kind := func(s string) IDKind {
		id, err := ParseIDStrategy(s)
		if err != nil {
			return IDField
		}
		return id.Kind
	}
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		if ka, kb := kind(a), kind(b); ka != kb {
			return int(ka) - int(kb)
		}
		return strings.Compare(a, b)
	})
}

// MarshalJSON writes the strategies in ParseIDMix's order.
func (m IDMixMap) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	b := []byte{'{'}
	for k, s := range m.names() {
		if k > 0 {
			b = append(b, ',')
		}
		name, _ := json.Marshal(s)
		share, err := json.Marshal(m[s])
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, name...), ':'), share...)
	}
	return append(b, '}'), nil
}

// MarshalBSONValue stores the strategies in ParseIDMix's order, so that
// the same plan stores the same bytes (nil: null).
func (m IDMixMap) MarshalBSONValue() (byte, []byte, error) {
	var d bson.D
	if m != nil {
		d = bson.D{}
	}
	for _, s := range m.names() {
		d = append(d, bson.E{Key: s, Value: m[s]})
	}
	typ, data, err := bson.MarshalValue(d)
	return byte(typ), data, err
}

// idMixMap is the idMix setting of mix, as ParseIDMix reads it (nil for
// none).
func idMixMap(mix []IDShare) map[string]float64 {
	if len(mix) == 0 {
		return nil
	}
	m := make(map[string]float64, len(mix))
	for _, s := range mix {
		m[s.ID.String()] = s.Share
	}
	return m
}

// idMixText is mix as a plan file writes it: {"objectid":0.074}.
func idMixText(mix []IDShare) string {
	b, _ := json.Marshal(idMixMap(mix))
	return string(b)
}

// planOf is cs as text; a template is kept whole (a manifest's copy).
func planOf(cs CollectionSpec) CollectionPlan {
	var c CollectionPlan
	copySame(&c, &cs)
	n := cs.Count
	c.Count, c.ID, c.IDMix = &n, cs.ID.String(), idMixMap(cs.IDMix)
	if cs.Template != nil {
		c.Template, c.TemplateName = JSONText(cs.Template.JSON()), cs.Template.Name()
	}
	for _, ix := range cs.Indexes {
		j, err := bson.MarshalExtJSON(ix.Document(), true, false)
		if err != nil { // kept as text that Plan refuses, naming the index
			j = []byte(fmt.Sprintf("%q: %v", ix.String(), err))
		}
		c.Indexes = append(c.Indexes, JSONText(j))
	}
	return c
}

// copyTo sets the settings of cs that need no parsing (copySame) and the
// count; the template, the indexes, ID and IDMix are parsed by the caller.
// A missing count is an error.
func (c *CollectionPlan) copyTo(cs *CollectionSpec) error {
	if c.Count == nil {
		return errors.New("count: missing; expected a number of documents")
	}
	copySame(cs, c)
	cs.Count = *c.Count
	return nil
}

// copySame copies each field of *src into the field of *dst with the same
// name and type: the settings that CollectionPlan and CollectionSpec hold
// alike (Name, Kind, IDStart, Refs, Times, ...), so that a new setting of
// that kind needs no line here. The others (a type of its own on each
// side) are copied by planOf, copyTo and manifestSpec.
func copySame(dst, src any) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for i := range s.NumField() {
		f := s.Type().Field(i)
		if df, ok := d.Type().FieldByName(f.Name); ok && df.Type == f.Type {
			d.FieldByIndex(df.Index).Set(s.Field(i))
		}
	}
}
