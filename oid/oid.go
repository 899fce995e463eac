// Package oid is a standalone, spec-exact MongoDB ObjectID.
//
// It uses the standard library only. An ID is a [12]byte value laid out as the
// ObjectID specification says, and converts to the driver's type with a plain
// cast: bson.ObjectID(id).
//
//	 0               4                         9            12
//	+---+---+---+---+---+---+---+---+---+---+---+---+
//	|   timestamp   |      process random       |  counter  |
//	+---+---+---+---+---+---+---+---+---+---+---+---+
//	 big-endian       chosen once per Generator   big-endian
//	 Unix seconds     from crypto/rand            starts random
//
// Hex form: 8 timestamp + 10 random + 6 counter characters = 24.
//
// Timestamp: the 4 bytes are read as an UNSIGNED number of seconds, so
// 0x00000000 is 1970-01-01T00:00:00Z, 0x7FFFFFFF is 2038-01-19T03:14:07Z,
// 0x80000000 is 2038-01-19T03:14:08Z and 0xFFFFFFFF is 2106-02-07T06:28:15Z.
// A Generator reading its clock wraps the seconds modulo 2^32, as the
// specification says; a time a caller gives explicitly (FromTime, NewWithTime,
// CheckTime) outside that range is an error rather than a silent wrap.
//
// Counter: 3 bytes, big-endian, starting at a random value, +1 per ID, and
// 0xFFFFFF wraps to 0x000000.
package oid

import (
	"errors"
	"time"
)

// ID is a MongoDB ObjectID. The zero value is the nil ID.
type ID [12]byte

// Nil is the all-zero ID.
var Nil ID

// MinTime and MaxTime bound the instants an ObjectID timestamp can hold.
var (
	MinTime = time.Unix(0, 0).UTC()
	MaxTime = time.Unix(1<<32-1, 0).UTC()
)

// ErrTimeRange is returned for a time outside MinTime..MaxTime.
var ErrTimeRange = errors.New("oid: time outside the ObjectID range 1970-01-01T00:00:00Z..2106-02-07T06:28:15Z")

// IsZero reports whether id is the nil ID.
func (id ID) IsZero() bool { return id == Nil }

// Timestamp is the creation time, in UTC, to the second.
func (id ID) Timestamp() time.Time { return time.Unix(id.Unix(), 0).UTC() }

// Unix is the timestamp as Unix seconds (unsigned: never negative).
func (id ID) Unix() int64 {
	return int64(uint32(id[0])<<24 | uint32(id[1])<<16 | uint32(id[2])<<8 | uint32(id[3]))
}

// Random is the 5-byte process-unique value.
func (id ID) Random() [5]byte { return [5]byte(id[4:9]) }

// Counter is the 3-byte counter as a number in 0..0xFFFFFF.
func (id ID) Counter() uint32 {
	return uint32(id[9])<<16 | uint32(id[10])<<8 | uint32(id[11])
}

// Compare returns -1, 0 or +1 comparing bytes, which is MongoDB's order.
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

// CheckTime reports whether t fits an ObjectID timestamp.
func CheckTime(t time.Time) error {
	s := t.Unix()
	if s < 0 || s > 1<<32-1 {
		return ErrTimeRange
	}
	return nil
}

// FromTime is the ID with t's seconds and a zero tail, like mongosh's
// ObjectId.createFromTime: the smallest ID of that second, for range queries.
func FromTime(t time.Time) (ID, error) {
	if err := CheckTime(t); err != nil {
		return Nil, err
	}
	var id ID
	putUint32(id[0:4], uint32(t.Unix()))
	return id, nil
}

// New is an ID from the default Generator.
func New() ID { return defaultGenerator().New() }

// NewWithTime is an ID with t's seconds and the default Generator's random
// value and next counter (like the driver's NewObjectIDFromTimestamp, which
// instead wraps a time outside the range silently).
func NewWithTime(t time.Time) (ID, error) { return defaultGenerator().NewWithTime(t) }

func putUint32(b []byte, v uint32) {
	_ = b[3]
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}
