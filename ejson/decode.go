package ejson

import (
	"encoding/json"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// A Decoder turns Extended JSON into BSON. It keeps its scratch space from
// one call to the next, so a Decoder that reads many documents allocates
// almost nothing; the zero Decoder is ready to use. A Decoder is not safe
// for concurrent use.
type Decoder struct {
	// Strict also refuses what is not one RFC 8259 JSON text (what
	// encoding/json.Valid refuses) where the driver reads it anyway: a raw
	// control character in a string, \u without 4 hexadecimal digits,
	// anything but white space after the document.
	Strict bool

	p parser
}

// AppendDocument reads one Extended JSON object (canonical or relaxed, and
// the legacy forms the driver reads) from src and appends its BSON to dst.
// See the package documentation for what it accepts.
func AppendDocument(dst, src []byte) ([]byte, error) {
	var d Decoder
	return d.AppendDocument(dst, src)
}

// AppendDocument is the package's AppendDocument with d's settings and
// scratch space. On an error, dst is returned as it was.
func (d *Decoder) AppendDocument(dst, src []byte) ([]byte, error) {
	if out, ok := d.fastDocument(dst, src); ok {
		return out, nil
	}
	p := &d.p
	p.reset(src, d.Strict)
	t, err := p.peekType()
	if err != nil {
		return dst, err
	}
	switch t {
	case bsoncore.TypeEmbeddedDocument:
	case bsoncore.TypeNull:
		// The driver reads a top-level null as no document at all.
		if d.Strict {
			if err := d.rest(); err != nil {
				return dst, err
			}
		}
		return dst, nil
	default:
		found := "the end of the input"
		if t != 0 {
			found = "a value of type " + typeName(t)
		}
		return dst, &Error{Offset: p.tok.p, Found: found, Expected: "a JSON object {...}"}
	}
	w := writer{buf: dst}
	start := len(dst)
	w.buf = append(w.buf, 0, 0, 0, 0)
	if err := d.documentCore(&w, false); err != nil {
		return dst, err
	}
	w.end(start)
	if d.Strict {
		if err := d.rest(); err != nil {
			return dst, err
		}
	}
	return w.buf, nil
}

// rest checks, in strict mode, that the document closed where the text
// does: what the driver leaves unread must be white space, and it must not
// have read on past a closing brace.
func (d *Decoder) rest() error {
	p := &d.p
	if p.zeroBrace || p.depth != 0 || len(p.m) != 0 {
		// The driver stopped inside the text, or read past the end of
		// the document (input it reads oddly): JSON's own check decides.
		if json.Valid(p.sc.src) {
			return nil
		}
		return &Error{Offset: p.sc.pos, Found: "text that is not one JSON value", Expected: "one JSON object, its brackets balanced, with white space only after it"}
	}
	for i := p.sc.pos; i < len(p.sc.src); i++ {
		if !isSpace(p.sc.src[i]) {
			return &Error{Offset: i, Found: "text after the document", Expected: "white space only after the closing }"}
		}
	}
	return nil
}

// writer builds BSON as the driver's value writer does.
type writer struct {
	buf []byte
}

func (w *writer) end(start int) {
	w.buf = append(w.buf, 0)
	n := len(w.buf) - start
	w.buf[start] = byte(n)
	w.buf[start+1] = byte(n >> 8)
	w.buf[start+2] = byte(n >> 16)
	w.buf[start+3] = byte(n >> 24)
}

// name is where the next value goes: a key, or an index in an array.
type name struct {
	key   []byte
	kp    int
	index int
	array bool
}

func (w *writer) header(t bsoncore.Type, n name) error {
	w.buf = append(w.buf, byte(t))
	if n.array {
		w.buf = strconv.AppendInt(w.buf, int64(n.index), 10)
	} else {
		for _, c := range n.key {
			if c == 0 {
				return &Error{Offset: n.kp, Found: "the key " + shown(n.key) + ", which holds a NUL character", Expected: "a key without \\u0000 (BSON keys end at NUL)"}
			}
		}
		w.buf = append(w.buf, n.key...)
	}
	w.buf = append(w.buf, 0)
	return nil
}

// documentCore copies the elements of a document up to its end (the
// driver's copyDocumentCore); the caller wrote the length placeholder.
func (d *Decoder) documentCore(w *writer, scope bool) error {
	p := &d.p
	for {
		key, t, err := p.readKey()
		if err == errEOD {
			if scope {
				if _, err := p.peekType(); err != nil {
					if err == errEOA {
						return &Error{Offset: p.tok.p, Found: "]", Expected: "} to close {\"$code\": ..., \"$scope\": ...}"}
					}
					return err
				}
			}
			return nil
		}
		if err != nil {
			return err
		}
		if err := d.value(w, name{key: key, kp: p.kp}, t); err != nil {
			return err
		}
	}
}

func (d *Decoder) array(w *writer, n name) error {
	p := &d.p
	if err := w.header(bsoncore.TypeArray, n); err != nil {
		return err
	}
	start := len(w.buf)
	w.buf = append(w.buf, 0, 0, 0, 0)
	for i := 0; ; i++ {
		t, err := p.peekType()
		if err == errEOA {
			break
		}
		if err != nil {
			return err
		}
		if err := d.value(w, name{index: i, array: true}, t); err != nil {
			return err
		}
	}
	w.end(start)
	return nil
}

// value copies one value of type t (the driver's copyValue).
func (d *Decoder) value(w *writer, n name, t bsoncore.Type) error {
	p := &d.p
	switch t {
	case bsoncore.TypeEmbeddedDocument:
		if err := w.header(t, n); err != nil {
			return err
		}
		start := len(w.buf)
		w.buf = append(w.buf, 0, 0, 0, 0)
		if err := d.documentCore(w, false); err != nil {
			return err
		}
		w.end(start)
		return nil
	case bsoncore.TypeArray:
		return d.array(w, n)
	case bsoncore.TypeCodeWithScope:
		v, err := p.readValue(t)
		if err != nil {
			return err
		}
		if v.t != bsoncore.TypeString {
			return &Error{Offset: v.p, Found: describeValue(v) + " as the value of $code", Expected: "a string"}
		}
		if err := w.header(t, n); err != nil {
			return err
		}
		start := len(w.buf)
		w.buf = append(w.buf, 0, 0, 0, 0)
		w.buf = bsoncore.AppendString(w.buf, unsafeString(v.s))
		docStart := len(w.buf)
		w.buf = append(w.buf, 0, 0, 0, 0)
		if err := d.documentCore(w, true); err != nil {
			return err
		}
		w.end(docStart)
		// The code-with-scope length covers what follows its own bytes.
		l := len(w.buf) - start
		w.buf[start], w.buf[start+1], w.buf[start+2], w.buf[start+3] = byte(l), byte(l>>8), byte(l>>16), byte(l>>24)
		return nil
	case 0:
		return &Error{Offset: p.tok.p, Found: p.describeTok(), Expected: "a value"}
	}
	v, err := p.readValue(t)
	if err != nil {
		return err
	}
	return d.scalar(w, n, t, v)
}

// scalar checks and writes a value of type t that readValue read.
func (d *Decoder) scalar(w *writer, n name, t bsoncore.Type, v value) error {
	// The header goes first: on an error the whole document is dropped.
	if err := w.header(t, n); err != nil {
		return err
	}
	switch t {
	case bsoncore.TypeDouble, bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDecimal128:
		return w.number(t, v)
	case bsoncore.TypeString, bsoncore.TypeJavaScript, bsoncore.TypeSymbol:
		return w.text(t, v)
	case bsoncore.TypeBinary:
		return d.binary(w, v)
	case bsoncore.TypeUndefined, bsoncore.TypeNull, bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
		return valueless(t, v)
	case bsoncore.TypeObjectID:
		if v.t != bsoncore.TypeString {
			return typeErr(v, "a string of 24 hexadecimal digits as the value of $oid")
		}
		var id [12]byte
		if len(v.s) != 24 || !decodeHex(id[:], v.s) {
			return &Error{Offset: v.p, Found: "the $oid " + shown(v.s), Expected: "24 hexadecimal digits"}
		}
		w.buf = append(w.buf, id[:]...)
	case bsoncore.TypeBoolean:
		if v.t != bsoncore.TypeBoolean {
			return typeErr(v, "true or false")
		}
		w.buf = bsoncore.AppendBoolean(w.buf, v.b)
	case bsoncore.TypeDateTime:
		ms, err := parseDateTime(v)
		if err != nil {
			return err
		}
		w.buf = bsoncore.AppendDateTime(w.buf, ms)
	case bsoncore.TypeRegex:
		return w.regex(v)
	case bsoncore.TypeDBPointer:
		ns, id, err := parseDBPointer(v)
		if err != nil {
			return err
		}
		w.buf = appendString(w.buf, ns)
		w.buf = append(w.buf, id[:]...)
	case bsoncore.TypeTimestamp:
		ts, inc, err := parseTimestamp(v)
		if err != nil {
			return err
		}
		w.buf = bsoncore.AppendTimestamp(w.buf, ts, inc)
	default:
		return &Error{Offset: v.p, Found: describeValue(v), Expected: "a BSON value"}
	}
	return nil
}

// number checks and writes a double, an int32, an int64 or a decimal.
func (w *writer) number(t bsoncore.Type, v value) error {
	switch t {
	case bsoncore.TypeDouble:
		f, err := parseDouble(v)
		if err != nil {
			return err
		}
		w.buf = bsoncore.AppendDouble(w.buf, f)
	case bsoncore.TypeInt32:
		i, err := parseInt32(v)
		if err != nil {
			return err
		}
		w.buf = bsoncore.AppendInt32(w.buf, i)
	case bsoncore.TypeInt64:
		i, err := parseInt64Value(v, "$numberLong")
		if err != nil {
			return err
		}
		w.buf = bsoncore.AppendInt64(w.buf, i)
	case bsoncore.TypeDecimal128:
		if v.t != bsoncore.TypeString {
			return typeErr(v, "a string of a decimal number as the value of $numberDecimal")
		}
		dec, err := bson.ParseDecimal128(unsafeString(v.s))
		if err != nil {
			return &Error{Offset: v.p, Found: "the $numberDecimal " + shown(v.s), Expected: "a decimal number with at most 34 significant digits and an exponent from -6176 to 6111, Infinity, -Infinity or NaN"}
		}
		hi, lo := dec.GetBytes()
		w.buf = bsoncore.AppendDecimal128(w.buf, hi, lo)
	}
	return nil
}

// text checks and writes a string, $code or $symbol.
func (w *writer) text(t bsoncore.Type, v value) error {
	if v.t != bsoncore.TypeString {
		switch t {
		case bsoncore.TypeJavaScript:
			return typeErr(v, "a string as the value of $code")
		case bsoncore.TypeSymbol:
			return typeErr(v, "a string as the value of $symbol")
		}
		return typeErr(v, "a string")
	}
	w.buf = appendString(w.buf, v.s)
	return nil
}

// valueless checks the value of a type that is its header alone:
// undefined, null, $minKey and $maxKey.
func valueless(t bsoncore.Type, v value) error {
	switch t {
	case bsoncore.TypeUndefined:
		if v.t != bsoncore.TypeBoolean || !v.b {
			return typeErr(v, "true as the value of $undefined")
		}
	case bsoncore.TypeNull:
		if v.t != bsoncore.TypeNull {
			return typeErr(v, "null")
		}
	case bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
		if v.t != bsoncore.TypeInt32 || v.i != 1 {
			k := "$minKey"
			if t == bsoncore.TypeMaxKey {
				k = "$maxKey"
			}
			return typeErr(v, "the number 1 as the value of "+k)
		}
	}
	return nil
}

// regex checks and writes a $regularExpression, its options sorted.
func (w *writer) regex(v value) error {
	pattern, options, err := parseRegex(v)
	if err != nil {
		return err
	}
	for _, s := range [][]byte{pattern, options} {
		for _, c := range s {
			if c == 0 {
				return &Error{Offset: v.p, Found: "a $regularExpression with a NUL character in " + shown(s), Expected: "a pattern and options without \\u0000"}
			}
		}
	}
	w.buf = append(w.buf, pattern...)
	w.buf = append(w.buf, 0)
	w.buf = appendSortedOptions(w.buf, options)
	w.buf = append(w.buf, 0)
	return nil
}

func appendString(dst, s []byte) []byte {
	n := len(s) + 1
	dst = append(dst, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	dst = append(dst, s...)
	return append(dst, 0)
}

func typeErr(v value, expected string) error {
	return &Error{Offset: v.p, Found: describeValue(v), Expected: expected}
}
