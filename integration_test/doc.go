// Package integration holds the end-to-end tests of oidkit: they build the
// oidkit binary, run it as users do, and check what it leaves in a
// MongoDB-compatible server started in a container by testcontainers-go (an
// image built FROM scratch around the same binary running `oidkit server`).
//
// The server the suite talks to is chosen by the environment:
//
//   - default: a container built from a scratch image holding the static
//     oidkit binary (oidkit's own embedded server);
//   - OIDKIT_TEST_MONGO_IMAGE=mongo:8.0: real MongoDB through the
//     testcontainers mongodb module (needs a registry to pull from);
//   - OIDKIT_TEST_URI=mongodb://...: an existing server; scenarios that stop,
//     kill or pause the server skip;
//   - no Docker engine reachable: the embedded server in the test process, with
//     the fault scenarios that need a container skipped.
//
// See docs/integration.md.
package integration
