// Package parts numbers the documents of a collection: a [Range] of
// document numbers, a [Batch] of marshalled documents, a [Part] I of N of
// every collection (what one process of a partitioned run writes), and a
// [DocError] about one document. Generating (package seed), writing and
// resuming (mongowrite) and verifying share them.
package parts
