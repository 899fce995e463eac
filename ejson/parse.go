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
