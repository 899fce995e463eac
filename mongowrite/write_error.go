package mongowrite

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// WriteError is a write of documents into a collection (or a file) that
// stopped before every document was stored: how far it got, the document it
// stopped at when one was refused, and why.
type WriteError struct {
	Collection string
	// Written is how many documents were confirmed stored before the write
	// stopped, counting those found already there when resuming.
	Written int64
	// Total is how many documents the write was to store.
	Total int64
	// AtLeast says Written is a lower bound: the server could not be asked
	// afterwards how many of the last documents sent it stored.
	AtLeast bool
	// Doc is the document that was refused; nil when the failure was not
	// about one document (network, timeout, interruption).
	Doc *WriteDoc
	// Err is the cause: for a refused document, the server's reason.
	Err error
}

func (e *WriteError) Error() string {
	cause := fmt.Sprint(e.Err)
	if e.Doc != nil {
		cause = e.Doc.String() + ": " + cause
	}
	bound := ""
	if e.AtLeast {
		bound = "at least "
	}
	return fmt.Sprintf("collection %s: wrote %s%d of %d documents, then: %s", e.Collection, bound, e.Written, e.Total, cause)
}

func (e *WriteError) Unwrap() error { return e.Err }

// WriteDoc names one document of a write: its number in a generated
// collection, or the file and line it was read from (then Index is its
// position in that file, from 0), and its _id when it has one.
type WriteDoc struct {
	Index int64
	File  string
	Line  int
	ID    bson.RawValue
}

// String is "file:line" for a document read from a file, else "document N"
// with its _id.
func (d *WriteDoc) String() string {
	switch {
	case d.File != "":
		return fmt.Sprintf("%s:%d", d.File, d.Line)
	case d.ID.Type != 0:
		return fmt.Sprintf("document %d (_id %v)", d.Index, d.ID)
	}
	return fmt.Sprintf("document %d", d.Index)
}

// refusal is the server's reason for refusing one document of a bulk write.
// It unwraps to the driver's mongo.WriteError, for its code.
type refusal struct{ we mongo.WriteError }

func (r refusal) Error() string {
	return fmt.Sprintf("%s (code %d)", ServerMessage(r.we.Message), r.we.Code)
}
func (r refusal) Unwrap() error { return r.we }
