package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/query"
)

// compileFilter compiles a query filter under the collation of vars,
// whose variables (and clock) its $expr sees; vars may be nil.
func compileFilter(filter bsoncore.Document, vars *expr.Vars) (*query.Filter, error) {
	return query.Compile(filter, &query.Options{Collation: vars.Collator(), Expr: expr.Predicate(vars)})
}
