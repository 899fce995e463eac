package pipeline

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/query"
)

// compileFilter compiles a $match, $graphLookup's restrictSearchWithMatch
// or an $elemMatch projection under the collation of vars, whose
// variables (and clock) its $expr sees.
func compileFilter(filter bsoncore.Document, vars *expr.Vars) (*query.Filter, error) {
	return query.Compile(filter, &query.Options{Collation: vars.Collator(), Expr: expr.Predicate(vars)})
}
