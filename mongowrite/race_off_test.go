//go:build !race

package mongowrite_test

const raceEnabled = false
