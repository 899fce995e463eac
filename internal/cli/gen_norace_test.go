//go:build !race

package cli

const genRaceEnabled = false
