//go:build race

package mongowrite_test

// The embedded server runs in the test process, so the race detector slows
// it down too: the long tests use fewer documents.
const raceEnabled = true
