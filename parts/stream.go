package parts

import "go.mongodb.org/mongo-driver/v2/bson"

// StreamOptions say which documents of a collection a stream yields, and
// how. The zero value is the whole collection in the source's own batches
// and generators (seed.Stream: batches of seed.DefaultBatch, one generator
// per CPU, at most 8).
type StreamOptions struct {
	// Ranges are the documents to stream, in this order; nil means the
	// whole collection. Parts outside [0, Len) are left out.
	Ranges []Range
	// Batch is the number of documents per batch; 0 means the source's
	// default.
	Batch int
	// Workers is the number of generating goroutines; 0 means the
	// source's default.
	Workers int
	// Check, if set, is called on every document after marshalling, in the
	// generating goroutines; an error ends the stream with a *DocError.
	Check func(doc bson.Raw) error
}

// Batches is a collection's documents in ordered batches: Next until it
// returns io.EOF or another error, then Close (also after an error). Next
// is safe for concurrent use: each batch goes to one caller, in order.
type Batches interface {
	Next() (Batch, error)
	Close()
	// Len is the number of documents it yields in all.
	Len() int64
}
