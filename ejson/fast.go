package ejson

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The fast path reads the Extended JSON that writers produce (oidkit's,
// mongoexport's, the driver's) by plain recursive descent over the same
// tokens: well-formed JSON whose objects are documents, or wrappers of the
// common types ($oid, $date, the numbers, canonical $binary) in their
// usual shape. On anything else it gives up, and the driver's state
// machine reads the input from the start: what the fast path accepts, the
// state machine reads to the same bytes (FuzzAgainstDriver checks both).

// fastMaxDepth keeps the fast path away from the nesting limit, whose
// counting is the state machine's.
const fastMaxDepth = 150

type fast struct {
	sc    *scanner
	tok   token
	depth int
}

// fastDocument appends the BSON of src's top-level document to dst, or
// returns ok false (and dst as it was) to leave src to the state machine.
func (d *Decoder) fastDocument(dst, src []byte) (out []byte, ok bool) {
	d.p.reset(src, d.Strict)
	f := fast{sc: &d.p.sc}
	if !f.next() || f.tok.t != tBeginObject {
		return dst, false
	}
	w := writer{buf: dst}
	if !f.document(&w) {
		return dst, false
	}
	if d.Strict {
		for i := f.sc.pos; i < len(src); i++ {
			if !isSpace(src[i]) {
				return dst, false
			}
		}
	}
	return w.buf, true
}

func (f *fast) next() bool {
	f.tok.s = nil
	return f.sc.next(&f.tok) == nil
}

// document reads the members of an object whose { was read, and its }.
func (f *fast) document(w *writer) bool {
	f.depth++
	if f.depth > fastMaxDepth {
		return false
	}
	start := len(w.buf)
	w.buf = append(w.buf, 0, 0, 0, 0)
	if !f.next() {
		return false
	}
	if f.tok.t != tEndObject {
		for {
			if f.tok.t != tString {
				return false
			}
			key := f.tok.s
			if !f.next() || f.tok.t != tColon || !f.next() {
				return false
			}
			if !f.value(w, key) {
				return false
			}
			if !f.next() {
				return false
			}
			if f.tok.t == tEndObject {
				break
			}
			if f.tok.t != tComma || !f.next() {
				return false
			}
		}
	}
	w.end(start)
	f.depth--
	return true
}

// header writes the element header of a value of type t; a key with a NUL
// is the state machine's to refuse.
func header(w *writer, t bsoncore.Type, key []byte) bool {
	for _, c := range key {
		if c == 0 {
			return false
		}
	}
	w.buf = append(w.buf, byte(t))
	w.buf = append(w.buf, key...)
	w.buf = append(w.buf, 0)
	return true
}

// value reads the value whose first token is f.tok, under key.
func (f *fast) value(w *writer, key []byte) bool {
	t := &f.tok
	switch t.t {
	case tString:
		if !header(w, bsoncore.TypeString, key) {
			return false
		}
		w.buf = appendString(w.buf, t.s)
	case tInt32:
		if !header(w, bsoncore.TypeInt32, key) {
			return false
		}
		w.buf = bsoncore.AppendInt32(w.buf, int32(t.i))
	case tInt64:
		if !header(w, bsoncore.TypeInt64, key) {
			return false
		}
		w.buf = bsoncore.AppendInt64(w.buf, t.i)
	case tDouble:
		if !header(w, bsoncore.TypeDouble, key) {
			return false
		}
		w.buf = bsoncore.AppendDouble(w.buf, t.f)
	case tBool:
		if !header(w, bsoncore.TypeBoolean, key) {
			return false
		}
		w.buf = bsoncore.AppendBoolean(w.buf, t.b)
	case tNull:
		return header(w, bsoncore.TypeNull, key)
	case tBeginArray:
		return f.array(w, key)
	case tBeginObject:
		return f.object(w, key)
	default:
		return false
	}
	return true
}

func (f *fast) array(w *writer, key []byte) bool {
	if !header(w, bsoncore.TypeArray, key) {
		return false
	}
	start := len(w.buf)
	w.buf = append(w.buf, 0, 0, 0, 0)
	if !f.next() {
		return false
	}
	var idx [20]byte
	if f.tok.t != tEndArray {
		for i := 0; ; i++ {
			if !f.value(w, strconv.AppendInt(idx[:0], int64(i), 10)) {
				return false
			}
			if !f.next() {
				return false
			}
			if f.tok.t == tEndArray {
				break
			}
			if f.tok.t != tComma || !f.next() {
				return false
			}
		}
	}
	w.end(start)
	return true
}

// object reads an object value whose { was read: a document, or one of
// the wrappers the fast path knows.
func (f *fast) object(w *writer, key []byte) bool {
	save := *f.sc
	if !f.next() {
		return false
	}
	if f.tok.t != tString || len(f.tok.s) == 0 || f.tok.s[0] != '$' {
		// A document: read again from its first member.
		*f.sc = save
		if !header(w, bsoncore.TypeEmbeddedDocument, key) {
			return false
		}
		return f.document(w)
	}
	wrapper := f.tok.s
	if !f.next() || f.tok.t != tColon || !f.next() {
		return false
	}
	v := f.tok
	switch string(wrapper) {
	case "$oid":
		return f.oid(w, key, v)
	case "$date":
		return f.date(w, key, v)
	case "$numberInt", "$numberLong", "$numberDouble", "$numberDecimal":
		return v.t == tString && f.number(w, key, wrapper, v.s)
	case "$binary":
		return v.t == tBeginObject && f.binary(w, key)
	}
	return false
}

// oid reads the rest of {"$oid": "..."}, v its value.
func (f *fast) oid(w *writer, key []byte, v token) bool {
	var id [12]byte
	if v.t != tString || len(v.s) != 24 || !decodeHex(id[:], v.s) || !f.close() || !header(w, bsoncore.TypeObjectID, key) {
		return false
	}
	w.buf = append(w.buf, id[:]...)
	return true
}

// date reads the rest of {"$date": ...}, v the first token of its value.
func (f *fast) date(w *writer, key []byte, v token) bool {
	var ms int64
	switch v.t {
	case tString:
		var err error
		if ms, err = parseDateTime(value{t: bsoncore.TypeString, s: v.s}); err != nil {
			return false
		}
	case tInt32, tInt64:
		ms = v.i
	case tBeginObject:
		n, ok := f.numberLong()
		if !ok {
			return false
		}
		ms = n
	default:
		return false
	}
	if !f.close() || !header(w, bsoncore.TypeDateTime, key) {
		return false
	}
	w.buf = bsoncore.AppendDateTime(w.buf, ms)
	return true
}

// number reads the rest of a number's wrapper, s the string it holds.
func (f *fast) number(w *writer, key, wrapper, s []byte) bool {
	switch string(wrapper) {
	case "$numberInt":
		n, err := parseInt32(value{t: bsoncore.TypeString, s: s})
		if err != nil || !f.close() || !header(w, bsoncore.TypeInt32, key) {
			return false
		}
		w.buf = bsoncore.AppendInt32(w.buf, n)
	case "$numberLong":
		n, ok := parseInt64(s)
		if !ok || !f.close() || !header(w, bsoncore.TypeInt64, key) {
			return false
		}
		w.buf = bsoncore.AppendInt64(w.buf, n)
	case "$numberDouble":
		x, err := parseDouble(value{t: bsoncore.TypeString, s: s})
		if err != nil || !f.close() || !header(w, bsoncore.TypeDouble, key) {
			return false
		}
		w.buf = bsoncore.AppendDouble(w.buf, x)
	case "$numberDecimal":
		dec, err := bson.ParseDecimal128(unsafeString(s))
		if err != nil || !f.close() || !header(w, bsoncore.TypeDecimal128, key) {
			return false
		}
		hi, lo := dec.GetBytes()
		w.buf = bsoncore.AppendDecimal128(w.buf, hi, lo)
	default:
		return false
	}
	return true
}

// close reads the } that ends a one-key wrapper.
func (f *fast) close() bool {
	return f.next() && f.tok.t == tEndObject
}

// numberLong reads {"$numberLong": "<integer>"} after its {.
func (f *fast) numberLong() (int64, bool) {
	if !f.next() || f.tok.t != tString || string(f.tok.s) != "$numberLong" || !f.next() || f.tok.t != tColon || !f.next() || f.tok.t != tString {
		return 0, false
	}
	n, ok := parseInt64(f.tok.s)
	return n, ok && f.close()
}

// binary reads {"base64": "...", "subType": "..."} (in either order) after
// its {, and the } of $binary.
func (f *fast) binary(w *writer, key []byte) bool {
	var data, sub []byte
	var have [2]bool
	for i := range 2 {
		if !f.next() || (i == 1 && (f.tok.t != tComma || !f.next())) || f.tok.t != tString {
			return false
		}
		k := f.tok.s
		if !f.next() || f.tok.t != tColon || !f.next() || f.tok.t != tString {
			return false
		}
		switch string(k) {
		case "base64":
			data, have[0] = f.tok.s, !have[0]
		case "subType":
			sub, have[1] = f.tok.s, !have[1]
		default:
			return false
		}
	}
	if !have[0] || !have[1] || !f.close() || !f.close() {
		return false
	}
	subtype, ok := parseHexByte(sub)
	if !ok || !header(w, bsoncore.TypeBinary, key) {
		return false
	}
	w.buf, ok = appendBinary(w.buf, subtype, data, true)
	return ok
}
