package update

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/query"
)

// compileFilter compiles an arrayFilters condition or a $pull condition
// under the collation of vars, whose variables its $expr sees.
func compileFilter(filter bsoncore.Document, vars *expr.Vars) (*query.Filter, error) {
	return query.Compile(filter, &query.Options{Collation: vars.Collator(), Expr: expr.Predicate(vars)})
}
