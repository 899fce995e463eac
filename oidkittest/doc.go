// Package oidkittest gives every Go test a MongoDB database of its own,
// seeded from a plan or fixture files, isolated from every other test and
// dropped when the test ends:
//
//	db := oidkittest.New(t)                                   // empty
//	db := oidkittest.New(t, oidkittest.WithPlan(plan))        // a seeded *seed.Plan
//	db := oidkittest.New(t, oidkittest.WithFixtures(fsys, "testdata/*.ndjson"))
//	oidkittest.Verify(t, db) // fails t unless db holds exactly what New put there
//
// # Backends
//
// By default the tests run on the embedded server (package embedded:
// FerretDB with SQLite in the test process, nothing to download, no
// Docker), started once per test binary when a test first asks. With
// OIDKIT_TEST_URI set they run on that MongoDB, and with
// OIDKIT_TEST_MONGO_IMAGE (such as mongo:8.0) on one container of that
// image per test binary, started through Testcontainers' mongodb module
// (it needs Docker and the image; without them New fails the test saying
// so). The same test file runs unchanged on all three. Pick a real MongoDB
// for code that needs what the embedded server does not do (transactions,
// change streams, $lookup, $toDate...: see package embedded).
//
//	feature                     embedded   OIDKIT_TEST_URI / _IMAGE
//	New, WithPlan, WithFixtures yes        yes
//	Verify                      yes        yes (plus the server-side timestamp row)
//	template                    a SQLite   documents in memory
//	                            file
//	a clone costs               a file copy and a server start (a few ms,
//	                            about the same for any size: docs/benchmarks.md)
//	                                       an InsertMany of the documents
//	marker collection           none       oidkittest_marker
//	keep a failed test's data   its data directory, logged   the database, logged
//
// # Isolation and cleanup
//
// Every New gets a database no other test sees, named after the test (so
// tests with t.Parallel never see each other's writes). At the end of the
// test the database is dropped (and a clone's server stopped and its data
// directory removed), unless the test failed or Keep or OIDKIT_TEST_KEEP=1
// asks to keep it: then the test's log says where it is. The shared
// embedded server and the templates live until the test binary exits; the
// next test binary removes what an exited one left in the temporary
// directory (oidkittest-PID-*), except directories with a kept database.
//
// On a server it does not own (OIDKIT_TEST_URI, the container) oidkittest
// never writes to or drops a database it did not create: New claims a name
// that holds nothing yet and writes a marker document (collection
// oidkittest_marker) with a token; cleanup drops the database only if the
// marker with that token is still there, and otherwise fails the test
// saying why. Verify does not count the marker collection.
//
// # Load once, clone per test
//
// A seeded plan's documents are a pure function of the plan, so each
// distinct plan (or set of fixture files) is loaded once per test binary
// into a template, keyed by a hash of the plan's run manifest (plan, seed,
// time base, span, document format, oidkit and gofakeit versions) or of the
// fixture files' names and bytes, and each test gets a copy. On the
// embedded server the template is the SQLite file of a stopped server and a
// copy is that file copied into a new data directory with a server of its
// own; elsewhere the template is the documents the server returned, kept in
// memory, and a copy inserts them. Templates are not cached on disk between
// test binaries.
//
// # Bad input
//
// New fails the test (t.Fatal, never a skip) on a plan error (naming the
// setting, as seed.PlanError does), a fixture file that fails validation
// (naming file:line as in its fs.FS, and the field), an unreachable
// OIDKIT_TEST_URI (naming the URI with its password masked), an image that
// cannot start, and contradictory options: WithPlan twice, an unseeded
// plan (its documents could not be rebuilt by Verify), a collection that
// comes from both the plan and fixtures or from two fixture sets, both
// OIDKIT_TEST_URI and OIDKIT_TEST_MONGO_IMAGE.
package oidkittest
