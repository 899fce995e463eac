package audit

import (
	"time"

	"github.com/oidkit/oidkit/oid"
)

// timeFinding is one of the per-ID time findings.
type timeFinding int

const (
	findFuture timeFinding = iota
	findBefore2009
	findAtZero
	findZeroTail
	findNear2106
	numTimeFindings
)

var timeFindingNames = [numTimeFindings]string{"future", "before2009", "atZero", "zeroTailed", "near2106"}

var timeFindingText = [numTimeFindings]string{
	"in the future (beyond the tolerance)",
	"before 2009",
	"at time 0 (1970-01-01)",
	"zero-tailed (made from a time, not by a generator)",
	"near 2106 (the last year an ObjectID can name)",
}

// epoch2009 is 2009-01-01T00:00:00Z: no ObjectID generator existed before.
const epoch2009 = 1230768000

// near2106 is one year before the last second an ObjectID can name.
const near2106 = 1<<32 - 1 - 365*86400

// timeFindings is the set of time findings id shows, one bit per finding:
// the one rule for each.
func timeFindings(id oid.ID, o Options) uint8 {
	var out uint8
	secs := id.Unix()
	if time.Unix(secs, 0).After(o.Now.Add(o.FutureTolerance)) {
		out |= 1 << findFuture
	}
	switch {
	case secs == 0:
		out |= 1 << findAtZero
	case secs < epoch2009:
		out |= 1 << findBefore2009
	}
	if secs >= near2106 {
		out |= 1 << findNear2106
	}
	if [8]byte(id[4:]) == [8]byte{} {
		out |= 1 << findZeroTail
	}
	return out
}
