// Package oid is a standalone, spec-exact MongoDB ObjectID: its layout,
// generation (plain and seeded), its text, binary and JSON forms, the forms
// people paste, and the _id bounds of a window of creation times.
//
// It uses the standard library only. An ID is a [12]byte value laid out as the
// ObjectID specification says, and converts to and from the driver's types
// with a plain cast: bson.ObjectID(id), oid.ID(primitiveID).
//
// # Layout
//
//	byte  0   1   2   3   4   5   6   7   8   9  10  11
//	    +---+---+---+---+---+---+---+---+---+---+---+---+
//	    |   timestamp   |   process random  |  counter  |
//	    +---+---+---+---+---+---+---+---+---+---+---+---+
//	     big-endian      chosen once per     big-endian,
//	     Unix seconds    Generator from      starts at a
//	     (unsigned)      crypto/rand         random value
//
// Hex form: 8 timestamp + 10 random + 6 counter characters = 24, always
// written in lower case.
//
// # Timestamp
//
// The 4 bytes are read as an UNSIGNED number of seconds (as the driver's
// Timestamp and mongosh's getTimestamp do), so
//
//	0x00000000 = 1970-01-01T00:00:00Z
//	0x7FFFFFFF = 2038-01-19T03:14:07Z
//	0x80000000 = 2038-01-19T03:14:08Z
//	0xFFFFFFFF = 2106-02-07T06:28:15Z
//
// A Generator reading its clock stores the seconds modulo 2^32, as the
// specification says, so IDs keep being made after 2106. A time a caller
// gives explicitly (FromTime, NewWithTime, FillWithTime, CheckTime) outside
// MinTime..MaxTime is an error wrapping ErrTimeRange rather than a silent
// wrap: whoever names a time means that time.
//
// # Counter
//
// 3 bytes, big-endian, starting at a random value (or Config.CounterStart),
// +1 per ID; 0xFFFFFF is followed by 0x000000. One Generator therefore makes
// at most 2^24 distinct IDs per second.
//
// # Parts
//
// FromParts(secs, random, counter) assembles an ID from its three fields as
// numbers, for callers that derive them themselves (seeded generation): the
// low 40 bits of random become bytes 4..8 big-endian and the low 24 bits of
// counter bytes 9..11; higher bits are ignored, so a caller can pass a
// running counter and get the wrap above for free. Random and Counter read
// the same fields back.
//
// # Text, binary and JSON
//
// Parse reads exactly 24 hexadecimal characters. Upper case is accepted,
// because the driver (encoding/hex) and mongosh accept it and IDs are
// copied from tools that print either case; output is always lower case, so
// Parse(s).Hex() == strings.ToLower(s). No whitespace, prefix or wrapper is
// accepted. Every failure wraps ErrInvalidHex and, more precisely,
// ErrInvalidLength or ErrInvalidChar, and is a *ParseError naming the input
// and the reason ("length 23, expected 24", "invalid character 'z' at
// position 7").
//
// MarshalText and AppendText write the 24 hex characters; MarshalBinary and
// AppendBinary the 12 bytes. MarshalJSON writes exactly what both drivers
// write: "507f1f77bcf86cd799439011" (a JSON string). UnmarshalJSON reads
// "hex", {"$oid":"hex"} (Extended JSON, canonical and relaxed) and null (a
// no-op, as encoding/json expects of an Unmarshaler). Anything else is an
// error wrapping ErrInvalidJSON or ErrInvalidHex.
//
// ParsePasted is the lenient reader for text a person pastes: bare hex,
// ObjectId("hex") and ObjectId(hex) (mongosh), ObjectID("hex") (the
// drivers' String), {"$oid":"hex"}, a quoted "hex", curly quotes, a byte
// order mark and surrounding space. Its error is a *PasteError.
//
// # Windows
//
// NewWindow(from, to) is the _id range of the documents created in
// [from, to): zero-tailed bounds (FromTime), from rounded down to its
// second and to rounded up, $gte and $lt, or $lte of the largest ID when the
// window reaches past MaxTime. AppendFilter writes it as an Extended JSON
// filter. WindowFrom has no upper bound.
//
// # Deliberate differences from the driver
//
// Compared with go.mongodb.org/mongo-driver/v2 bson.ObjectID (v2.10.0) and
// go.mongodb.org/mongo-driver v1 primitive.ObjectID (v1.17.10). Bytes, Hex,
// Timestamp, MarshalJSON, MarshalText and the set of 24-character strings
// accepted by Parse are identical; these are not:
//
//   - string-format: String returns the bare hex; the drivers' String
//     returns ObjectID("507f1f77bcf86cd799439011").
//   - error-types: every Parse failure matches errors.Is(err, ErrInvalidHex)
//     and says why; the drivers return ErrInvalidHex only for a wrong length
//     and a bare encoding/hex.InvalidByteError ("encoding/hex: invalid byte:
//     U+007A 'z'") for a bad character.
//   - time-range: NewWithTime, FromTime and FillWithTime refuse a time
//     outside 1970-01-01T00:00:00Z..2106-02-07T06:28:15Z; the drivers'
//     NewObjectIDFromTimestamp wraps it silently (uint32(t.Unix())), so
//     1969-12-31T23:59:59Z gives timestamp 0xFFFFFFFF (year 2106) and
//     2106-02-07T06:28:16Z gives 0x00000000 (year 1970).
//   - json-raw-12: the drivers' UnmarshalJSON copies ANY 12-byte input as
//     the raw ID bytes (the JSON number 123456789012, or in v1 the string
//     "0123456789"); oid rejects input that is not a JSON ObjectID form.
//   - json-empty-string: "" decodes to the nil ID, as in v1; v2 leaves the
//     value unchanged. UnmarshalText("") likewise gives the nil ID; v2 leaves
//     the value unchanged and v1 returns an error.
//   - json-oid-empty: {"$oid":""} is an error, as in v2; v1 decodes it to the
//     nil ID.
//   - json-oid-key-case: the key must be exactly "$oid", as in v1; v2 also
//     accepts {"$OID":...} and other case variants (encoding/json matches
//     struct fields case-insensitively).
//   - json-oid-extra-keys: {"$oid":"...","x":1} is an error, since Extended
//     JSON defines $oid as the only member; both drivers ignore other members.
//   - json-string-escapes: a JSON string is decoded by JSON rules, so
//     "507f1f77bcf86cd79943901\u0031" is the ID 507f1f77bcf86cd799439011 (as
//     in v1); v2 reads the raw bytes between the quotes and rejects it. The
//     same applies to whitespace around a value passed to UnmarshalJSON
//     directly (encoding/json trims it before calling either).
//   - json-invalid: input that is not valid JSON is always an error; v2
//     accepts some, as it reads the 24 bytes after a leading quote without
//     checking the closing one ("507f1f77bcf86cd799439011x). encoding/json
//     validates input before calling either, so this shows only in direct
//     calls.
//   - json-error-leaves-value: on error the receiver is never changed; v1 may
//     leave it partly overwritten by a failed hex decode.
//
// # Generation
//
// New uses a process-wide default Generator made on first use, with the
// system clock and crypto/rand. Tests and seeded runs build their own
// Generator with NewGenerator(Config{Clock, Random, CounterStart}); no
// package variable needs changing. NewSeededGenerator(seed) derives the
// random value and counter start from a seed, so seeded output is the same
// everywhere. Fill writes a whole batch with one clock
// read and one atomic reservation of the counter.
package oid

import (
	"errors"
	"fmt"
	"time"
)

// ID is a MongoDB ObjectID. The zero value is the nil ID. IDs are comparable
// and usable as map keys; Compare orders them as MongoDB does.
type ID [12]byte

// Nil is the all-zero ID.
var Nil ID

// MinTime and MaxTime bound the instants an ObjectID timestamp can hold.
var (
	MinTime = time.Unix(0, 0).UTC()
	MaxTime = time.Unix(1<<32-1, 0).UTC()
)

// ErrTimeRange is wrapped by the error for a time outside MinTime..MaxTime.
var ErrTimeRange = errors.New("oid: time outside the ObjectID range 1970-01-01T00:00:00Z..2106-02-07T06:28:15Z")

// IsZero reports whether id is the nil ID.
func (id ID) IsZero() bool { return id == Nil }

// Timestamp is the creation time, in UTC, to the second. The 4 bytes are
// unsigned, so it lies in MinTime..MaxTime.
func (id ID) Timestamp() time.Time { return time.Unix(id.Unix(), 0).UTC() }

// Unix is the timestamp as Unix seconds, in 0..2^32-1.
func (id ID) Unix() int64 {
	return int64(uint32(id[0])<<24 | uint32(id[1])<<16 | uint32(id[2])<<8 | uint32(id[3]))
}

// Random is the 5-byte process-unique value.
func (id ID) Random() [5]byte { return [5]byte(id[4:9]) }

// Counter is the 3-byte counter as a number in 0..0xFFFFFF.
func (id ID) Counter() uint32 {
	return uint32(id[9])<<16 | uint32(id[10])<<8 | uint32(id[11])
}

// Compare returns -1, 0 or +1 comparing bytes, which is MongoDB's order (and,
// within one second, generation order of one Generator until its counter
// wraps).
func (id ID) Compare(other ID) int {
	for i := range id {
		switch {
		case id[i] < other[i]:
			return -1
		case id[i] > other[i]:
			return 1
		}
	}
	return 0
}

// CheckTime returns nil when t fits an ObjectID timestamp, else an error
// wrapping ErrTimeRange that names t.
func CheckTime(t time.Time) error {
	s := t.Unix()
	if s < 0 || s > 1<<32-1 {
		return fmt.Errorf("%w: %s", ErrTimeRange, t.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// FromTime is the ID with t's seconds and a zero tail, like mongosh's
// ObjectId.createFromTime: the smallest ID of that second, for range queries
// ({_id: {$gte: FromTime(a), $lt: FromTime(b)}}). Sub-second parts of t are
// dropped (t is truncated toward the start of its second).
func FromTime(t time.Time) (ID, error) {
	if err := CheckTime(t); err != nil {
		return Nil, err
	}
	var id ID
	putUint32(id[0:4], uint32(t.Unix()))
	return id, nil
}

// New is an ID from the default Generator: the current time, the process's
// random value and the next counter.
func New() ID { return defaultGenerator().New() }

// NewWithTime is an ID with t's seconds and the default Generator's random
// value and next counter, like the driver's NewObjectIDFromTimestamp, except
// that a time outside MinTime..MaxTime is an error instead of wrapping.
func NewWithTime(t time.Time) (ID, error) { return defaultGenerator().NewWithTime(t) }

// FromParts is the ID with timestamp secs, the low 40 bits of random as the
// 5-byte random value and the low 24 bits of counter as the counter (see
// Parts in the package doc).
func FromParts(secs uint32, random uint64, counter uint32) ID {
	var id ID
	putUint32(id[0:4], secs)
	id[4] = byte(random >> 32)
	putUint32(id[5:9], uint32(random))
	id[9], id[10], id[11] = byte(counter>>16), byte(counter>>8), byte(counter)
	return id
}

func putUint32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}
