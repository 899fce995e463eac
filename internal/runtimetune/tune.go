// Package runtimetune sets the Go runtime's garbage collector pacing for
// oidkit, whose embedded server shares the process with the client: at the
// default GOGC=100 the two together spend much of their CPU collecting a
// small heap. Apply raises GOGC to GCPercent and caps the memory with a soft
// memory limit that follows the lasting live heap.
//
// GOGC=400 alone lets the heap grow to five times what the last collection
// found live. What a collection finds live moves with what is in flight at
// that moment (batches on both sides of the embedded server), so one that
// finds more raises the peak five times over, and the longer the run, the
// more such moments: peak memory grew with the number of documents. The
// lasting part of the live heap is the smallest that the last Window
// collections found; after every collection the limit is set to what
// GOGC=400 allows for that part, but at least Floor and at most a ceiling
// taken from the memory the process may use. A small lasting heap (seed,
// verify db: 4 to 6 MB) is then held to Floor, flat in the size of the
// work, while a large one (tables built from a big file) keeps all that
// GOGC=400 gives it, so the collector never runs without pause. Either
// environment variable, GOGC or GOMEMLIMIT, leaves the runtime exactly as
// the user set it.
package runtimetune

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// GCPercent is the GOGC Apply sets: the heap may grow to five times what is
// live before a collection (figures: docs/benchmarks.md, Run H).
const GCPercent = 400

// Ceiling bounds: the ceiling of the soft memory limit is a quarter of the
// memory available, but at most MaxLimit (the heap of oidkit stays far below
// it; the ceiling only has to stop GOGC from growing it without end) and at
// least MinLimit.
const (
	MaxLimit = 512 << 20
	MinLimit = 64 << 20
)

// Floor is the least soft memory limit, and Window the number of recent
// collections whose smallest live heap is taken as lasting. The limit
// covers all the Go runtime's memory: the live heap, what was allocated
// since the last collection, and the runtime's own (stacks, collector
// metadata, freed memory not yet returned). Floor is below what a
// 10,000-document seed reached under GOGC=400 alone (53 MB), so the cap
// holds at every size, and above what GOGC=400 gives the 4 to 6 MB that
// usually live in seed and verify db (20 to 30 MB), so it costs them few
// extra collections (figures: docs/benchmarks.md, "Peak RSS against size").
const (
	Floor  = 44 << 20
	Window = 8
)

// Settings are what Apply chose.
type Settings struct {
	Applied   bool  // false: GOGC or GOMEMLIMIT is set, nothing changed
	GCPercent int   // the new GOGC
	Limit     int64 // the ceiling of the soft memory limit, in bytes
	Floor     int64 // the least soft memory limit (unless above Limit)
}

// LimitFor is the soft memory limit for a lasting live heap of live bytes:
// the heap GCPercent allows for it, live × (1 + GCPercent/100), but at
// least Floor and at most Limit.
func (s Settings) LimitFor(live uint64) int64 {
	factor := uint64(100 + max(s.GCPercent, 0)) // GOGC off is not chosen here
	if live >= uint64(s.Limit) || live > uint64(s.Limit)/factor*100 {
		return s.Limit
	}
	return min(s.Limit, max(s.Floor, int64(live*factor/100)))
}

// lasting is the smallest of the last Window live heaps.
type lasting struct {
	live [Window]uint64
	n    int // how many were added
}

// add records a collection's live heap and returns the smallest of the
// last Window, this one included.
func (l *lasting) add(live uint64) uint64 {
	l.live[l.n%Window] = live
	l.n++
	least := live
	for _, v := range l.live[:min(l.n, Window)] {
		least = min(least, v)
	}
	return least
}

// Choose is the rule Apply follows, given the environment and the bytes of
// memory available to the process (0 when unknown).
func Choose(getenv func(string) string, available int64) Settings {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return Settings{}
	}
	limit := int64(MaxLimit)
	if available > 0 {
		limit = min(max(available/4, MinLimit), MaxLimit)
	}
	return Settings{Applied: true, GCPercent: GCPercent, Limit: limit, Floor: Floor}
}

// Apply sets the runtime as Choose says for this process's environment and
// memory, and from then on resets the soft memory limit after every
// collection to LimitFor the lasting live heap. It returns what it set.
func Apply() Settings {
	s := Choose(os.Getenv, Available())
	if s.Applied {
		debug.SetGCPercent(s.GCPercent)
		follow(s)
	}
	return s
}

// liveHeap is the runtime metric of the heap the last collection found live.
const liveHeap = "/gc/heap/live:bytes"

// follow sets the soft memory limit to s.LimitFor the lasting live heap
// now and after every collection, until the returned stop is called (the
// process's lifetime, in oidkit).
func follow(s Settings) (stop func()) {
	var (
		stopped atomic.Bool
		mu      sync.Mutex
		recent  lasting
		sample  = []metrics.Sample{{Name: liveHeap}}
	)
	set := func() {
		mu.Lock()
		defer mu.Unlock()
		metrics.Read(sample)
		var live uint64
		if sample[0].Value.Kind() == metrics.KindUint64 {
			live = sample[0].Value.Uint64()
		}
		debug.SetMemoryLimit(s.LimitFor(recent.add(live)))
	}
	set()
	afterEachGC(func() bool {
		if stopped.Load() {
			return false
		}
		set()
		return true
	})
	return func() { stopped.Store(true) }
}

// gcMark is an object only a finalizer refers to: a collection frees it and
// runs the finalizer. It holds a pointer so that it is never one of the
// tiny allocations, which share a block and so may never be freed alone.
type gcMark struct {
	p *gcMark
	_ [8]byte
}

// afterEachGC calls f on the finalizer goroutine after each collection,
// until f returns false.
func afterEachGC(f func() bool) {
	m := &gcMark{}
	runtime.SetFinalizer(m, func(*gcMark) {
		if f() {
			afterEachGC(f)
		}
	})
}

// cgroupLimits are the files holding the memory limit of the process's
// control group, cgroup v2 then v1.
var cgroupLimits = [...]string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// Available is the memory the process may use: the smaller of its control
// group's limit and the machine's memory, in bytes; 0 when neither is known.
func Available() int64 {
	avail := memTotal("/proc/meminfo")
	for _, path := range cgroupLimits {
		if n := cgroupLimit(path); n > 0 && (avail == 0 || n < avail) {
			avail = n
		}
	}
	return avail
}

// cgroupLimit reads a cgroup memory limit file; 0 for "max", a missing file
// or anything unreadable.
func cgroupLimit(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// memTotal reads MemTotal from a /proc/meminfo file, in bytes; 0 when absent.
func memTotal(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}
