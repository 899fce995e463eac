package oid_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuClock measures the benchmark goroutine's thread CPU time, reported as
// cpu-ns/op next to the wall-clock ns/op. On a machine shared with other
// work, wall time counts the time the thread waited for a core; CPU time
// does not, so the ratio of two implementations stays readable.
type cpuClock struct {
	b     *testing.B
	start time.Duration
}

func startCPU(b *testing.B) cpuClock {
	runtime.LockOSThread()
	return cpuClock{b, threadCPU()}
}

func (c cpuClock) stop() time.Duration {
	used := threadCPU() - c.start
	runtime.UnlockOSThread()
	if c.b.N > 0 {
		c.b.ReportMetric(float64(used.Nanoseconds())/float64(c.b.N), "cpu-ns/op")
	}
	return used
}

func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
