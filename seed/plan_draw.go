package seed

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// DrawSeed makes a plan without a seed repeatable: it draws one and takes
// the current second as the time base (unless one is set), unless a
// template reads the clock (then no seed could repeat it). It reports
// whether it drew; the seed and time base are then what repeats the run.
func (p *Plan) DrawSeed() bool {
	if p.Seeded {
		return false
	}
	for _, cs := range p.Collections {
		if cs.Template != nil && cs.Template.ReadsClock() {
			return false
		}
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	p.Seed, p.Seeded = binary.LittleEndian.Uint64(b[:]), true
	if p.At.IsZero() {
		p.At = time.Now().UTC().Truncate(time.Second)
	}
	return true
}
