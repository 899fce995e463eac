//go:build !linux

package oid_test

import (
	"testing"
	"time"
)

// cpuClock reports nothing where thread CPU time is not available.
type cpuClock struct{}

func startCPU(*testing.B) cpuClock   { return cpuClock{} }
func (cpuClock) stop() time.Duration { return 0 }
