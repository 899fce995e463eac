package ejson

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The parser is the driver's Extended JSON state machine, state for state,
// so that what it accepts, and how it reads the odd input that it accepts,
// is the driver's: a wrapper such as {"$oid": ...} is known by its first
// key, a value is read by the type its wrapper names, and a document ends
// at its closing brace whatever follows.

type state uint8

const (
	sStart state = iota
	sBeginObject
	sEndObject
	sBeginArray
	sEndArray
	sColon
	sComma
	sKey
	sValue
	sDone
	sInvalid
)

type mode uint8

const (
	mInvalid mode = iota
	mObject
	mArray
)

// maxDepth is the driver's limit of nested objects (arrays do not count).
const maxDepth = 200

// valid[state] is the set of tokens that may follow, as bits.
var valid = [...]uint16{
	sStart:       bits(tBeginObject, tBeginArray, tInt32, tInt64, tDouble, tString, tBool, tNull, tEOF),
	sBeginObject: bits(tEndObject, tString),
	sEndObject:   bits(tEndObject, tEndArray, tComma, tEOF),
	sBeginArray:  bits(tBeginObject, tBeginArray, tEndArray, tInt32, tInt64, tDouble, tString, tBool, tNull),
	sEndArray:    bits(tEndObject, tEndArray, tComma, tEOF),
	sColon:       bits(tBeginObject, tBeginArray, tInt32, tInt64, tDouble, tString, tBool, tNull),
	sComma:       bits(tBeginObject, tBeginArray, tInt32, tInt64, tDouble, tString, tBool, tNull),
	sKey:         bits(tColon),
	sValue:       bits(tEndObject, tEndArray, tComma, tEOF),
	sDone:        0,
	sInvalid:     0,
}

func bits(ts ...tokType) uint16 {
	var b uint16
	for _, t := range ts {
		b |= 1 << t
	}
	return b
}

// value is a scalar the parser has read, or the keys and values of a
// wrapper's object ($binary, $date, $timestamp, ...), of type
// EmbeddedDocument.
type value struct {
	t   bsoncore.Type
	p   int // offset in the input
	s   []byte
	i   int64
	f   float64
	b   bool
	obj *object
}

type object struct {
	n    int
	keys [2][]byte
	vals [2]value
}

type parser struct {
	sc    scanner
	tok   token
	s     state
	m     []mode
	k     []byte
	kp    int // offset of k
	v     value
	err   error
	depth int

	emptyObject bool
	relaxedUUID bool
	// zeroBrace is set when an object opened at depth 0 after one closed:
	// input the driver reads past the end of a document (strict refuses).
	zeroBrace bool

	objs []*object // reused objects of wrapper values
	nobj int
}

func (p *parser) reset(src []byte, strict bool) {
	p.sc.reset(src, strict)
	p.s, p.m, p.k, p.v, p.err, p.depth = sStart, p.m[:0], nil, value{}, nil, 0
	p.emptyObject, p.relaxedUUID, p.zeroBrace = false, false, false
	p.nobj = 0
}

func (p *parser) newObject() *object {
	if p.nobj == len(p.objs) {
		p.objs = append(p.objs, new(object))
	}
	o := p.objs[p.nobj]
	p.nobj++
	*o = object{}
	return o
}

func (p *parser) peekMode() mode {
	if len(p.m) == 0 {
		return mInvalid
	}
	return p.m[len(p.m)-1]
}

func (p *parser) popMode() mode {
	if len(p.m) == 0 {
		return mInvalid
	}
	m := p.m[len(p.m)-1]
	p.m = p.m[:len(p.m)-1]
	return m
}

func (p *parser) fail(err error) {
	p.err, p.s = err, sInvalid
}

// advanceState reads the next token and moves to the state it leads to.
func (p *parser) advanceState() {
	if p.s == sDone || p.s == sInvalid {
		return
	}
	t := &p.tok
	t.s = nil
	if err := p.sc.next(t); err != nil {
		p.fail(err)
		return
	}
	if !p.validateToken(t.t) {
		p.fail(p.unexpected())
		return
	}
	switch t.t {
	case tBeginObject:
		p.s = sBeginObject
		p.m = append(p.m, mObject)
		p.depth++
		if p.depth > maxDepth {
			p.fail(&Error{Offset: t.p, Found: "an object nested deeper than 200 objects", Expected: "at most 200 levels"})
		}
	case tEndObject:
		p.s = sEndObject
		p.depth--
		if p.popMode() != mObject {
			p.fail(p.unexpected())
		}
	case tBeginArray:
		p.s = sBeginArray
		p.m = append(p.m, mArray)
	case tEndArray:
		p.s = sEndArray
		if p.popMode() != mArray {
			p.fail(p.unexpected())
		}
	case tColon:
		p.s = sColon
	case tComma:
		p.s = sComma
	case tEOF:
		p.s = sDone
		if len(p.m) != 0 {
			p.fail(p.unexpected())
		}
	case tString:
		switch p.s {
		case sComma:
			if p.peekMode() == mArray {
				p.s = sValue
				p.setValue()
				return
			}
			fallthrough
		case sBeginObject:
			p.s = sKey
			p.k, p.kp = t.s, t.p
			return
		}
		fallthrough
	default:
		p.s = sValue
		p.setValue()
	}
}

func (p *parser) setValue() {
	t := &p.tok
	v := value{p: t.p}
	switch t.t {
	case tInt32:
		v.t, v.i = bsoncore.TypeInt32, t.i
	case tInt64:
		v.t, v.i = bsoncore.TypeInt64, t.i
	case tDouble:
		v.t, v.f = bsoncore.TypeDouble, t.f
	case tString:
		v.t, v.s = bsoncore.TypeString, t.s
	case tBool:
		v.t, v.b = bsoncore.TypeBoolean, t.b
	case tNull:
		v.t = bsoncore.TypeNull
	}
	p.v = v
}

func (p *parser) validateToken(t tokType) bool {
	switch p.s {
	case sEndObject:
		if t == tBeginObject && p.depth == 0 {
			p.zeroBrace = true
			return p.peekMode() != mArray
		}
	case sComma:
		switch p.peekMode() {
		case mObject:
			return t == tString
		case mInvalid:
			return false
		}
	}
	return valid[p.s]&(1<<t) != 0
}

// peekType reads far enough to know the type of the next value.
func (p *parser) peekType() (bsoncore.Type, error) {
	var t bsoncore.Type
	var err error
	initial := p.s
	p.advanceState()
	switch p.s {
	case sValue:
		t = p.v.t
	case sBeginArray:
		t = bsoncore.TypeArray
	case sInvalid:
		err = p.err
	case sComma:
		if p.peekMode() == mArray {
			return p.peekType()
		}
	case sEndArray:
		err = errEOA
	case sBeginObject:
		p.advanceState()
		switch p.s {
		case sEndObject:
			t = bsoncore.TypeEmbeddedDocument
			p.emptyObject = true
		case sInvalid:
			err = p.err
		case sKey:
			if initial == sStart {
				return bsoncore.TypeEmbeddedDocument, nil
			}
			t = wrapperType(p.k)
			if string(p.k) == "$uuid" {
				p.relaxedUUID = true
				t = bsoncore.TypeBinary
			}
			switch t {
			case bsoncore.TypeJavaScript:
				_, err = p.readValue(bsoncore.TypeJavaScript)
				if err != nil {
					break
				}
				switch p.s {
				case sEndObject:
				case sComma:
					p.advanceState()
					if p.s == sKey && string(p.k) == "$scope" {
						t = bsoncore.TypeCodeWithScope
					} else {
						err = &Error{Offset: p.tok.p, Found: "another key after $code", Expected: "$scope, or } after the $code string"}
					}
				case sInvalid:
					err = p.err
				default:
					err = &Error{Offset: p.tok.p, Found: "more after the $code string", Expected: "} or , \"$scope\""}
				}
			case bsoncore.TypeCodeWithScope:
				err = &Error{Offset: p.kp, Found: "$scope before $code", Expected: "{\"$code\": ..., \"$scope\": {...}}"}
			}
		}
	}
	return t, err
}

// wrapperType is the type a wrapper's first key names, EmbeddedDocument
// for any other key.
func wrapperType(k []byte) bsoncore.Type {
	if len(k) < 4 || k[0] != '$' {
		return bsoncore.TypeEmbeddedDocument
	}
	switch string(k) {
	case "$numberInt":
		return bsoncore.TypeInt32
	case "$numberLong":
		return bsoncore.TypeInt64
	case "$oid":
		return bsoncore.TypeObjectID
	case "$symbol":
		return bsoncore.TypeSymbol
	case "$numberDouble":
		return bsoncore.TypeDouble
	case "$numberDecimal":
		return bsoncore.TypeDecimal128
	case "$binary":
		return bsoncore.TypeBinary
	case "$code":
		return bsoncore.TypeJavaScript
	case "$scope":
		return bsoncore.TypeCodeWithScope
	case "$timestamp":
		return bsoncore.TypeTimestamp
	case "$regularExpression":
		return bsoncore.TypeRegex
	case "$dbPointer":
		return bsoncore.TypeDBPointer
	case "$date":
		return bsoncore.TypeDateTime
	case "$minKey":
		return bsoncore.TypeMinKey
	case "$maxKey":
		return bsoncore.TypeMaxKey
	case "$undefined":
		return bsoncore.TypeUndefined
	}
	return bsoncore.TypeEmbeddedDocument
}

// readKey reads the next key of a document and the type of its value;
// errEOD at the end of the document.
func (p *parser) readKey() ([]byte, bsoncore.Type, error) {
	if p.emptyObject {
		p.emptyObject = false
		return nil, 0, errEOD
	}
	switch p.s {
	case sStart:
		p.advanceState()
		if p.s == sBeginObject {
			p.advanceState()
		}
	case sBeginObject:
		p.advanceState()
	case sValue, sEndObject, sEndArray:
		p.advanceState()
		switch p.s {
		case sBeginObject, sComma:
			p.advanceState()
		case sEndObject:
			return nil, 0, errEOD
		case sDone:
			return nil, 0, &Error{Offset: p.tok.p, Found: "the end of the input", Expected: "a key or }"}
		case sInvalid:
			return nil, 0, p.err
		default:
			return nil, 0, p.expectedKey()
		}
	case sKey:
	default:
		return nil, 0, p.expectedKey()
	}
	var key []byte
	switch p.s {
	case sKey:
		key = p.k
	case sEndObject:
		return nil, 0, errEOD
	case sInvalid:
		return nil, 0, p.err
	default:
		return nil, 0, p.expectedKey()
	}
	p.advanceState()
	if p.s != sColon {
		return nil, 0, p.missingColon(key)
	}
	t, err := p.peekType()
	if err != nil {
		return nil, 0, err
	}
	return key, t, nil
}

// afterColon reads the : after the key just read, and the token after it.
func (p *parser) afterColon() error {
	p.advanceState()
	if p.s != sColon {
		return p.missingColon(p.k)
	}
	p.advanceState()
	return nil
}

// bad is the parser's error if it has one, else found (after the current
// token's description) where expected was.
func (p *parser) bad(found, expected string) error {
	if p.s == sInvalid {
		return p.err
	}
	return &Error{Offset: p.tok.p, Found: p.describeTok() + found, Expected: expected}
}

func (p *parser) expectedKey() error {
	return &Error{Offset: p.tok.p, Found: p.describeTok(), Expected: "a key"}
}

func (p *parser) missingColon(key []byte) error {
	if p.s == sInvalid {
		return p.err
	}
	return &Error{Offset: p.tok.p, Found: p.describeTok() + " after the key " + shown(key), Expected: ":"}
}

// readValue reads the value of type t whose first token peekType read.
func (p *parser) readValue(t bsoncore.Type) (value, error) {
	if p.s == sInvalid {
		return value{}, p.err
	}
	var v value
	switch t {
	case bsoncore.TypeNull, bsoncore.TypeBoolean, bsoncore.TypeString:
		if p.s != sValue {
			return value{}, p.cannotRead(t)
		}
		v = p.v
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble,
		bsoncore.TypeDecimal128, bsoncore.TypeSymbol, bsoncore.TypeObjectID,
		bsoncore.TypeMinKey, bsoncore.TypeMaxKey, bsoncore.TypeUndefined:
		if p.s == sValue && (t == bsoncore.TypeInt32 || t == bsoncore.TypeInt64 || t == bsoncore.TypeDouble) {
			v = p.v
			break
		}
		if p.s != sKey {
			return value{}, p.cannotRead(t)
		}
		wrapper, wp := p.k, p.kp
		if err := p.afterColon(); err != nil {
			return value{}, err
		}
		if p.s != sValue || !p.wrappedTypeOK(t) {
			return value{}, p.bad(" as the value of "+string(wrapper), wrappedWant(t))
		}
		v = p.v
		p.advanceState()
		if p.s != sEndObject {
			return value{}, p.bad(" after the value of "+string(wrapper)+" (at offset "+itoa(wp)+")", "}: a "+string(wrapper)+" wrapper has one key")
		}
	case bsoncore.TypeBinary, bsoncore.TypeRegex, bsoncore.TypeTimestamp, bsoncore.TypeDBPointer:
		if p.s != sKey {
			return value{}, p.cannotRead(t)
		}
		wrapper := p.k
		if err := p.afterColon(); err != nil {
			return value{}, err
		}
		if t == bsoncore.TypeBinary && p.s == sValue {
			if p.relaxedUUID {
				return p.readUUID()
			}
			return p.readLegacyBinary()
		}
		if p.s != sBeginObject {
			return value{}, p.bad(" as the value of "+string(wrapper), "an object {...}")
		}
		o, err := p.readObject(2, true)
		if err != nil {
			return value{}, err
		}
		p.advanceState()
		if p.s != sEndObject {
			return value{}, p.bad(" after the object of "+string(wrapper), "}: a "+string(wrapper)+" wrapper has one key")
		}
		v = value{t: bsoncore.TypeEmbeddedDocument, p: p.tok.p, obj: o}
	case bsoncore.TypeDateTime:
		switch p.s {
		case sValue:
			v = p.v
		case sKey:
			if err := p.afterColon(); err != nil {
				return value{}, err
			}
			switch p.s {
			case sBeginObject:
				at := p.tok.p
				o, err := p.readObject(1, true)
				if err != nil {
					return value{}, err
				}
				v = value{t: bsoncore.TypeEmbeddedDocument, p: at, obj: o}
			case sValue:
				v = p.v
			case sInvalid:
				return value{}, p.err
			default:
				return value{}, &Error{Offset: p.tok.p, Found: p.describeTok() + " as the value of $date", Expected: "an RFC 3339 date string, a number of milliseconds or {\"$numberLong\": \"...\"}"}
			}
			p.advanceState()
			if p.s != sEndObject {
				return value{}, p.bad(" after the value of $date", "}: a $date wrapper has one key")
			}
		default:
			return value{}, p.cannotRead(t)
		}
	case bsoncore.TypeJavaScript:
		switch p.s {
		case sKey:
			if err := p.afterColon(); err != nil {
				return value{}, err
			}
			if p.s != sValue {
				return value{}, p.bad(" as the value of $code", "a string")
			}
			v = p.v
			p.advanceState()
		case sEndObject:
			v = p.v
		default:
			return value{}, p.cannotRead(t)
		}
	case bsoncore.TypeCodeWithScope:
		if p.s == sKey && string(p.k) == "$scope" {
			v = p.v
			if err := p.afterColon(); err != nil {
				return value{}, err
			}
			if p.s != sBeginObject {
				return value{}, p.bad(" as the value of $scope", "a document {...}")
			}
		} else {
			return value{}, p.cannotRead(t)
		}
	default:
		return value{}, p.cannotRead(t)
	}
	return v, nil
}

// readUUID reads the string of {"$uuid": "..."} into the value of a
// subtype 4 binary.
func (p *parser) readUUID() (value, error) {
	p.relaxedUUID = false
	v := p.v
	if v.t != bsoncore.TypeString {
		return value{}, &Error{Offset: v.p, Found: describeValue(v) + " as the value of $uuid", Expected: "a string"}
	}
	u := v.s
	bad := func(what string) error {
		return &Error{Offset: v.p, Found: "the $uuid " + shown(u), Expected: what}
	}
	if len(u) != 36 || u[8] != '-' || u[13] != '-' || u[18] != '-' || u[23] != '-' {
		return value{}, bad("36 characters, with hyphens at 9, 14, 19 and 24 (RFC 4122)")
	}
	var hexDigits [36]byte
	n := 0
	for _, c := range u {
		if c != '-' {
			hexDigits[n] = c
			n++
		}
	}
	if n != 32 {
		return value{}, bad("36 characters, with hyphens at 9, 14, 19 and 24 only (RFC 4122)")
	}
	var raw [16]byte
	if !decodeHex(raw[:], hexDigits[:32]) {
		return value{}, bad("hexadecimal digits between the hyphens")
	}
	p.advanceState()
	if p.s != sEndObject {
		return value{}, p.bad(" after the value of $uuid", "}: a $uuid wrapper has one key")
	}
	o := p.newObject()
	o.n = 2
	o.keys[0], o.keys[1] = []byte("base64"), []byte("subType")
	// The bytes themselves, marked as already decoded (i = 1).
	o.vals[0] = value{t: bsoncore.TypeString, p: v.p, s: append([]byte(nil), raw[:]...), i: 1}
	o.vals[1] = value{t: bsoncore.TypeString, p: v.p, s: []byte("04")}
	return value{t: bsoncore.TypeEmbeddedDocument, p: v.p, obj: o}, nil
}

// readLegacyBinary reads {"$binary": "<base64>", "$type": "<hex>"}.
func (p *parser) readLegacyBinary() (value, error) {
	b64 := p.v
	p.advanceState()
	if p.s != sComma {
		return value{}, p.bad(" after the legacy $binary string", ", \"$type\": \"<hex subtype>\"")
	}
	p.advanceState()
	key, t, err := p.readKey()
	if err != nil {
		if err == errEOD {
			return value{}, &Error{Offset: p.tok.p, Found: "}", Expected: "\"$type\" after a legacy $binary string"}
		}
		return value{}, err
	}
	if string(key) != "$type" {
		return value{}, &Error{Offset: p.kp, Found: "the key " + shown(key) + " after a legacy $binary string", Expected: "\"$type\""}
	}
	sub, err := p.readValue(t)
	if err != nil {
		return value{}, err
	}
	p.advanceState()
	if p.s != sEndObject {
		return value{}, p.bad(" after $type", "}: a legacy binary has $binary and $type only")
	}
	o := p.newObject()
	o.n = 2
	o.keys[0], o.keys[1] = []byte("base64"), []byte("subType")
	o.vals[0], o.vals[1] = b64, sub
	return value{t: bsoncore.TypeEmbeddedDocument, p: b64.p, obj: o}, nil
}

// readObject reads the numKeys keys and values of a wrapper's object and
// its closing brace.
func (p *parser) readObject(numKeys int, started bool) (*object, error) {
	if !started {
		p.advanceState()
		if p.s != sBeginObject {
			return nil, &Error{Offset: p.tok.p, Found: p.describeTok(), Expected: "{"}
		}
	}
	o := p.newObject()
	o.n = numKeys
	for i := range numKeys {
		key, t, err := p.readKey()
		if err != nil {
			if err == errEOD {
				return nil, &Error{Offset: p.tok.p, Found: "}", Expected: itoa(numKeys) + " keys in this object"}
			}
			return nil, err
		}
		switch p.s {
		case sKey:
			v, err := p.readValue(t)
			if err != nil {
				return nil, err
			}
			o.keys[i], o.vals[i] = key, v
		case sValue:
			o.keys[i], o.vals[i] = key, p.v
		default:
			return nil, &Error{Offset: p.tok.p, Found: p.describeTok() + " as the value of " + shown(key), Expected: "a string or a number"}
		}
	}
	p.advanceState()
	if p.s != sEndObject {
		return nil, p.bad("", "} after "+itoa(numKeys)+" keys")
	}
	return o, nil
}

func (p *parser) wrappedTypeOK(t bsoncore.Type) bool {
	switch t {
	case bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
		return p.v.t == bsoncore.TypeInt32
	case bsoncore.TypeUndefined:
		return p.v.t == bsoncore.TypeBoolean
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128, bsoncore.TypeSymbol, bsoncore.TypeObjectID:
		return p.v.t == bsoncore.TypeString
	}
	return false
}

func wrappedWant(t bsoncore.Type) string {
	switch t {
	case bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
		return "the number 1"
	case bsoncore.TypeUndefined:
		return "true"
	case bsoncore.TypeInt32:
		return "a string of an integer from -2147483648 to 2147483647"
	case bsoncore.TypeInt64:
		return "a string of an integer from -9223372036854775808 to 9223372036854775807"
	case bsoncore.TypeDouble:
		return "a string of a number, Infinity, -Infinity or NaN"
	case bsoncore.TypeDecimal128:
		return "a string of a decimal number"
	case bsoncore.TypeObjectID:
		return "a string of 24 hexadecimal digits"
	}
	return "a string"
}

// cannotRead is a value of type t where the parser is not positioned on
// one: input whose structure is broken.
func (p *parser) cannotRead(t bsoncore.Type) error {
	if p.s == sInvalid {
		return p.err
	}
	return &Error{Offset: p.tok.p, Found: p.describeTok(), Expected: "a " + typeName(t) + " value"}
}

// unexpected describes the current token where it may not be.
func (p *parser) unexpected() error {
	return &Error{Offset: p.tok.p, Found: p.describeTok(), Expected: p.expectedAfter()}
}

func (p *parser) expectedAfter() string {
	switch p.s {
	case sStart:
		return "a JSON value"
	case sBeginObject:
		return "a key (a string) or }"
	case sComma:
		if p.peekMode() == mObject {
			return "a key (a string) after ,"
		}
		return "a value after ,"
	case sKey:
		return ": after the key"
	case sColon:
		return "a value after :"
	case sBeginArray:
		return "a value or ]"
	}
	if p.tok.t == tEOF {
		return "the object or array to be closed"
	}
	switch p.peekMode() {
	case mObject:
		return ", or } (or a closing bracket that matches)"
	case mArray:
		return ", or ] (or a closing bracket that matches)"
	}
	return ", } or ]"
}

func (p *parser) describeTok() string {
	t := &p.tok
	switch t.t {
	case tBeginObject:
		return "{"
	case tEndObject:
		return "}"
	case tBeginArray:
		return "["
	case tEndArray:
		return "]"
	case tColon:
		return ":"
	case tComma:
		return ","
	case tEOF:
		return "the end of the input"
	case tString:
		return "the string " + shown(t.s)
	}
	if t.t == tInt32 || t.t == tInt64 || t.t == tDouble || t.t == tBool || t.t == tNull {
		return describeValue(value{t: tokBSONType(t.t), i: t.i, f: t.f, b: t.b})
	}
	return "a token"
}

func tokBSONType(t tokType) bsoncore.Type {
	switch t {
	case tInt32:
		return bsoncore.TypeInt32
	case tInt64:
		return bsoncore.TypeInt64
	case tDouble:
		return bsoncore.TypeDouble
	case tString:
		return bsoncore.TypeString
	case tBool:
		return bsoncore.TypeBoolean
	case tNull:
		return bsoncore.TypeNull
	}
	return 0
}
