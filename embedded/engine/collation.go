package engine

// The collation of a command, a write statement or an index: its own
// collation option, else its collection's default; bsonval.Collator
// compares under it.

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/expr"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// commandCollation is the collation a command's operation uses: its own
// collation option, else its collection's default.
func commandCollation(arg bsoncore.Value, col *collection) (*bsonval.Collator, error) {
	if arg.Type != 0 {
		return bsonval.ParseCollation(arg)
	}
	if col == nil {
		return nil, nil
	}
	v, err := col.opts.LookupErr("collation")
	if err != nil {
		return nil, nil
	}
	return bsonval.ParseCollation(v)
}

// withCollation is vars with the collation of one statement of a write
// command (its own collation field, else its collection's default).
func withCollation(vars *expr.Vars, stmt bsoncore.Document, col *collection) (*expr.Vars, error) {
	k, err := commandCollation(lookupOr(stmt, "collation"), col)
	if err != nil || k == nil {
		return vars, err
	}
	cp := expr.Vars{Now: vars.Now, Coll: k}
	if vars != nil {
		cp.Vars = vars.Vars
	}
	return &cp, nil
}

// checkIndexCollation refuses what an index's keys cannot hold: keys in a
// collation's order (the index's collation option), and a unique index
// that would inherit its collection's default collation (its uniqueness
// would be by that collation). Queries with a collation read the
// collection, so other indexes of such a collection answer rightly.
func checkIndexCollation(c *collection, ix *index, spec bsoncore.Document) error {
	k, err := bsonval.ParseCollation(lookupOr(spec, "collation"))
	if err != nil {
		return err
	}
	if k != nil {
		return mongoerr.New(mongoerr.NotImplemented, "index %s: an index with a collation other than simple is not supported by oidkit's server", ix.name)
	}
	if _, explicit := spec.LookupErr("collation"); explicit == nil || !ix.unique {
		return nil
	}
	if k, _ := commandCollation(bsonval.Missing, c); k != nil {
		return mongoerr.New(mongoerr.NotImplemented, "index %s: a unique index on a collection with a default collation is not supported by oidkit's server (give the index collation {locale: \"simple\"})", ix.name)
	}
	return nil
}
