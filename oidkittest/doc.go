// Package oidkittest gives every Go test a MongoDB database of its own,
// seeded from a plan or fixture files, isolated from every other test and
// dropped when the test ends:
//
//	db := oidkittest.New(t)                                   // empty
//	db := oidkittest.New(t, oidkittest.WithPlan(plan))        // a seeded *seed.Plan
//	db := oidkittest.New(t, oidkittest.WithFixtures(fsys, "testdata/*.ndjson"))
//	oidkittest.Verify(t, db) // fails t unless db holds exactly what New put there
//	faulty := oidkittest.FailCommand(t, db, oidkittest.FailPoint{Commands: []string{"insert"}, Times: 1, ErrorCode: 11602})
//
// # Backends
//
// By default the tests run on the embedded server (package embedded:
// oidkit's own MongoDB-compatible server in the test process, nothing to
// download, no Docker), started once per test binary when a test first
// asks. With OIDKIT_TEST_URI set they run on that MongoDB, and with
// OIDKIT_TEST_MONGO_IMAGE (such as mongo:8.0) on one container of that
// image per test binary, started through Testcontainers' mongodb module
// once a test file imports oidkittest/mongocontainer for its effect (it
// needs Docker and the image; without them, or without the import, New
// fails the test saying so). The same test file runs unchanged on all three (tested with
// examples/gotest, the image backend with oidkit's own server in a
// container, not a real mongod: docs/oidkittest.md). Pick a real MongoDB
// for code that needs what the embedded server does not do (docs/server.md
// lists it: non-simple collation, $text, geospatial queries, views).
//
//	feature                  embedded               OIDKIT_TEST_URI, _IMAGE
//	New, WithPlan,           yes                    yes
//	  WithFixtures, Keep
//	Verify                   yes                    yes
//	URI, DBName              yes                    yes
//	template                 a database of the      the documents, in memory,
//	                         shared server          per test binary
//	                         (both filled from the disk cache when it has them)
//	a clone costs            a copy-on-write        an InsertMany of every
//	                         snapshot, whatever     document and the indexes
//	                         the template holds
//	marker collection        none                   oidkittest_marker
//	Close, Main              stop the server,       disconnect; terminate
//	                         remove its files       the container
//	keep a test's data       its database in the    the database, logged
//	                         data directory, logged
//
// A clone on the embedded server is a snapshot of the template's database
// under the test's database name (embedded.Server.CloneDatabase): the two
// share every document until either writes, so New costs the same for a
// template of 100 documents or of 10,000, and 64 parallel tests share one
// server (figures: docs/server.md).
//
// # Isolation and cleanup
//
// Every New gets a database no other test sees, named after the test (so
// tests with t.Parallel never see each other's writes). At the end of the
// test the database is dropped, unless the test
// failed or Keep or OIDKIT_TEST_KEEP=1 asks to keep it: then the test's log
// says where it is. The shared embedded server, the templates and the
// container live until Close, which Main calls after the last test:
//
//	func TestMain(m *testing.M) { oidkittest.Main(m) }
//
// Without it they live until the test binary exits, and the next test
// binary removes what an exited one left in the temporary directory
// (oidkittest-PID-*); directories with a kept database stay, those of the
// KeptRuns most recently kept (all of them under OIDKIT_TEST_KEEP=1).
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
// distinct plan (or set of fixture files) is loaded once into a template,
// keyed by a hash of the plan's run manifest (plan, seed, time base, span,
// document format) or of the fixture files' names and bytes, and each test
// gets a copy. On the embedded server the template is a database of the
// shared server, filled once per test binary; elsewhere it is the
// documents the server returned, kept in memory for the test binary, and a
// copy inserts them.
//
// The templates are also cached on disk between test binaries (package
// oidkittest/tplcache): a later binary copies a template's documents and
// indexes from its entry instead of generating them. The entry's key
// covers what shapes the template's bytes (the plan's content or the
// files' bytes, the generator's version seed.DocumentFormat, oidkit's and
// gofakeit's release versions where the build names them) and not the
// test binary, so editing a test reuses it. The cache lives in
// os.UserCacheDir()/oidkit/templates (OIDKIT_CACHE_DIR moves it,
// OIDKIT_CACHE=off switches it off), is bounded (OIDKIT_CACHE_MAX, 512 MiB
// by default) with the least recently used entries removed first, and
// oidkit cache shows and clears it. A damaged entry is removed and the
// template built again.
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
