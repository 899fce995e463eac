package ejson

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

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
	case bsoncore.TypeDouble:
		f, err := parseDouble(v)
		if err != nil {
			return err
		}
		w.buf = bsoncore.AppendDouble(w.buf, f)
	case bsoncore.TypeString:
		if v.t != bsoncore.TypeString {
			return typeErr(v, "a string")
		}
		w.buf = appendString(w.buf, v.s)
	case bsoncore.TypeBinary:
		return d.binary(w, v)
	case bsoncore.TypeUndefined:
		if v.t != bsoncore.TypeBoolean || !v.b {
			return typeErr(v, "true as the value of $undefined")
		}
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
	case bsoncore.TypeNull:
		if v.t != bsoncore.TypeNull {
			return typeErr(v, "null")
		}
	case bsoncore.TypeRegex:
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
	case bsoncore.TypeDBPointer:
		ns, id, err := parseDBPointer(v)
		if err != nil {
			return err
		}
		w.buf = appendString(w.buf, ns)
		w.buf = append(w.buf, id[:]...)
	case bsoncore.TypeJavaScript:
		if v.t != bsoncore.TypeString {
			return typeErr(v, "a string as the value of $code")
		}
		w.buf = appendString(w.buf, v.s)
	case bsoncore.TypeSymbol:
		if v.t != bsoncore.TypeString {
			return typeErr(v, "a string as the value of $symbol")
		}
		w.buf = appendString(w.buf, v.s)
	case bsoncore.TypeInt32:
		i, err := parseInt32(v)
		if err != nil {
			return err
		}
		w.buf = bsoncore.AppendInt32(w.buf, i)
	case bsoncore.TypeTimestamp:
		ts, inc, err := parseTimestamp(v)
		if err != nil {
			return err
		}
		w.buf = bsoncore.AppendTimestamp(w.buf, ts, inc)
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
	case bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
		if v.t != bsoncore.TypeInt32 || v.i != 1 {
			k := "$minKey"
			if t == bsoncore.TypeMaxKey {
				k = "$maxKey"
			}
			return typeErr(v, "the number 1 as the value of "+k)
		}
	default:
		return &Error{Offset: v.p, Found: describeValue(v), Expected: "a BSON value"}
	}
	return nil
}

func appendString(dst, s []byte) []byte {
	n := len(s) + 1
	dst = append(dst, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	dst = append(dst, s...)
	return append(dst, 0)
}

// appendSortedOptions writes regular expression options sorted by code
// point, as the driver does (which turns invalid UTF-8 into U+FFFD).
func appendSortedOptions(dst, options []byte) []byte {
	ascii := true
	for _, c := range options {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		start := len(dst)
		dst = append(dst, options...)
		o := dst[start:]
		// Insertion sort: options are a few letters.
		for i := 1; i < len(o); i++ {
			for j := i; j > 0 && o[j] < o[j-1]; j-- {
				o[j], o[j-1] = o[j-1], o[j]
			}
		}
		return dst
	}
	rs := []rune(string(options))
	sort.Slice(rs, func(i, j int) bool { return rs[i] < rs[j] })
	return append(dst, string(rs)...)
}

func typeErr(v value, expected string) error {
	return &Error{Offset: v.p, Found: describeValue(v), Expected: expected}
}

func parseDouble(v value) (float64, error) {
	if v.t == bsoncore.TypeDouble {
		return v.f, nil
	}
	if v.t != bsoncore.TypeString {
		return 0, typeErr(v, "a string as the value of $numberDouble")
	}
	switch string(v.s) {
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(unsafeString(v.s), 64)
	if err != nil {
		return 0, &Error{Offset: v.p, Found: "the $numberDouble " + shown(v.s), Expected: "a number within the range of a double, Infinity, -Infinity or NaN"}
	}
	return f, nil
}

func parseInt32(v value) (int32, error) {
	if v.t == bsoncore.TypeInt32 {
		return int32(v.i), nil
	}
	i, err := parseInt64Value(v, "$numberInt")
	if err != nil {
		return 0, err
	}
	if i < math.MinInt32 || i > math.MaxInt32 {
		return 0, &Error{Offset: v.p, Found: "the $numberInt " + shown(v.s), Expected: "an integer from -2147483648 to 2147483647"}
	}
	return int32(i), nil
}

func parseInt64Value(v value, wrapper string) (int64, error) {
	if v.t == bsoncore.TypeInt64 && wrapper == "$numberLong" {
		return v.i, nil
	}
	if v.t != bsoncore.TypeString {
		return 0, typeErr(v, "a string of an integer as the value of "+wrapper)
	}
	i, ok := parseInt64(v.s)
	if !ok {
		return 0, &Error{Offset: v.p, Found: "the " + wrapper + " " + shown(v.s), Expected: "a decimal integer from -9223372036854775808 to 9223372036854775807"}
	}
	return i, nil
}

// The driver's $date string formats.
var dateFormats = [...]string{"2006-01-02T15:04:05.999Z07:00", "2006-01-02T15:04:05.999Z0700"}

func parseDateTime(v value) (int64, error) {
	switch v.t {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return v.i, nil
	case bsoncore.TypeString:
		if ms, ok := fastDate(v.s); ok {
			return ms, nil
		}
		for _, f := range dateFormats {
			if t, err := time.Parse(f, unsafeString(v.s)); err == nil {
				return t.Unix()*1e3 + int64(t.Nanosecond())/1e6, nil
			}
		}
		return 0, &Error{Offset: v.p, Found: "the $date " + shown(v.s), Expected: "an RFC 3339 date and time such as 2024-05-06T07:08:09.123Z"}
	case bsoncore.TypeEmbeddedDocument:
		o := v.obj
		found := false
		var ms int64
		for i := range o.n {
			k, val := o.keys[i], o.vals[i]
			if string(k) != "$numberLong" {
				return 0, &Error{Offset: val.p, Found: "the key " + shown(k) + " in $date", Expected: "{\"$numberLong\": \"<milliseconds>\"}"}
			}
			if found {
				return 0, &Error{Offset: val.p, Found: "$numberLong twice in $date", Expected: "one $numberLong"}
			}
			if val.t != bsoncore.TypeString {
				return 0, typeErr(val, "a string of an integer as the $numberLong of $date")
			}
			n, err := parseInt64Value(val, "$numberLong")
			if err != nil {
				return 0, err
			}
			ms, found = n, true
		}
		if !found {
			return 0, &Error{Offset: v.p, Found: "a $date object without $numberLong", Expected: "{\"$numberLong\": \"<milliseconds>\"}"}
		}
		return ms, nil
	}
	return 0, typeErr(v, "a string or an object as the value of $date")
}

// fastDate reads the one date format oidkit writes,
// YYYY-MM-DDTHH:MM:SS[.mmm]Z, as time.Parse does with the driver's format;
// anything else is left to time.Parse.
func fastDate(s []byte) (int64, bool) {
	if len(s) != 20 && len(s) != 24 {
		return 0, false
	}
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	if s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return 0, false
	}
	year, ok1 := num(s[0:4])
	month, ok2 := num(s[5:7])
	day, ok3 := num(s[8:10])
	hour, ok4 := num(s[11:13])
	minute, ok5 := num(s[14:16])
	sec, ok6 := num(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, false
	}
	ms := 0
	if len(s) == 24 {
		if s[19] != '.' {
			return 0, false
		}
		var ok bool
		if ms, ok = num(s[20:23]); !ok {
			return 0, false
		}
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	return t.Unix()*1e3 + int64(ms), true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// binary writes the length, subtype and bytes of a $binary (canonical,
// legacy or $uuid) after checking it as the driver does.
func (d *Decoder) binary(w *writer, v value) error {
	dataVal, sub, err := pair(v, "$binary", "base64", "subType")
	if err != nil {
		return err
	}
	if dataVal.t != bsoncore.TypeString {
		return typeErr(dataVal, "a base64 string as the base64 of $binary")
	}
	if sub.t != bsoncore.TypeString {
		return typeErr(sub, "a string of 1 or 2 hexadecimal digits as the subType of $binary")
	}
	subtype, ok := parseHexByte(sub.s)
	if !ok {
		return &Error{Offset: sub.p, Found: "the subType " + shown(sub.s), Expected: "a hexadecimal number from 00 to ff"}
	}
	decoded := dataVal.i == 1
	if w.buf, ok = appendBinary(w.buf, subtype, dataVal.s, !decoded); !ok {
		return &Error{Offset: dataVal.p, Found: "the base64 " + shown(dataVal.s), Expected: "standard base64 (RFC 4648, with padding)"}
	}
	return nil
}

// appendBinary appends a binary value's length, subtype and data, decoding
// data from base64 when b64 is set; false if it is not base64.
func appendBinary(buf []byte, subtype byte, data []byte, b64 bool) ([]byte, bool) {
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0, subtype)
	if subtype == 2 {
		buf = append(buf, 0, 0, 0, 0)
	}
	body := len(buf)
	if !b64 {
		buf = append(buf, data...)
	} else {
		var err error
		if buf, err = base64.StdEncoding.AppendDecode(buf, data); err != nil {
			return buf[:start], false
		}
	}
	l := len(buf) - body
	if subtype == 2 {
		// The old binary subtype repeats the length inside.
		put32(buf[start:], l+4)
		put32(buf[start+5:], l)
	} else {
		put32(buf[start:], l)
	}
	return buf, true
}

func put32(b []byte, n int) {
	b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
}

// parseHexByte is strconv.ParseUint(s, 16, 8) without its error value.
func parseHexByte(s []byte) (byte, bool) {
	if len(s) == 0 {
		return 0, false
	}
	var n uint
	for _, c := range s {
		d, ok := hexVal(c)
		if !ok {
			return 0, false
		}
		n = n*16 + uint(d)
		if n > 255 {
			return 0, false
		}
	}
	return byte(n), true
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeHex decodes 2*len(dst) hexadecimal digits of src into dst.
func decodeHex(dst, src []byte) bool {
	if len(src) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, ok1 := hexVal(src[2*i])
		lo, ok2 := hexVal(src[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

// pair is the values of the two keys of a wrapper's object, k1's and
// k2's, written once each in either order.
func pair(v value, wrapper, k1, k2 string) (a, b value, err error) {
	if v.t != bsoncore.TypeEmbeddedDocument {
		return a, b, typeErr(v, "an object as the value of "+wrapper)
	}
	o := v.obj
	var have [2]bool
	for i := range o.n {
		k, val := o.keys[i], o.vals[i]
		j := -1
		switch string(k) {
		case k1:
			j, a = 0, val
		case k2:
			j, b = 1, val
		default:
			return a, b, &Error{Offset: val.p, Found: "the key " + shown(k) + " in " + wrapper, Expected: k1 + " and " + k2}
		}
		if have[j] {
			return a, b, &Error{Offset: val.p, Found: string(k) + " twice in " + wrapper, Expected: k1 + " and " + k2 + " once each"}
		}
		have[j] = true
	}
	if !have[0] || !have[1] {
		return a, b, &Error{Offset: v.p, Found: "a " + wrapper + " without " + k1 + " or " + k2, Expected: k1 + " and " + k2}
	}
	return a, b, nil
}

func parseRegex(v value) (pattern, options []byte, err error) {
	pv, ov, err := pair(v, "$regularExpression", "pattern", "options")
	if err != nil {
		return nil, nil, err
	}
	for _, x := range []value{pv, ov} {
		if x.t != bsoncore.TypeString {
			return nil, nil, typeErr(x, "strings as the pattern and options of $regularExpression")
		}
	}
	return pv.s, ov.s, nil
}

func parseDBPointer(v value) (ns []byte, id [12]byte, err error) {
	nv, iv, err := pair(v, "$dbPointer", "$ref", "$id")
	if err != nil {
		return nil, id, err
	}
	if nv.t != bsoncore.TypeString {
		return nil, id, typeErr(nv, "a string as the $ref of $dbPointer")
	}
	if iv.t != bsoncore.TypeString || len(iv.s) != 24 || !decodeHex(id[:], iv.s) {
		return nil, id, typeErr(iv, "24 hexadecimal digits, or {\"$oid\": ...}, as the $id of $dbPointer")
	}
	return nv.s, id, nil
}

func parseTimestamp(v value) (t, i uint32, err error) {
	tv, iv, err := pair(v, "$timestamp", "t", "i")
	if err != nil {
		return 0, 0, err
	}
	var out [2]uint32
	for j, x := range []value{tv, iv} {
		if (x.t != bsoncore.TypeInt32 && x.t != bsoncore.TypeInt64) || x.i < 0 || x.i > math.MaxUint32 {
			return 0, 0, typeErr(x, "integers from 0 to 4294967295 as t and i of $timestamp")
		}
		out[j] = uint32(x.i)
	}
	return out[0], out[1], nil
}

func describeValue(v value) string {
	switch v.t {
	case bsoncore.TypeString:
		return "the string " + shown(v.s)
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return "the number " + strconv.FormatInt(v.i, 10)
	case bsoncore.TypeDouble:
		return "the number " + strconv.FormatFloat(v.f, 'g', -1, 64)
	case bsoncore.TypeBoolean:
		return strconv.FormatBool(v.b)
	case bsoncore.TypeNull:
		return "null"
	case bsoncore.TypeEmbeddedDocument:
		return "an object"
	}
	return "a value of type " + typeName(v.t)
}

func typeName(t bsoncore.Type) string {
	switch t {
	case bsoncore.TypeEmbeddedDocument:
		return "document"
	case bsoncore.TypeArray:
		return "array"
	case bsoncore.TypeInt32:
		return "int32"
	case bsoncore.TypeInt64:
		return "int64"
	case bsoncore.TypeDouble:
		return "double"
	case bsoncore.TypeString:
		return "string"
	case bsoncore.TypeBoolean:
		return "boolean"
	case bsoncore.TypeNull:
		return "null"
	}
	return t.String()
}

func itoa(n int) string { return strconv.Itoa(n) }
