package bsonval

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// MValue is a value being changed in place (by an update, a projection
// or a stage): a document (Doc), an array (IsArray, Arr) or a leaf value.
type MValue struct {
	Leaf    bsoncore.Value
	Doc     *MDoc
	Arr     []*MValue
	IsArray bool
}

// MDoc is a document being changed in place: its fields in order.
type MDoc struct {
	Keys []string
	Vals []*MValue
}

// Mutable is v as an MValue.
func Mutable(v bsoncore.Value) *MValue {
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		return &MValue{Doc: MutableDoc(bsoncore.Document(v.Data))}
	case bsoncore.TypeArray:
		m := &MValue{IsArray: true}
		for _, e := range ArrayValues(v) {
			m.Arr = append(m.Arr, Mutable(e))
		}
		return m
	}
	return &MValue{Leaf: v}
}

// MutableDoc is d as an MDoc.
func MutableDoc(d bsoncore.Document) *MDoc {
	md := &MDoc{}
	for _, e := range Elements(d) {
		md.Keys = append(md.Keys, e.Key())
		md.Vals = append(md.Vals, Mutable(e.Value()))
	}
	return md
}

// Value is m as BSON.
func (m *MValue) Value() bsoncore.Value {
	switch {
	case m.Doc != nil:
		return Doc(m.Doc.Build())
	case m.IsArray:
		vals := make([]bsoncore.Value, len(m.Arr))
		for i, e := range m.Arr {
			vals[i] = e.Value()
		}
		return Array(vals)
	}
	return m.Leaf
}

// Build is d as a BSON document.
func (d *MDoc) Build() bsoncore.Document {
	idx, b := bsoncore.AppendDocumentStart(nil)
	for i, k := range d.Keys {
		b = bsoncore.AppendValueElement(b, k, d.Vals[i].Value())
	}
	b, _ = bsoncore.AppendDocumentEnd(b, idx)
	return b
}

// Get is the value of field k and its position; nil and -1 when d has none.
func (d *MDoc) Get(k string) (*MValue, int) {
	for i, key := range d.Keys {
		if key == k {
			return d.Vals[i], i
		}
	}
	return nil, -1
}

// Set sets field k to v, at the end when d has no such field.
func (d *MDoc) Set(k string, v *MValue) {
	if _, i := d.Get(k); i >= 0 {
		d.Vals[i] = v
		return
	}
	d.Keys = append(d.Keys, k)
	d.Vals = append(d.Vals, v)
}

// Remove removes field k, if there is one.
func (d *MDoc) Remove(k string) {
	if _, i := d.Get(k); i >= 0 {
		d.Keys = append(d.Keys[:i:i], d.Keys[i+1:]...)
		d.Vals = append(d.Vals[:i:i], d.Vals[i+1:]...)
	}
}

// MutablePath is the value at parts under d, through documents and array
// indexes; nil when there is none.
func MutablePath(d *MDoc, parts []string) *MValue {
	cur := &MValue{Doc: d}
	for _, p := range parts {
		switch {
		case cur.Doc != nil:
			v, _ := cur.Doc.Get(p)
			if v == nil {
				return nil
			}
			cur = v
		case cur.IsArray:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(cur.Arr) {
				return nil
			}
			cur = cur.Arr[i]
		default:
			return nil
		}
	}
	return cur
}
