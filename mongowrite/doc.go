// Package mongowrite writes batches of documents to MongoDB and describes
// what the server refused: the one writer of seeding and loading, and the
// one describer of a write that stopped ([WriteError.Reached],
// [WriteError.Cause], [Describe]).
//
// [InsertBatch] inserts one batch with an unordered InsertMany, so that one
// refused document does not hold back the others; with dupOK, documents
// whose _id is already stored (code 11000) are reported by position rather
// than as a failure, which is how a resumed seed run and a fixture load
// skip what is already there. [Refused] finds the first refused document
// in a bulk write's error.
//
// A write that stops is a [*WriteError]: the collection, how many
// documents were confirmed stored, of how many, the refused document when
// one was ([WriteDoc]: its number, or the file and line it was read from,
// and its _id), and the cause. [ServerMessage] removes the internal source
// locations some servers prefix to their messages. Nothing here names a CLI
// flag; the caller adds the hint it needs.
//
// Seeding and loading decide here, once, what every writer into a
// collection decides: its indexes checked before anything is written or
// dropped ([Prepare]), the drop ([Drop], with the pending replacements
// of [PendingSuffix]), and what counts as already there ([Stored]: a
// document refused as a duplicate key that the collection holds as it is;
// one it holds otherwise is not, [ErrNotStored]).
//
// The unique indexes other than _id's, those on the collection and those
// the writer will create, are checked here too before the first write
// ([CheckUniqueInput]; [CheckUnique] for n documents by number): a key the
// input holds twice is a [*UniqueInputError], one a stored document with
// another _id holds a [*UniqueClashError], each listing the first
// [MaxUniqueListed] by the caller's names of places (file:line, document
// n); what cannot be checked is [Unchecked]. A document the server still
// refuses by such an index is explained by [UniqueRefusal]
// ([ErrUniqueIndex]). Keys are shown as package ejson writes them.
//
// [Insert] writes a [Source], a collection's documents by number made on
// demand (a generated collection: package seed's), with several
// inserters; with Resume, its duplicates go through [Stored]. A run
// [Manifest] records what a run wrote into a collection, stored with the
// data in the [ManifestCollection] of the target database: the run's plan
// as its maker gave it ([Manifest.Plan], kept and never read here), the
// acknowledged ranges and the state. [InsertKeeping] inserts what a
// manifest does not list as acknowledged and keeps it as batches are;
// [SaveManifest], [ReadManifest], [ReadPartManifest] and [ReadManifests]
// store and read them (an error wraps [ErrNoManifest] when there is none).
//
// [Prepare] is the one order of a write into collections, a seed run's
// and a load's: the checks of the indexes (listed once, and handed to the
// writer's own checks), the writer's own checks, then the drop, or the indexes of the collections that hold
// documents; each collection's documents, then the indexes it lacks
// ([Prepared.After]): an empty collection is indexed after its documents.
//
// [WriteDataset] is the write phase of a seed run, once its plan is built
// (package run builds it and gives its collections as a [Dataset]), in that
// order: its checks (the
// target's rules, a run of the same plan already there, the run's _ids and
// unique keys against the stored documents), the inserts keeping each
// collection's manifest, and what a stopped write left ([InsertError]: how
// many documents the server holds). Its errors ([RefusedError], [AlreadyStoredError], [IndexError]
// and its [IndexStage], [InsertError]) have exit codes.
//
// Seeding (package run) and fixture loading and export (package fixtures)
// both write and fail through this package, so a stop reads the same
// whichever of them stopped. Generation (package seed) knows no database.
package mongowrite
