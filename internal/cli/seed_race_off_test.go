//go:build !race

package cli

const seedRaceEnabled = false
