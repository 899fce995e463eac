package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// mval is a value being updated: a document, an array or a leaf value.
type mval struct {
	leaf bsoncore.Value
	doc  *mdoc
	arr  []*mval
	isA  bool
}

type mdoc struct {
	keys []string
	vals []*mval
}

func toM(v bsoncore.Value) *mval {
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		return &mval{doc: toMDoc(bsoncore.Document(v.Data))}
	case bsoncore.TypeArray:
		m := &mval{isA: true}
		for _, e := range bsonval.ArrayValues(v) {
			m.arr = append(m.arr, toM(e))
		}
		return m
	}
	return &mval{leaf: v}
}

func toMDoc(d bsoncore.Document) *mdoc {
	md := &mdoc{}
	for _, e := range bsonval.Elements(d) {
		md.keys = append(md.keys, e.Key())
		md.vals = append(md.vals, toM(e.Value()))
	}
	return md
}

func (m *mval) value() bsoncore.Value {
	switch {
	case m.doc != nil:
		return bsonval.Doc(m.doc.build())
	case m.isA:
		vals := make([]bsoncore.Value, len(m.arr))
		for i, e := range m.arr {
			vals[i] = e.value()
		}
		return bsonval.Array(vals)
	}
	return m.leaf
}

func (d *mdoc) build() bsoncore.Document {
	idx, b := bsoncore.AppendDocumentStart(nil)
	for i, k := range d.keys {
		b = bsoncore.AppendValueElement(b, k, d.vals[i].value())
	}
	b, _ = bsoncore.AppendDocumentEnd(b, idx)
	return b
}

func (d *mdoc) get(k string) (*mval, int) {
	for i, key := range d.keys {
		if key == k {
			return d.vals[i], i
		}
	}
	return nil, -1
}

func (d *mdoc) set(k string, v *mval) {
	if _, i := d.get(k); i >= 0 {
		d.vals[i] = v
		return
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
}

func (d *mdoc) remove(k string) {
	if _, i := d.get(k); i >= 0 {
		d.keys = append(d.keys[:i:i], d.keys[i+1:]...)
		d.vals = append(d.vals[:i:i], d.vals[i+1:]...)
	}
}
