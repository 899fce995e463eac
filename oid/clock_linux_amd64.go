package oid

import (
	"syscall"
	"time"
)

// wallSeconds is the Unix time in seconds. time.Now reads two clocks (wall
// and monotonic); an ObjectID needs only the wall clock, and gettimeofday,
// served by the vDSO on linux/amd64, reads it in half the time.
func wallSeconds() int64 {
	var tv syscall.Timeval
	if syscall.Gettimeofday(&tv) == nil {
		return tv.Sec
	}
	return time.Now().Unix()
}
