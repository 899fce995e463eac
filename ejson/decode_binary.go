package ejson

import (
	"encoding/base64"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

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
