package ejson

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

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
