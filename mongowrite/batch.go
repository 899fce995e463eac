package mongowrite

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/rules"
)

// DefaultBatch is the documents per batch of a write whose caller does not
// choose.
const DefaultBatch = 1000

// MaxBatch is the most documents a caller may ask of one batch: MongoDB's
// maxWriteBatchSize, the most one write command takes.
const MaxBatch = 100000

// MaxWorkers is the most concurrent inserters a caller may ask for.
const MaxWorkers = 64

// CheckBatch is the rule for a batch size a caller chose (of a write, or
// of a cursor that exports): 1 to MaxBatch.
// Its error names n and what was expected ("0: expected 1 to 100000").
func CheckBatch(n int) error { return checkRange(n, MaxBatch) }

// CheckWorkers is the rule for a number of inserters a caller chose: 1 to
// MaxWorkers.
func CheckWorkers(n int) error { return checkRange(n, MaxWorkers) }

func checkRange(n, max int) error {
	if n < 1 || n > max {
		return fmt.Errorf("%d: expected 1 to %d", n, max)
	}
	return nil
}

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
