// Package runtimetune sets the Go runtime's garbage collector pacing for
// oidkit, whose embedded server shares the process with the client: at the
// default GOGC=100 the two together spend much of their CPU collecting a
// small heap. Apply raises GOGC and caps the heap with a soft memory limit
// taken from the memory the process may use, so that raising GOGC can never
// run the process out of memory. Either environment variable, GOGC or
// GOMEMLIMIT, leaves the runtime exactly as the user set it.
package runtimetune

import (
	"bufio"
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// GCPercent is the GOGC Apply sets: the heap may grow to five times what is
// live before a collection (figures: docs/benchmarks.md, Run H).
const GCPercent = 400

// Limit bounds: the soft memory limit is a quarter of the memory available,
// but at most MaxLimit (the heap of oidkit stays far below it; the limit
// only has to stop GOGC from growing it without end) and at least MinLimit.
const (
	MaxLimit = 512 << 20
	MinLimit = 64 << 20
)

// Settings are what Apply chose.
type Settings struct {
	Applied   bool  // false: GOGC or GOMEMLIMIT is set, nothing changed
	GCPercent int   // the new GOGC
	Limit     int64 // the new soft memory limit, in bytes
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
	return Settings{Applied: true, GCPercent: GCPercent, Limit: limit}
}

// Apply sets the runtime as Choose says for this process's environment and
// memory, and returns what it set.
func Apply() Settings {
	s := Choose(os.Getenv, Available())
	if s.Applied {
		debug.SetMemoryLimit(s.Limit)
		debug.SetGCPercent(s.GCPercent)
	}
	return s
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
