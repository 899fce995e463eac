package audit_test

import (
	"encoding/binary"
	"math/rand/v2"
	"time"

	"github.com/oidkit/oidkit/oid"
)

// The generators below make IDs byte by byte, independently of package oid,
// as other programs made them.

// modernID is the 2018+ layout: time, 5 random bytes, counter.
func modernID(secs uint32, random [5]byte, ctr uint32) oid.ID {
	var b [12]byte
	binary.BigEndian.PutUint32(b[:4], secs)
	copy(b[4:9], random[:])
	b[9], b[10], b[11] = byte(ctr>>16), byte(ctr>>8), byte(ctr)
	return oid.ID(b)
}

// legacyID is the layout of the drivers before 2018: time, 3-byte machine
// hash, 2-byte process ID (big-endian), counter.
func legacyID(secs uint32, machine [3]byte, pid uint16, ctr uint32) oid.ID {
	var b [12]byte
	binary.BigEndian.PutUint32(b[:4], secs)
	copy(b[4:7], machine[:])
	binary.BigEndian.PutUint16(b[7:9], pid)
	b[9], b[10], b[11] = byte(ctr>>16), byte(ctr>>8), byte(ctr)
	return oid.ID(b)
}

// fromTime is mongosh's ObjectId.createFromTime: the time, then zeros.
func fromTime(secs uint32) oid.ID {
	var b [12]byte
	binary.BigEndian.PutUint32(b[:4], secs)
	return oid.ID(b)
}

// randomHex is what faker libraries call an ObjectID: 24 random hex digits.
func randomHex(r *rand.Rand, n int) []oid.ID {
	ids := make([]oid.ID, n)
	for i := range ids {
		binary.BigEndian.PutUint64(ids[i][:8], r.Uint64())
		binary.BigEndian.PutUint32(ids[i][8:], r.Uint32())
	}
	return ids
}

// timed is one input of an audit: an ObjectID and its time field (zero: none).
type timed struct {
	id oid.ID
	at time.Time
}

var (
	t0  = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
)

func secs(t time.Time) uint32 { return uint32(t.Unix()) }

// anomalies is a collection filled by several programs, each with a known
// anomaly; the comments give the counts the tests expect.
func anomalies() []timed {
	var in []timed
	// Writer A: a good modern writer, 10 IDs a second; its counter wraps
	// once (0xfffff0 + 16). Time field = _id time.
	for i := range 100 {
		at := t0.Add(time.Duration(i/10) * time.Second)
		in = append(in, timed{modernID(secs(at), [5]byte{0x11, 0x11, 0x11, 0x11, 0x11}, (0xfffff0+uint32(i))%(1<<24)), at})
	}
	// Writer B: its clock is 120 s ahead of the time field.
	for i := range 50 {
		at := t0.Add(time.Duration(i) * time.Second)
		in = append(in, timed{modernID(secs(at)+120, [5]byte{0x22, 0x22, 0x22, 0x22, 0x22}, 5+uint32(i)), at})
	}
	// Writer C: time goes back once (the 6th ID) and a counter falls within
	// a second once (the 9th ID). No time field.
	cSecs := []uint32{0, 1, 2, 3, 4, 2, 5, 5, 5, 6}
	cCtr := []uint32{1, 2, 3, 4, 5, 6, 7, 8, 7, 10}
	for i := range cSecs {
		in = append(in, timed{id: modernID(secs(t0)+cSecs[i], [5]byte{0x33, 0x33, 0x33, 0x33, 0x33}, cCtr[i])})
	}
	// Two legacy hosts whose processes are both PID 1 (containers), 20 IDs
	// each, interleaved; and a second process on the first host.
	m1, m2 := [3]byte{0xaa, 0xbb, 0xcc}, [3]byte{0xdd, 0xee, 0xff}
	for i := range 20 {
		s := secs(t0) + uint32(i)
		in = append(in, timed{id: legacyID(s, m1, 1, 100+uint32(i))}, timed{id: legacyID(s, m2, 1, 500+uint32(i))})
	}
	for i := range 5 {
		in = append(in, timed{id: legacyID(secs(t0)+uint32(i), m1, 4242, uint32(i))})
	}
	// Writer D: 4 IDs an hour in the future.
	for i := range 4 {
		in = append(in, timed{id: modernID(secs(now)+3600, [5]byte{0x44, 0x44, 0x44, 0x44, 0x44}, uint32(i))})
	}
	// Explicit times: at 0, in 2005, at the last second (also future).
	for _, s := range []uint32{0, secs(time.Date(2005, 3, 1, 0, 0, 0, 0, time.UTC)), 1<<32 - 1} {
		in = append(in, timed{id: fromTime(s)})
	}
	return in
}
