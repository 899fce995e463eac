package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// Atlas Search runs beside MongoDB in a process of its own, which
// oidkit's server has not: its index commands and stages answer
// SearchNotEnabled (31082), as a MongoDB without it does.

func searchNotEnabled() error {
	return mongoerr.New(mongoerr.SearchNotEnabled, "Using Atlas Search Database Commands and the $listSearchIndexes aggregation stage requires additional configuration. Please connect to Atlas or an AtlasCLI local deployment to enable. oidkit's server has no search")
}

func cmdSearchIndexes(*call) (bsoncore.Document, error) { return nil, searchNotEnabled() }
