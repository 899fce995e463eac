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
// Tests run side by side (t.Parallel; two at a time with go test's default
// -parallel on two cores): each has its own server, containers, data
// directories and files, and most of their time is spent waiting on a
// container, a process or a timeout. Three run alone, and go test runs every
// test that does not call t.Parallel before any that does, so nothing else
// is under way while they run:
//
//   - TestSeedResumeAfterServerFault stops and kills its server's container
//     while seed is still sending to its published port; that port is free
//     until the container starts again, and a container or server started
//     meanwhile could take it and receive seed's writes;
//   - TestBadInput's unreachable server is a port it found free and closed,
//     which another test's server could take;
//   - TestOidkittestBackends requires that no container of the suite's image
//     is left after oidkittest's runs, and the other tests' servers are
//     containers of that image.
//
// See docs/integration.md.
package integration
