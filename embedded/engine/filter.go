package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/query"
)

// compileFilter compiles a query filter under the collation of vars,
// whose variables (and clock) its $expr sees; vars may be nil.
func compileFilter(filter bsoncore.Document, vars *expr.Vars) (*query.Filter, error) {
	return query.Compile(filter, &query.Options{Collation: vars.Collator(), Expr: func(arg bsoncore.Value) (func(bsoncore.Document) bool, error) {
		e, err := expr.Compile(arg, vars)
		if err != nil {
			return nil, err
		}
		return func(doc bsoncore.Document) bool {
			r, err := e.Eval(doc, nil)
			return err == nil && bsonval.Truthy(r)
		}, nil
	}})
}
