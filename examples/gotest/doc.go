// Package gotest is oidkittest used the way a user's module uses it: only
// public API, parallel seeded tests, fixtures from an embed.FS, Verify
// catching a changed document, and a TestMain of one line (oidkittest.Main)
// that stops what New started once the last test ends. Its tests run with
// the rest of the module (go test ./...); with OIDKIT_TEST_URI or
// OIDKIT_TEST_MONGO_IMAGE set they run unchanged against that MongoDB
// (integration_test's TestOidkittestBackends runs all three).
package gotest
