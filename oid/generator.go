package oid

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"
)

// Generator makes IDs that share one 5-byte random value and take
// consecutive counter values. It is safe for concurrent use.
type Generator struct {
	counter atomic.Uint32 // next counter value; only the low 24 bits are used
	head    [5]byte       // the random value, bytes 4..8 of every ID
	clock   func() time.Time
}

// Config sets up a Generator. Zero fields are filled in: the clock is
// time.Now, the random value and the counter start come from crypto/rand.
type Config struct {
	Clock        func() time.Time
	Random       *[5]byte
	CounterStart *uint32 // taken modulo 2^24
}

// NewGenerator builds a Generator from cfg.
func NewGenerator(cfg Config) *Generator {
	g := &Generator{clock: cfg.Clock}
	if cfg.Random != nil {
		g.head = *cfg.Random
	} else {
		_, _ = rand.Read(g.head[:]) // crypto/rand.Read never fails
	}
	var start uint32
	if cfg.CounterStart != nil {
		start = *cfg.CounterStart
	} else {
		var b [4]byte
		_, _ = rand.Read(b[:])
		start = binary.BigEndian.Uint32(b[:])
	}
	g.counter.Store(start & 0xFFFFFF)
	return g
}

// NewSeededGenerator builds the Generator of a seed: the same seed gives the
// same random value and counter start on every run and machine (the clock
// is still the system clock; pass a time to NewWithTime or FillWithTime for
// identical IDs). The first 8 bytes of SHA-256("oidkit gen" || seed as 8
// big-endian bytes) are the random value (5 bytes) and the counter start
// (3 bytes). The derivation is fixed: `oidkit gen --seed` prints it.
func NewSeededGenerator(seed uint64) *Generator {
	var in [18]byte
	copy(in[:], "oidkit gen")
	binary.BigEndian.PutUint64(in[10:], seed)
	h := sha256.Sum256(in[:])
	start := uint32(h[5])<<16 | uint32(h[6])<<8 | uint32(h[7])
	return NewGenerator(Config{Random: (*[5]byte)(h[0:5]), CounterStart: &start})
}

var (
	defaultOnce sync.Once
	defaultGen  *Generator
)

func defaultGenerator() *Generator {
	defaultOnce.Do(func() { defaultGen = NewGenerator(Config{}) })
	return defaultGen
}

// Random is the generator's 5-byte process-unique value.
func (g *Generator) Random() [5]byte { return g.head }

// now is the clock's Unix seconds modulo 2^32. A nil clock means the system
// wall clock, read directly (see wallSeconds).
func (g *Generator) now() uint32 {
	if g.clock == nil {
		return uint32(wallSeconds())
	}
	return uint32(g.clock().Unix())
}

// New is the next ID: the clock's seconds (modulo 2^32), the random value and
// the next counter.
func (g *Generator) New() ID {
	return g.make(g.now(), g.counter.Add(1)-1)
}

// NewWithTime is the next ID with t's seconds; t must lie in MinTime..MaxTime.
func (g *Generator) NewWithTime(t time.Time) (ID, error) {
	if err := CheckTime(t); err != nil {
		return Nil, err
	}
	return g.make(uint32(t.Unix()), g.counter.Add(1)-1), nil
}

// Fill fills ids with consecutive IDs using one clock read and one atomic
// reservation of len(ids) counter values. Within one second a Generator has
// 2^24 counter values, so a batch longer than that repeats IDs.
func (g *Generator) Fill(ids []ID) {
	if len(ids) == 0 {
		return
	}
	g.fill(ids, g.now())
}

// FillWithTime is Fill with t's seconds instead of the clock; t must lie in
// MinTime..MaxTime.
func (g *Generator) FillWithTime(ids []ID, t time.Time) error {
	if err := CheckTime(t); err != nil {
		return err
	}
	if len(ids) > 0 {
		g.fill(ids, uint32(t.Unix()))
	}
	return nil
}

func (g *Generator) fill(ids []ID, secs uint32) {
	c := g.counter.Add(uint32(len(ids))) - uint32(len(ids))
	// Each ID is two stores: bytes 0..7 (timestamp and 4 random bytes) are
	// the same for the whole batch; bytes 8..11 are the last random byte and
	// the counter.
	var head [8]byte
	putUint32(head[0:4], secs)
	copy(head[4:8], g.head[:4])
	lo := binary.LittleEndian.Uint64(head[:])
	r4 := uint32(g.head[4]) << 24
	for i := range ids {
		id := &ids[i]
		binary.LittleEndian.PutUint64(id[0:8], lo)
		binary.BigEndian.PutUint32(id[8:12], r4|(c+uint32(i))&0xFFFFFF)
	}
}

func (g *Generator) make(secs, c uint32) ID {
	var id ID
	putUint32(id[0:4], secs)
	copy(id[4:9], g.head[:])
	id[9], id[10], id[11] = byte(c>>16), byte(c>>8), byte(c)
	return id
}
