package audit

import (
	"slices"

	"github.com/oidkit/oidkit/oid"
)

// counterSpace is the number of values of the 3-byte counter.
const counterSpace = 1 << 24

// maxSamples bounds the (time, counter) points kept per writer for the
// counter-progress chart.
const maxSamples = 32

// point is one sampled ID of a writer.
type point struct {
	Secs    uint32 `json:"unix"`
	Counter uint32 `json:"counter"`
}

// writer is what is known of one 5-byte random value.
type writer struct {
	key                  [5]byte
	n                    int64
	minSecs, maxSecs     uint32
	lastSecs, lastCtr    uint32
	minCtr, maxCtr       uint32
	wraps, notRising     int64
	backwards            int64
	rises                int64 // steps where the counter went up (or wrapped)
	odd                  int64 // IDs before 2009 or in the future
	timed                int64
	skewSum              int64
	skewMin, skewMax     int64
	samples              []point
	stride, sinceSampled int64
}

// step is what one ID did to its writer's sequence.
type step int

const (
	stepFirst step = iota
	stepRise
	stepWrap
	stepNotRising
	stepBackwards
)

// add applies the writer rules (see the package doc) to the next ID of w in
// scan order.
func (w *writer) add(id oid.ID, skew int64, timed, odd bool) step {
	secs, ctr := uint32(id.Unix()), id.Counter()
	st := stepFirst
	if w.n == 0 {
		w.minSecs, w.maxSecs, w.minCtr, w.maxCtr = secs, secs, ctr, ctr
		w.stride = 1
	} else {
		st = classifyStep(w.lastSecs, w.lastCtr, secs, ctr)
		w.minSecs, w.maxSecs = min(w.minSecs, secs), max(w.maxSecs, secs)
		w.minCtr, w.maxCtr = min(w.minCtr, ctr), max(w.maxCtr, ctr)
	}
	switch st {
	case stepRise:
		w.rises++
	case stepWrap:
		w.wraps++
		w.rises++
	case stepNotRising:
		w.notRising++
	case stepBackwards:
		w.backwards++
	}
	w.n++
	if odd {
		w.odd++
	}
	w.lastSecs, w.lastCtr = secs, ctr
	if timed {
		if w.timed == 0 {
			w.skewMin, w.skewMax = skew, skew
		}
		w.timed++
		w.skewSum += skew
		w.skewMin, w.skewMax = min(w.skewMin, skew), max(w.skewMax, skew)
	}
	w.sample(point{secs, ctr})
	return st
}

// classifyStep is the one rule for consecutive IDs of one writer.
func classifyStep(lastSecs, lastCtr, secs, ctr uint32) step {
	switch {
	case secs < lastSecs:
		return stepBackwards
	case ctr > lastCtr:
		return stepRise
	case ctr < lastCtr && (ctr-lastCtr)%counterSpace < counterSpace/2:
		return stepWrap
	case secs == lastSecs:
		return stepNotRising
	}
	return stepRise // a later second may restart the counter anywhere
}

// sample keeps at most maxSamples points spread over the writer's IDs: when
// full, every other point goes and the stride doubles.
func (w *writer) sample(p point) {
	w.sinceSampled++
	if w.sinceSampled < w.stride {
		return
	}
	w.sinceSampled = 0
	if len(w.samples) == maxSamples {
		for i := 0; i < maxSamples/2; i++ {
			w.samples[i] = w.samples[2*i]
		}
		w.samples = w.samples[:maxSamples/2]
		w.stride *= 2
	}
	w.samples = append(w.samples, p)
}

// writerTable tracks at most max writers; the rest are counted.
type writerTable struct {
	max       int
	m         map[[5]byte]*writer
	dropped   int64 // writers dropped to stay within max
	untracked int64 // IDs of dropped writers
	singles   lone  // dropped writers that had one ID
	steps     [stepBackwards + 1]int64
	stepEx    [stepBackwards + 1]examples
}

func newWriterTable(max int) writerTable {
	return writerTable{max: max, m: make(map[[5]byte]*writer, min(max, 1024))}
}

func (t *writerTable) add(id oid.ID, skew int64, timed, odd bool, nex int) {
	key := id.Random()
	w := t.m[key]
	if w == nil {
		if len(t.m) >= t.max {
			t.prune()
		}
		w = &writer{key: key}
		t.m[key] = w
	}
	st := w.add(id, skew, timed, odd)
	t.steps[st]++
	if st >= stepWrap && len(t.stepEx[st]) < nex {
		t.stepEx[st].add(nex, id.Hex())
	}
}

// prune drops the half of the writers with the fewest IDs, so that the
// table's cost per ID stays constant on average.
func (t *writerTable) prune() {
	ws := make([]*writer, 0, len(t.m))
	for _, w := range t.m {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, byCountDesc)
	for _, w := range ws[len(ws)/2:] {
		delete(t.m, w.key)
		t.dropped++
		t.untracked += w.n
		if w.n == 1 {
			t.singles.add(w)
		}
	}
}

// lone is what is known of the writers of one ID, the random-hex rule's
// input: how many, how many of them odd, and their time range.
type lone struct {
	n, odd           int64
	minSecs, maxSecs uint32
}

func (l *lone) add(w *writer) {
	if l.n == 0 || w.minSecs < l.minSecs {
		l.minSecs = w.minSecs
	}
	if l.n == 0 || w.minSecs > l.maxSecs {
		l.maxSecs = w.minSecs
	}
	l.n++
	l.odd += w.odd
}

// processLike is a writer whose IDs behave as one process's: several IDs,
// the counter rising between some of them. Only such writers are evidence
// of a layout.
func (w *writer) processLike() bool { return w.n >= 2 && w.rises > 0 }

// byCountDesc orders writers by count, most first, then by key, so reports
// do not depend on map order.
func byCountDesc(a, b *writer) int {
	if a.n != b.n {
		if a.n > b.n {
			return -1
		}
		return 1
	}
	return slices.Compare(a.key[:], b.key[:])
}

// sorted returns the tracked writers, most IDs first.
func (t *writerTable) sorted() []*writer {
	ws := make([]*writer, 0, len(t.m))
	for _, w := range t.m {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, byCountDesc)
	return ws
}
