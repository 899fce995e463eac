package oid

import (
	"encoding/binary"
	"slices"
)

// encodeHex writes the 24 lower-case hex characters of id into dst, 4 bytes
// at a time (see hex8).
func encodeHex(dst *[24]byte, id *ID) {
	binary.BigEndian.PutUint64(dst[0:8], hex8(binary.BigEndian.Uint32(id[0:4])))
	binary.BigEndian.PutUint64(dst[8:16], hex8(binary.BigEndian.Uint32(id[4:8])))
	binary.BigEndian.PutUint64(dst[16:24], hex8(binary.BigEndian.Uint32(id[8:12])))
}

// hex8 is the 8 hex characters of x, first character in the top byte. It
// works within one 64-bit word (SWAR): spread the 8 nibbles into 8 bytes,
// then turn each into '0'..'9' or 'a'..'f' without a branch or a table, about
// 3x faster than encoding/hex's table loop.
func hex8(x uint32) uint64 {
	v := uint64(x)
	v = (v&0xFFFF0000)<<16 | v&0x0000FFFF
	v = (v&0x0000FF000000FF00)<<8 | v&0x000000FF000000FF
	v = (v&0x00F000F000F000F0)<<4 | v&0x000F000F000F000F
	letters := (v + 0x0606060606060606) >> 4 & 0x0101010101010101 // 1 where the nibble is 10..15
	return v + 0x3030303030303030 + letters*('a'-'0'-10)
}

// AppendHex appends the 24 lower-case hex characters of id to b. It does not
// allocate when b has room.
func (id ID) AppendHex(b []byte) []byte {
	if cap(b)-len(b) < 24 {
		b = grow24(b)
	}
	n := len(b)
	b = b[:n+24]
	encodeHex((*[24]byte)(b[n:]), &id)
	return b
}

// grow24 is the rare path of AppendHex, kept out of line so that AppendHex
// itself can be inlined.
func grow24(b []byte) []byte { return slices.Grow(b, 24) }

// Hex is the 24 lower-case hex characters of id.
func (id ID) Hex() string {
	var buf [24]byte
	encodeHex(&buf, &id)
	return string(buf[:])
}

// String is Hex. (The drivers' String returns ObjectID("...") instead; see
// "string-format" in the package doc.)
func (id ID) String() string { return id.Hex() }

// GoString is the Go expression that rebuilds id, for %#v.
func (id ID) GoString() string {
	return `oid.MustParse("` + id.Hex() + `")`
}
