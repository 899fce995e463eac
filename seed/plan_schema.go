package seed

// The plan as text: one schema for the plan file, the run manifest's copy
// of the plan and the plan infer writes.

import (
	"bytes"
	"cmp"
	"encoding/binary"
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
// an inferred plan. It is the CollectionSpec, whose tags give each setting
// its keys, with the settings that text holds otherwise in fields of their
// own, which take the place of the CollectionSpec fields of their names.
// Its JSON keys are the plan file's, its BSON keys the stored manifest's,
// each written in the order earlier versions wrote them (planFields); both
// read what earlier versions wrote. A new setting is a field of
// CollectionSpec with both tags: it is copied both ways with the spec, its
// key names its Setting and PlanRecord.Diff compares it. One with a text
// form of its own is tagged "-" there and has its field here, parsed in
// spec and manifestSpec.
type CollectionPlan struct {
	CollectionSpec `bson:",inline"`
	// Template is a plan file's file name (a JSON string) or template (a
	// JSON object); a manifest keeps the template itself, whatever its
	// source, so that it does not depend on the file.
	Template JSONText `json:"template,omitempty" bson:"template,omitempty"`
	// TemplateName names a manifest's template in messages; a plan file
	// names it by its file.
	TemplateName string `json:"-" bson:"templateName,omitempty"`
	// Count is nil when a plan file leaves it out, which it must not.
	Count *int64 `json:"count" bson:"count"`
	ID    string `json:"id,omitempty" bson:"id"`
	// IDMix is the shares of the documents whose _id another strategy
	// makes: {"objectid": 0.074} beside "id": "int" (CollectionSpec.IDMix).
	IDMix IDMixMap `json:"idMix,omitempty" bson:"idMix,omitempty"`
	// Indexes are the collection's index declarations, each the document
	// createIndexes takes. A manifest keeps each as its canonical Extended
	// JSON: a key ("address.city") or a partial filter ("$eq") is not a
	// field name every server stores. They do not change the documents, so
	// Diff ignores them.
	Indexes []JSONText `json:"indexes,omitempty" bson:"indexes,omitempty"`
}

// storedOrder is the order in which run manifests have stored the keys of
// a collection's plan: the fields' order before CollectionPlan embedded
// CollectionSpec. The keys of settings added since follow them.
var storedOrder = []string{"name", "kind", "template", "templateName", "count", "id", "idStart", "idStep",
	"idQuantiles", "idMix", "refs", "refOnly", "times", "indexes"}

// writtenLast are the JSON keys a written plan gives after all the others,
// in this order: the template, which is long, then what names its fields.
// The other keys come first, in stored order, so that a reader sees each
// collection's name, count and _id settings together.
var writtenLast = []string{"template", "refs", "indexes"}

// planFields are the fields of CollectionPlan that have a key (promoted
// from CollectionSpec or its own), in the order its BSON writes them:
// storedOrder, then the others in field order. bsonKeys and jsonKeys are
// their keys in the order CollectionPlan writes them.
var (
	planFields         = keyedFields()
	bsonKeys, jsonKeys = writtenKeys(planFields)
)

// keyedFields is planFields.
func keyedFields() []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(reflect.TypeFor[CollectionPlan]()) {
		if !f.Anonymous && (tagKey(f, "json") != "" || tagKey(f, "bson") != "") {
			out = append(out, f)
		}
	}
	rank := func(f reflect.StructField) int {
		return keyRank(storedOrder, cmp.Or(tagKey(f, "bson"), tagKey(f, "json")))
	}
	slices.SortStableFunc(out, func(a, b reflect.StructField) int { return rank(a) - rank(b) })
	return out
}

// writtenKeys are the BSON and the JSON keys of fields, in the order
// CollectionPlan writes them.
func writtenKeys(fields []reflect.StructField) (bsonKeys, jsonKeys []string) {
	var last []string
	for _, f := range fields {
		if k := tagKey(f, "bson"); k != "" {
			bsonKeys = append(bsonKeys, k)
		}
		if k := tagKey(f, "json"); slices.Contains(writtenLast, k) {
			last = append(last, k)
		} else if k != "" {
			jsonKeys = append(jsonKeys, k)
		}
	}
	slices.SortFunc(last, func(a, b string) int { return keyRank(writtenLast, a) - keyRank(writtenLast, b) })
	return bsonKeys, append(jsonKeys, last...)
}

// tagKey is the key f's tag of that name gives it, "" for none.
func tagKey(f reflect.StructField, tag string) string {
	k, _, _ := strings.Cut(f.Tag.Get(tag), ",")
	if k == "-" {
		return ""
	}
	return k
}

// keyRank is the place of key in order, after all of them when it has none.
func keyRank(order []string, key string) int {
	if k := slices.Index(order, key); k >= 0 {
		return k
	}
	return len(order)
}

// MarshalJSON writes c's keys in the order of jsonKeys.
func (c CollectionPlan) MarshalJSON() ([]byte, error) {
	type plain CollectionPlan // without this method
	data, err := json.Marshal(plain(c))
	if err != nil {
		return nil, err
	}
	type member struct {
		rank int
		text string
	}
	var members []member
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
		members = append(members, member{keyRank(jsonKeys, key.(string)), string(k) + ":" + string(v)})
	}
	slices.SortStableFunc(members, func(a, b member) int { return a.rank - b.rank })
	b := []byte{'{'}
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m.text...)
	}
	return append(b, '}'), nil
}

// MarshalBSON writes c's keys in the order of bsonKeys, the order of the
// manifests earlier versions stored.
func (c CollectionPlan) MarshalBSON() ([]byte, error) {
	type plain CollectionPlan // without this method
	data, err := bson.Marshal(plain(c))
	if err != nil {
		return nil, err
	}
	elems, err := bson.Raw(data).Elements()
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(elems, func(a, b bson.RawElement) int {
		return keyRank(bsonKeys, a.Key()) - keyRank(bsonKeys, b.Key())
	})
	out := make([]byte, 4, len(data))
	for _, e := range elems {
		out = append(out, e...)
	}
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out, nil
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
	n := cs.Count
	c := CollectionPlan{CollectionSpec: cs.asIs(), Count: &n, ID: cs.ID.String(), IDMix: idMixMap(cs.IDMix)}
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

// copyTo sets the settings of cs that text holds as they are (those of the
// embedded CollectionSpec) and the count; the template, the indexes, ID
// and IDMix are parsed by the caller. A missing count is an error.
func (c *CollectionPlan) copyTo(cs *CollectionSpec) error {
	if c.Count == nil {
		return errors.New("count: missing; expected a number of documents")
	}
	*cs = c.CollectionSpec.asIs()
	cs.Count = *c.Count
	return nil
}

// asIs is cs with only the settings that text holds as they are: what a
// CollectionPlan embeds (the others are its own fields).
func (cs CollectionSpec) asIs() CollectionSpec {
	cs.Template, cs.Count, cs.ID, cs.IDMix, cs.Indexes = nil, 0, IDStrategy{}, nil, nil
	return cs
}
