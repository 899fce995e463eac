//go:build race

package cli

// The embedded server runs in the test process, so the race detector slows
// it down too: long seed tests use fewer documents.
const seedRaceEnabled = true
