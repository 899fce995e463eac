//go:build race

package oidkittest

// raceEnabled is whether the race detector runs (the tests size their work by it).
const raceEnabled = true
