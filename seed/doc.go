// Package seed makes realistic mock documents for MongoDB and writes them:
// it owns the kinds, templates, _id strategies and plans (built in Go, read
// from a file, or from settings as a person types them: [PlanOptions]), the
// one stream of marshalled batches every sink consumes, and the run
// manifest of one collection.
//
// # Model
//
// A [Plan] names one or more collections, each with a document count, a
// built-in kind (user, employee, product, order) or a JSON [Template], an
// `_id` strategy ([IDStrategy]) and references to other collections. Plan.Build
// validates the whole plan before anything is generated and returns a
// [Dataset] holding one [Collection] generator per collection.
//
// A Collection is random access: Doc(i) builds document i and ID(i) its `_id`
// without building the document (except for field:NAME strategies, where the
// `_id` is part of the document). Document i depends only on the plan's seed,
// the collection name, the collection's settings and i, so documents can be
// generated in parallel, a run can be resumed, a reference is the `_id` of a
// document chosen from the seed (orders.userId = users.ID(j)), and a database
// can be checked by rebuilding the documents it should hold. A stored
// reference ([Ref].Stored) draws instead from the `_id`s a target already
// holds, handed to [Plan.BuildStored] as data ([StoredIDs], sorted by `_id`):
// the documents are then a function of the seed and those `_id`s, and the
// package still reads no database.
//
// # Determinism and time
//
// With a seed (Plan.Seeded), the same plan gives byte-identical documents and
// ObjectIDs on every run and machine. The time base is Plan.At; when it is zero
// and the plan is seeded, it is [DefaultBase] (2024-01-01T00:00:00Z); [TimeBase]
// is that rule, for callers that need the base before building. Plan.Span
// spreads the timestamps evenly over the window [base-span, base]: document 0
// gets base-span, the last document gets base. A document's createdAt equals
// its ObjectID timestamp (whole seconds), also when the `_id` is not an
// ObjectID.
//
// Without a seed, a random seed is drawn, the time base is the current clock
// (whole seconds) and ObjectIDs take the process-unique random value of a fresh
// oid.Generator: the data and IDs are different on every run.
//
// Templates may use gofakeit functions that read the clock ({pastdate});
// a seeded plan refuses them, since its output could not be reproduced.
//
// # Coherence
//
// The values of a built-in kind's document agree with each other: a user's
// address is one real place (places.go: city, region, postal code of that
// city's ranges and country, countries weighted like a user base), e-mail
// and username are built from the name, age is the whole years from
// birthDate to createdAt, updatedAt lies between createdAt and the time
// base; money is whole cents (an order's total is the integer sum of
// quantity times unitPrice, and unitPrice is the referenced product's
// price); an order's userId follows a Zipf distribution over the users.
// Templates have weighted, normal, normalint and zipf placeholders
// (template_dist.go).
//
// # ObjectIDs
//
// ObjectID i of a collection is: the 4-byte timestamp of document i, a 5-byte
// random value and a 3-byte counter (counterStart + i) mod 2^24. The random
// value is derived from the seed and the collection name, as if each
// collection had been written by its own process; the counter start is
// derived from the seed too. Each time the counter wraps (0xFFFFFF -> 0) the
// random value goes up by one (as a 40-bit number), so IDs stay unique for
// any count. Within one wrap these are exactly the IDs an oid.Generator with
// that random value and counter start makes at those times; the bytes are
// laid out by oid.FromParts.
//
// # Errors
//
// Every plan error is a *[PlanError] (matching [ErrPlan]) that says which
// [Setting] is wrong (kind, count, template, id, idStart, ref, db, collection,
// seed, at, span, or the plan file), in which collection, with the offending
// value and the cause: a *rules.NameError for names, a *[TemplateError] (file
// and JSON path) for templates. Messages use the plan file's spelling; a
// caller maps Setting to its own (a CLI flag). [ParseSeed] is the one reading
// of a seed.
//
// # Value types
//
// Documents hold only values that survive relaxed Extended JSON byte for byte:
// int32 (int64 only for values outside int32), float64, UTC datetimes at
// millisecond precision, strings, booleans, arrays, embedded documents,
// ObjectIDs and binary (UUIDs). `_id` is always the first field.
//
// # The stream
//
// [Collection.Stream] is the one producer of documents for every sink: it
// turns index ranges ([Range]) into ordered [Batch]es of marshalled BSON,
// made by a bounded number of generating goroutines, each at most two
// batches ahead, so memory does not grow with the count. The MongoDB writer
// (mongowrite.Insert), the fixture writer (package fixtures) and the verifier (package
// verify) all consume it; [StreamOptions.Check] runs a target's rules on
// every document before its batch leaves the generator (a [*DocError]).
// [Collection.Index] inverts the objectid and int `_id` mappings, so a
// stored `_id` names its document number without generating anything.
//
// # Checking
//
// Generation knows no database: writing a stream into a collection, and
// storing and reading run manifests, belong to package mongowrite.
//
// [Collection.CheckShape] checks a template's keys and nesting against a
// target's rules before anything is generated. A Collection is the source
// a writer takes ([Collection.Batches], [Collection.Raw],
// [Collection.Indexes]: mongowrite.Source).
//
// # Plan records
//
// A [PlanRecord] is a plan as a run records it with its data (the plan part
// of a run manifest, which package mongowrite keeps): enough to rebuild
// every document (seed, time base, span, every collection's settings), and
// the oidkit and gofakeit versions and document format that made them.
// [PlanRecord.Diff] names the first setting in which two records differ,
// so a resume that would write other documents is refused; a verifier
// rebuilds the plan with [PlanRecord.Plan].
package seed
