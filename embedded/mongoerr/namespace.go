package mongoerr

import "strings"

// CheckNamespace refuses a database or collection name MongoDB refuses
// (InvalidNamespace): the check of every command that names a collection,
// and of the stages that read one ($lookup, $unionWith).
func CheckNamespace(db, coll string) error {
	if db == "" || strings.ContainsAny(db, "/\\. \"$\x00") || len(db) > 63 {
		return New(InvalidNamespace, "Invalid database name: '%s'", db)
	}
	if coll == "" || strings.Contains(coll, "$") || strings.Contains(coll, "\x00") || strings.HasPrefix(coll, ".") {
		return New(InvalidNamespace, "Invalid collection name: %s", coll)
	}
	return nil
}
