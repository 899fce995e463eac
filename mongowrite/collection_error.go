package mongowrite

import "fmt"

// Op is an operation on a whole collection.
type Op string

// The operations of a CollectionError.
const (
	OpDrop    Op = "drop"      // dropping it (Drop)
	OpCount   Op = "count"     // counting its documents
	OpReadIDs Op = "read _ids" // reading the _ids a stored reference draws from
	OpScan    Op = "reading"   // reading its documents (an audit)
)

// CollectionError is an operation on a collection that the server failed:
// a drop (Drop, and a seed run's), a count, a read of every document. DB is
// "" where the caller does not name the database (Drop): the message then
// reads "drop collection NAME: ...", else "drop DB.NAME: ...".
type CollectionError struct {
	DB, Collection string
	Op             Op
	Err            error
}

func (e *CollectionError) Error() string {
	if e.DB == "" {
		return fmt.Sprintf("%s collection %s: %v", e.Op, e.Collection, e.Err)
	}
	return fmt.Sprintf("%s %s.%s: %v", e.Op, e.DB, e.Collection, e.Err)
}

func (e *CollectionError) Unwrap() error { return e.Err }
