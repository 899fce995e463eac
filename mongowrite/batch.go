package mongowrite

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/rules"
)

// DefaultBatch is the documents per batch of a write whose caller does not
// choose.
const DefaultBatch = 1000

// BatchBytes bounds the documents of one batch: MongoDB's largest document
// (rules.MaxBSONSize), so that one insert command (16 MiB and 16 KiB)
// carries any batch.
const BatchBytes = rules.MaxBSONSize

// Fits is the writer's one rule for cutting documents into batches, by
// count and by bytes as mongoimport's bulk writer cuts them: a document of
// size bytes joins a batch of n documents and bytes bytes unless the batch
// has max documents already (DefaultBatch when max <= 0) or the document
// would take it past BatchBytes. A batch's first document always fits: a
// larger one is refused by the target's rules before it is written.
func Fits(n, bytes, size, max int) bool {
	if max <= 0 {
		max = DefaultBatch
	}
	return n == 0 || (n < max && bytes+size <= BatchBytes)
}

// Cut is how many of docs, from the first, make the next batch of at most
// max documents (Fits): at least one when docs holds any.
func Cut(docs []bson.Raw, max int) int {
	n, bytes := 0, 0
	for n < len(docs) && Fits(n, bytes, len(docs[n]), max) {
		bytes += len(docs[n])
		n++
	}
	return n
}
