//go:build !race

package seed_test

const raceEnabled = false
