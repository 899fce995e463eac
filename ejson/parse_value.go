package ejson

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// readValue reads the value of type t whose first token peekType read.
func (p *parser) readValue(t bsoncore.Type) (value, error) {
	if p.s == sInvalid {
		return value{}, p.err
	}
	switch t {
	case bsoncore.TypeNull, bsoncore.TypeBoolean, bsoncore.TypeString:
		if p.s != sValue {
			return value{}, p.cannotRead(t)
		}
		return p.v, nil
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble,
		bsoncore.TypeDecimal128, bsoncore.TypeSymbol, bsoncore.TypeObjectID,
		bsoncore.TypeMinKey, bsoncore.TypeMaxKey, bsoncore.TypeUndefined:
		return p.readOneKeyWrapper(t)
	case bsoncore.TypeBinary, bsoncore.TypeRegex, bsoncore.TypeTimestamp, bsoncore.TypeDBPointer:
		return p.readObjectWrapper(t)
	case bsoncore.TypeDateTime:
		return p.readDate()
	case bsoncore.TypeJavaScript:
		return p.readCode()
	case bsoncore.TypeCodeWithScope:
		return p.readScope()
	}
	return value{}, p.cannotRead(t)
}

// readOneKeyWrapper reads a number, or a wrapper whose one key holds a
// scalar: {"$numberInt": "..."}, {"$oid": "..."}, {"$minKey": 1}, ...
func (p *parser) readOneKeyWrapper(t bsoncore.Type) (value, error) {
	if p.s == sValue && (t == bsoncore.TypeInt32 || t == bsoncore.TypeInt64 || t == bsoncore.TypeDouble) {
		return p.v, nil
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
	v := p.v
	p.advanceState()
	if p.s != sEndObject {
		return value{}, p.bad(" after the value of "+string(wrapper)+" (at offset "+itoa(wp)+")", "}: a "+string(wrapper)+" wrapper has one key")
	}
	return v, nil
}

// readObjectWrapper reads a wrapper whose one key holds an object
// ($binary, $regularExpression, $timestamp, $dbPointer), or the legacy
// and $uuid forms of a binary.
func (p *parser) readObjectWrapper(t bsoncore.Type) (value, error) {
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
	return value{t: bsoncore.TypeEmbeddedDocument, p: p.tok.p, obj: o}, nil
}

// readDate reads a $date: its string, its number, or its
// {"$numberLong": ...} object.
func (p *parser) readDate() (value, error) {
	switch p.s {
	case sValue:
		return p.v, nil
	case sKey:
	default:
		return value{}, p.cannotRead(bsoncore.TypeDateTime)
	}
	if err := p.afterColon(); err != nil {
		return value{}, err
	}
	var v value
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
	return v, nil
}

// readCode reads the string of $code.
func (p *parser) readCode() (value, error) {
	switch p.s {
	case sKey:
		if err := p.afterColon(); err != nil {
			return value{}, err
		}
		if p.s != sValue {
			return value{}, p.bad(" as the value of $code", "a string")
		}
		v := p.v
		p.advanceState()
		return v, nil
	case sEndObject:
		return p.v, nil
	}
	return value{}, p.cannotRead(bsoncore.TypeJavaScript)
}

// readScope reads up to the { of $scope, after $code; the value is the
// $code string.
func (p *parser) readScope() (value, error) {
	if p.s != sKey || string(p.k) != "$scope" {
		return value{}, p.cannotRead(bsoncore.TypeCodeWithScope)
	}
	v := p.v
	if err := p.afterColon(); err != nil {
		return value{}, err
	}
	if p.s != sBeginObject {
		return value{}, p.bad(" as the value of $scope", "a document {...}")
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
	// The bytes themselves, marked as already decoded (i = 1).
	data := value{t: bsoncore.TypeString, p: v.p, s: append([]byte(nil), raw[:]...), i: 1}
	return p.binaryObject(v.p, data, value{t: bsoncore.TypeString, p: v.p, s: []byte("04")}), nil
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
	return p.binaryObject(b64.p, b64, sub), nil
}

// binaryObject is the object {"base64": data, "subType": sub} at offset
// at, as the canonical $binary holds it: what $uuid and the legacy $binary
// read as.
func (p *parser) binaryObject(at int, data, sub value) value {
	o := p.newObject()
	o.n = 2
	o.keys[0], o.keys[1] = []byte("base64"), []byte("subType")
	o.vals[0], o.vals[1] = data, sub
	return value{t: bsoncore.TypeEmbeddedDocument, p: at, obj: o}
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
