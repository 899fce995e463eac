package ejson

import (
	"math"
	"sort"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

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
