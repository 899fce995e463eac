package seed

import "github.com/oidkit/oidkit/parts"

// The numbering of a collection's documents is package parts'; seed's
// names for it stay.
type (
	Part     = parts.Part     // part I of N of every collection
	Range    = parts.Range    // document numbers [From, To)
	Batch    = parts.Batch    // marshalled documents From, From+1, ...
	DocError = parts.DocError // an error about one document
	// StreamOptions tune a Stream: the zero value streams the whole
	// collection in batches of DefaultBatch with one generator per CPU
	// (at most 8).
	StreamOptions = parts.StreamOptions
)
