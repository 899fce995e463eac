package verify

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/rules"
)

// compareIDs orders two _id values as MongoDB sorts them: rules.CompareIDs,
// the one home of how the server compares and equates _id values.
func compareIDs(a, b bson.RawValue) (int, bool) { return rules.CompareIDs(a, b) }
