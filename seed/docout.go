package seed

import (
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// docOut receives the fields a kind builds, in order, and keeps them either
// as a bson.D (Doc) or as BSON bytes (the stream): one description of each
// kind gives both, and the bytes are those of bson.Marshal of the bson.D.
// Writing bytes spares the stream boxing every value into an interface.
type docOut struct {
	w     *Worker
	raw   bool
	b     []byte // raw: the document so far
	d     bson.D // !raw: the fields so far
	stack []outFrame
	ok    bool // raw: false once a value appendValue does not take was met
}

// outFrame is a nested document or array being written.
type outFrame struct {
	key   string
	at    int32  // raw: where it starts
	d     bson.D // !raw: the fields of the enclosing document
	array bool
}

func (o *docOut) str(key, v string) {
	if o.raw {
		o.b = bsoncore.AppendStringElement(o.b, key, v)
		return
	}
	o.d = append(o.d, bson.E{Key: key, Value: v})
}

// strBytes is str of a string assembled in a scratch buffer, which the raw
// form copies without making it a string.
func (o *docOut) strBytes(key string, v []byte) {
	if o.raw {
		o.b = bsoncore.AppendHeader(o.b, bsoncore.TypeString, key)
		o.b = bsoncore.AppendInt32(o.b, int32(len(v)+1))
		o.b = append(append(o.b, v...), 0)
		return
	}
	o.d = append(o.d, bson.E{Key: key, Value: string(v)})
}

func (o *docOut) int32(key string, v int32) {
	if o.raw {
		o.b = bsoncore.AppendInt32Element(o.b, key, v)
		return
	}
	o.d = append(o.d, bson.E{Key: key, Value: v})
}

func (o *docOut) double(key string, v float64) {
	if o.raw {
		o.b = bsoncore.AppendDoubleElement(o.b, key, v)
		return
	}
	o.d = append(o.d, bson.E{Key: key, Value: v})
}

func (o *docOut) boolean(key string, v bool) {
	if o.raw {
		o.b = bsoncore.AppendBooleanElement(o.b, key, v)
		return
	}
	o.d = append(o.d, bson.E{Key: key, Value: v})
}

func (o *docOut) date(key string, v bson.DateTime) {
	if o.raw {
		o.b = bsoncore.AppendDateTimeElement(o.b, key, int64(v))
		return
	}
	o.d = append(o.d, bson.E{Key: key, Value: v})
}

// value writes a value of any type bson.D holds (references).
func (o *docOut) value(key string, v any) {
	if o.raw {
		var ok bool
		o.b, ok = appendValue(o.b, key, v)
		o.ok = o.ok && ok
		return
	}
	o.d = append(o.d, bson.E{Key: key, Value: v})
}

// open starts a nested document (or array, whose keys are indexKey(k)) of
// n fields as the next field; close ends it.
func (o *docOut) open(key string, array bool, n int) {
	if o.raw {
		var at int32
		if array {
			at, o.b = bsoncore.AppendArrayElementStart(o.b, key)
		} else {
			at, o.b = bsoncore.AppendDocumentElementStart(o.b, key)
		}
		o.stack = append(o.stack, outFrame{at: at})
		return
	}
	o.stack = append(o.stack, outFrame{key: key, d: o.d, array: array})
	o.d = o.w.newD(n)
}

func (o *docOut) close() {
	f := o.stack[len(o.stack)-1]
	o.stack = o.stack[:len(o.stack)-1]
	if o.raw {
		var err error
		o.b, err = bsoncore.AppendDocumentEnd(o.b, f.at)
		o.ok = o.ok && err == nil
		return
	}
	var v any = o.d
	if f.array {
		a := o.w.newA(len(o.d))
		for k := range a {
			a[k] = o.d[k].Value
		}
		v = a
	}
	o.d = append(f.d, bson.E{Key: f.key, Value: v})
}
