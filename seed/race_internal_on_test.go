//go:build race

package seed

// raceEnabled is whether the race detector runs: the long internal tests
// check fewer documents under it.
const raceEnabled = true
