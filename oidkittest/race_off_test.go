//go:build !race

package oidkittest

const raceEnabled = false
